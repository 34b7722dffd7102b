#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# frr-steer.sh - `kernel-routes yes` with `steering auto` and no rule of
# the test's: zebra's messages (tests/ns/frr-replay.py) for an L3VPN (the
# VRF's table 10, selected by `ip rule iif gw0 lookup 10`) and an End SID
# reach srv6d through its own rules alone: the kernel's seg6 encap routes'
# prefixes in its interval sets (kr6_10, kr4_10), the SID's prefix in the
# chain.  Checked: the sets hold the prefixes; each tenant packet is
# encapsulated by srv6d (its encap-source, its policy's counter: not the
# kernel's own seg6 route), the SID packet runs srv6d's End; zebra's
# delete takes the prefix out of the set (and the set and its rule with
# it, the table's last); `nft flush ruleset` brings the sets back with
# their elements; after the stop no table srv6d is left.
T=frr-steer
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 120
need_srv6d
need_tools nft
STEERING=auto

REPLAY="$PYTHON $top_srcdir/tests/ns/frr-replay.py --sr-dev sr0 --x-dev gw2 --core-dev gw1 --core-gw fc00:2::2"
S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"

printf 'queue 0\nencap-source fc00:1::2\nkernel-routes yes\noffload no\nsteering auto\n' \
	>"$TMPD/srv6d.conf"

ns_setup || { fail "topology setup"; ns_finish; }
if ! { nsx "$GW" ip link add sr0 type veth peer name sr0p &&
	nsx "$GW" ip link set sr0 up && nsx "$GW" ip link set sr0p up; }; then
	fail "sr0"
fi
if ! { nsx "$GW" ip -6 rule add pref 2000 iif gw0 lookup 10 &&
	nsx "$GW" ip -4 rule add pref 2000 iif gw0 lookup 10; }; then
	fail "ip rule"
fi

replay() {
	nsx "$GW" $REPLAY "$@" >"$TMPD/replay.out" 2>&1
	local rc=$?
	sed 's/^/    replay: /' "$TMPD/replay.out"
	return $rc
}
wait_for() {	# PYTHON-EXPR over the status: until True (2 s at most)
	local _
	for _ in $(seq 1 40); do
		[ "$(ctl_get "$1" 2>/dev/null)" = True ] && return 0
		sleep 0.05
	done
	return 1
}
# set_has FAMILY SET PREFIX: the set lists PREFIX (2 s at most)
set_has() {
	local _
	for _ in $(seq 1 40); do
		nsx "$GW" nft list set "$1" srv6d "$2" 2>/dev/null |
			grep -q "$3" && return 0
		sleep 0.05
	done
	return 1
}
pol_packets() { ctl_get "pol('$1')['packets']"; }
sid_packets() { ctl_get "sid('$1')['packets']"; }

srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID"
replay end l3vpn6 l3vpn4 || fail "the kernel refused FRR's messages"
wait_for "any(e['prefix'] == 'fc00:9:a::/64' for e in s['policies']) and any(e['prefix'] == '10.10.0.0/24' for e in s['policies']) and any(e['sid'] == 'fc00:100::e1/128' for e in s['sids'])" ||
	fail "srv6d did not take FRR's routes"

expect_eq "no NFQUEUE rule but srv6d's: ip6tables/iptables raw PREROUTING empty" \
	"$(nsx "$GW" ip6tables -t raw -S PREROUTING | grep -c NFQUEUE)$(nsx "$GW" iptables -t raw -S PREROUTING | grep -c NFQUEUE)" 00
if set_has ip6 kr6_10 "fc00:9:a::/64"; then
	pass "table 10's IPv6 seg6 route (bgpd's L3VPN) in set kr6_10"
else
	fail "kr6_10: $(nsx "$GW" nft list table ip6 srv6d 2>&1 | tr '\n' ' ')"
fi
if set_has ip kr4_10 "10.10.0.0/24"; then
	pass "table 10's IPv4 seg6 route in set kr4_10"
else
	fail "kr4_10: $(nsx "$GW" nft list table ip srv6d 2>&1 | tr '\n' ' ')"
fi
expect_eq "the chains match the sets" \
	"$(nsx "$GW" nft list ruleset | grep -c 'daddr @kr[46]_10 ')" 2
say "status steering: $(ctl_get "s['steering']")"

out=$(pkt_xchg --tag l3vpn6 $S --dst fc00:9:a::1)
expect_fields "l3vpn6: encapsulated by srv6d (its encap-source) toward fc00:9::a6 (sink1)" \
	"$out" s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::a6 srh.segs=fc00:9::a6 \
	in1.ip6.dst=fc00:9:a::1
expect_eq "l3vpn6: srv6d's policy counted the packet" "$(pol_packets fc00:9:a::/64)" 1
out=$(pkt_xchg --tag l3vpn4 --v4 --src 192.0.2.1 --dst 10.10.0.1)
expect_fields "l3vpn4: encapsulated by srv6d toward fc00:9::a4 (sink1)" \
	"$out" s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::a4 srh.segs=fc00:9::a4 \
	in1.ip4.dst=10.10.0.1
expect_eq "l3vpn4: srv6d's policy counted the packet" "$(pol_packets 10.10.0.0/24)" 1
out=$(pkt_xchg --tag end $S --segs fc00:100::e1,fc00:9::c1 $IN6)
exp=$(pkt_build --tag end $S --segs fc00:100::e1,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "end: srv6d's End (isisd's SID, steered by its own rule)" "$out" s1 "$exp"
expect_eq "end: srv6d's SID counted the packet" "$(sid_packets fc00:100::e1/128)" 1

# zebra's delete: the prefix leaves the set; table 10's last IPv6 route,
# so the set and its rule go too
replay --del l3vpn6 >/dev/null || fail "zebra's RTM_DELROUTE refused"
gone=no
for _ in $(seq 1 40); do
	if ! nsx "$GW" nft list table ip6 srv6d | grep -q "fc00:9:a::/64\|kr6_10"; then
		gone=yes
		break
	fi
	sleep 0.05
done
expect_eq "after zebra's RTM_DELROUTE: kr6_10 and its rule gone" "$gone" yes
if set_has ip kr4_10 "10.10.0.0/24"; then
	pass "kr4_10 untouched by the IPv6 route's delete"
else
	fail "kr4_10 lost its element"
fi
replay l3vpn6 >/dev/null || fail "re-add"
if set_has ip6 kr6_10 "fc00:9:a::/64"; then
	pass "zebra's route again: back in kr6_10"
else
	fail "kr6_10 after the re-add"
fi
out=$(pkt_xchg --tag l3vpn6b $S --dst fc00:9:a::2)
expect_fields "l3vpn6 again: encapsulated by srv6d" "$out" s1 ip6.src=fc00:1::2 \
	ip6.dst=fc00:9::a6
# `nft flush ruleset`: the sets come back with their elements
nsx "$GW" nft flush ruleset
sleep 0.3
if set_has ip kr4_10 "10.10.0.0/24" && set_has ip6 kr6_10 "fc00:9:a::/64"; then
	pass "after 'nft flush ruleset': the sets back, with their elements"
else
	fail "after the flush: $(nsx "$GW" nft list ruleset 2>&1 | tr '\n' ' ')"
fi

srv6d_stop || fail "srv6d stop"
expect_eq "after the stop: no table srv6d" \
	"$(nsx "$GW" nft list tables | grep -c srv6d)" 0
ns_finish
