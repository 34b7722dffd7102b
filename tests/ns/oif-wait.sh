#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# oif-wait.sh - a SID whose oif names no link yet is waited for, not an
# error: `srv6d -t` and a start accept the same file (a unit that ran -t
# must not loop on a start that fails), the SIDs drop their packets and
# count them as nexthop_unreachable, and once the link appears the route
# mirror tells the daemon, which installs the next hop's route, so that
# the SIDs work without a reload.  Then the link goes down (the kernel
# deletes the routes by it) and up again, and is deleted and made again
# (another ifindex): the SIDs follow it each time.
#
# An End.X without oif whose next hop has no route at start is waited
# for too: the start succeeds, the SID drops its packets as no_route,
# and within about a second of a route to the next hop appearing, the
# daemon installs the SID's route (no link event is involved).
#
# gw2 (the gateway's link to sink2) is deleted before srv6d starts; End.X,
# End.DX6 and End.DX2 SIDs name it.
T=oif-wait
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 180
need_srv6d

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
sid fc00:100::3/128 action End.X nh6 fc00:3::2 oif gw2
sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2 oif gw2
sid fc00:100::b/128 action End.DX2 oif gw2
sid fc00:100::7/128 action End.X nh6 fc00:7::2
EOF
# End.X's own table: mark-base + 1 + its index (srv6d(8), Policy routing)
ENDX_TABLE=$((0x5d6f0001))
ENDX7_TABLE=$((0x5d6f0004))

# gw2 and sink2's end of it, as ns_setup makes them.
link_make() {
	_link "$GW" gw2 $MAC_GW2 "$S2" s2 $MAC_S2 &&
	_addr "$GW" gw2 fc00:3::1/64 203.0.113.1/24 &&
	_addr "$S2" s2 fc00:3::2/64 203.0.113.2/24 &&
	_neigh "$GW" gw2 fc00:3::2 $MAC_S2 &&
	_neigh "$S2" s2 fc00:3::1 $MAC_GW2 &&
	ip -n "$S2" -6 route add default via fc00:3::1 &&
	_wait_up "$GW" gw2 && _wait_up "$S2" s2
}

# End.X's route via gw2 in its table, within 5 s (the daemon's re-install).
wait_route() {
	local _
	for _ in $(seq 1 50); do
		nsx "$GW" ip -6 route show table $ENDX_TABLE 2>/dev/null |
			grep -q "via fc00:3::2 dev gw2" && return 0
		sleep 0.1
	done
	return 1
}

# An End.DX2 packet (Next Header 143, no SRH) whose inner frame, for
# sink2's MAC, is an IPv6 packet with pkt.py's payload for tag $1 (which
# pkt.py xchg --tag $1 captures): its IP bytes as hex.
dx2_hex() {
	"$PYTHON" - "$1" "$MAC_S2" <<'PY'
import sys
from scapy.all import Ether, IPv6, UDP, Raw
tag, s2mac = sys.argv[1:3]
inner = Ether(dst=s2mac, src="02:00:00:00:99:01") / \
    IPv6(src="fc00:1::1", dst="fc00:9::99") / UDP() / \
    Raw(b"SRV6T:" + tag.encode() + b";")
outer = IPv6(src="fc00:1::1", dst="fc00:100::b", hlim=64, nh=143)
print(bytes(outer / Raw(bytes(inner))).hex())
PY
}

# pkt_xchg without sink2's capture (while s2 does not exist).
xchg_no_s2() {
	timeout 20 "$PYTHON" "$PKTPY" xchg --send "$GEN:g0" --dmac $MAC_GW0 \
		--cap "s1=$S1:s1" --cap "gen=$GEN:g0" \
		--timeout "$XCHG_TIMEOUT" "$@"
}

drops() {	# SID: its nexthop_unreachable drops
	ctl_get "drop(sid('$1'), 'nexthop_unreachable')"
}

ns_setup || { fail "topology setup"; ns_finish; }
nsx "$GW" ip link del gw2 || { fail "deleting gw2"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"

# ---- -t and the start agree --------------------------------------------------------
out=$(nsx "$GW" "$SRV6D" -t -c "$TMPD/srv6d.conf" 2>&1)
rc=$?
expect_eq "srv6d -t accepts the file whose oif gw2 is no link" "$rc" 0
srv6d_start "$TMPD/srv6d.conf" ||
	{ fail "srv6d starts with the file -t accepted"; ns_finish; }
pass "srv6d starts with the file -t accepted"
if grep -q "oif gw2: no such link now: the SID drops its packets until it is up" "$LOG"; then
	pass "the start warns that the SIDs wait for gw2"
else
	fail "the start warns that the SIDs wait for gw2"
fi
if nsx "$GW" ip -6 route show table $ENDX_TABLE 2>/dev/null | grep -q .; then
	fail "no route in End.X's table while gw2 does not exist"
else
	pass "no route in End.X's table while gw2 does not exist"
fi

if grep -q "End.X fc00:100::7/128: next hop fc00:7::2 has no route now" "$LOG"; then
	pass "the start warns that End.X fc00:100::7 waits for a route to its next hop"
else
	fail "the start warns that End.X fc00:100::7 waits for a route to its next hop"
fi

# ---- while gw2 is missing: drops, counted ---------------------------------------------
out=$(xchg_no_s2 --tag n1 $S --segs fc00:100::7,fc00:9::c1 $IN6)
expect_fields "End.X whose next hop has no route: Destination Unreachable code 0" \
	"$out" gen icmp6.type=1 icmp6.code=0 ip6.dst=fc00:1::1
expect_eq "End.X fc00:100::7 counted its drop as no_route" \
	"$(ctl_get "drop(sid('fc00:100::7/128'), 'no_route')")" 1
out=$(xchg_no_s2 --tag x1 $S --segs fc00:100::3,fc00:9::c1 $IN6)
expect_fields "End.X without its oif: Destination Unreachable code 3 to the sender" \
	"$out" gen icmp6.type=1 icmp6.code=3 ip6.dst=fc00:1::1
out=$(xchg_no_s2 --tag d1 $S --dst fc00:100::5 $IN6)
expect_fields "End.DX6 without its oif: Destination Unreachable code 3 to the sender" \
	"$out" gen icmp6.type=1 icmp6.code=3 ip6.dst=fc00:1::1
out=$(xchg_no_s2 --tag l1 --hex "$(dx2_hex l1)")
expect_none "End.DX2 without its oif: nothing leaves" "$out"
expect_eq "End.X counted its drop as nexthop_unreachable" "$(drops fc00:100::3/128)" 1
expect_eq "End.DX6 counted its drop as nexthop_unreachable" "$(drops fc00:100::5/128)" 1
expect_eq "End.DX2 counted its drop as nexthop_unreachable" "$(drops fc00:100::b/128)" 1

# ---- gw2 appears: the SIDs work, no reload --------------------------------------------
link_make || { fail "making gw2"; ns_finish; }
if wait_route; then
	pass "End.X's route via gw2 installed once gw2 exists"
else
	fail "End.X's route via gw2 installed once gw2 exists"
	nsx "$GW" ip -6 route show table all | grep -v 'local\|multicast'
fi
check_working() {	# ROUND
	out=$(pkt_xchg --tag x$1 $S --segs fc00:100::3,fc00:9::c1 $IN6)
	exp=$(pkt_build --tag x$1 $S --segs fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
	expect_frame "$1: End.X leaves by gw2 toward sink2" "$out" s2 "$exp"
	out=$(pkt_xchg --tag d$1 $S --dst fc00:100::5 $IN6)
	exp=$(pkt_build --tag d$1 --src fc00:1::1 --dst fc00:9::99 --hlim 63)
	expect_frame "$1: End.DX6's inner packet leaves by gw2 toward sink2" "$out" s2 "$exp"
	out=$(pkt_xchg --tag l$1 --hex "$(dx2_hex l$1)")
	expect_fields "$1: End.DX2's inner frame leaves by gw2" "$out" s2
}
check_working appeared
expect_eq "no drop more for End.X" "$(drops fc00:100::3/128)" 1
expect_eq "no drop more for End.DX2" "$(drops fc00:100::b/128)" 1
expect_eq "End.DX2 counted its frame" "$(ctl_get "sid('fc00:100::b/128')['packets']")" 1
expect_eq "no reload was needed" "$(ctl_get "s['reloads']")" 0
if grep -q "oif gw2 is up now: putting the configuration in force again" "$LOG"; then
	pass "the log says gw2 was seen"
else
	fail "the log says gw2 was seen"
fi

# ---- a route to End.X fc00:100::7's next hop appears: its route, no reload --------
if nsx "$GW" ip -6 route show table $ENDX7_TABLE 2>/dev/null | grep -q .; then
	fail "no route in End.X fc00:100::7's table while fc00:7::2 has none"
else
	pass "no route in End.X fc00:100::7's table while fc00:7::2 has none"
fi
# A route through a gateway is not enough (the kernel resolves no
# gateway through another): the SID still waits, and drops.
nsx "$GW" ip -6 route add fc00:7::/64 via fc00:3::2 dev gw2
sleep 1.5
out=$(pkt_xchg --tag n3 $S --segs fc00:100::7,fc00:9::c1 $IN6)
expect_fields "End.X fc00:100::7 via a gatewayed route only: still Destination Unreachable code 0" \
	"$out" gen icmp6.type=1 icmp6.code=0 ip6.dst=fc00:1::1
# fc00:7::2 on gw2's link now: a connected route.
nsx "$GW" ip -6 route del fc00:7::/64 via fc00:3::2 dev gw2
nsx "$S2" ip -6 addr add fc00:7::2/64 dev s2 nodad
nsx "$GW" ip -6 addr add fc00:7::1/64 dev gw2 nodad
_neigh "$GW" gw2 fc00:7::2 $MAC_S2
ok=
for _ in $(seq 1 30); do
	nsx "$GW" ip -6 route show table $ENDX7_TABLE 2>/dev/null |
		grep -q "via fc00:7::2" && { ok=1; break; }
	sleep 0.1
done
if [ -n "$ok" ]; then
	pass "End.X fc00:100::7's route installed within 3 s of its next hop's connected route"
else
	fail "End.X fc00:100::7's route installed within 3 s of its next hop's connected route"
fi
out=$(pkt_xchg --tag n2 $S --segs fc00:100::7,fc00:9::c1 $IN6)
exp=$(pkt_build --tag n2 $S --segs fc00:100::7,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.X fc00:100::7 leaves by gw2 toward sink2" "$out" s2 "$exp"
expect_eq "no reload for the next hop's route" "$(ctl_get "s['reloads']")" 0

# ---- gw2 down, then up again --------------------------------------------------------------
nsx "$GW" ip link set gw2 down
for _ in $(seq 1 50); do
	grep -q "oif gw2: link down now" "$LOG" && break
	sleep 0.1
done
out=$(pkt_xchg --tag xdown $S --segs fc00:100::3,fc00:9::c1 $IN6)
expect_fields "gw2 down: End.X answers Destination Unreachable code 3" \
	"$out" gen icmp6.type=1 icmp6.code=3 ip6.dst=fc00:1::1
expect_eq "gw2 down: End.X counted the drop" "$(drops fc00:100::3/128)" 2
nsx "$GW" ip link set gw2 up
_wait_up "$GW" gw2
if wait_route; then
	pass "End.X's route via gw2 back once gw2 is up again"
else
	fail "End.X's route via gw2 back once gw2 is up again"
fi
check_working up-again

# ---- gw2 deleted and made again (another ifindex) --------------------------------------
nsx "$GW" ip link del gw2
link_make || { fail "making gw2 again"; ns_finish; }
if wait_route; then
	pass "End.X's route via the new gw2 installed"
else
	fail "End.X's route via the new gw2 installed"
fi
check_working remade
expect_eq "still no reload" "$(ctl_get "s['reloads']")" 0

srv6d_stop || fail "srv6d stops cleanly"
ns_finish
