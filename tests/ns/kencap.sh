#!/bin/bash
# shellcheck disable=SC2317 # l3vpn.sh returns early when sourced as a library
# kencap.sh - `kernel-encap auto` with `offload yes` (both the default):
# srv6d's H.Encaps of a TCP super-packet goes to the kernel's seg6 whole,
# through the rules and routes srv6d installs itself
# (src/route/kencap_routes.h).
# The L3VPN of tests/ns/l3vpn.sh, hosts at MTU 1500, core at 9000, GRO on
# at every veth:
#
#   a1 --ta-- PE1 (srv6d: H.Encaps, offload yes) ==c0== PE2 (kernel) --ta-- a2
#   b1 --tb--                                              --tb-- b2
#
# PE2 is the kernel's End.DT6 (and End for the reloaded list).  Tenant B's
# policy has `hmac 1`: its super-packets are cut by srv6d (counted).
# Checks: srv6d's fwmark rules (both families), seg6 encap routes and
# throw route in its own range; an iperf3 transfer a1 -> a2 whose
# super-packets the kernel encapsulates (kencap counter) with the outer
# header of srv6d's own H.Encaps of a small packet (source, hop limit,
# traffic class and flow label as the inner's, the SRH's bytes), captured
# on PE1's c0 with its offloads off (segments summed in software), no
# TcpInCsumErrors at a2; tenant B's transfer cut (kencap fallback hmac); a
# reload that changes tenant A's list moves it to a new table and empties
# the old one, the unchanged lists keep theirs; a stale rule and route of
# the range (a crashed instance's) are gone at start; without encap-source
# (tunsrc ::) the kernel's source is srv6d's and no super-packet falls
# back for it; srv6d0 deleted under srv6d, srv6d makes it and the
# routes again; `auto` falls back (off, why "install failed: ...", nothing
# of it left) when the kernel refuses its routes, at a reload and at start
# (srv6d0 at MTU 1000: no IPv6); nothing of the range is left after srv6d
# stops.
T=kencap
L3VPN_LIB=1
HOST_MTU=1500
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "$0")/l3vpn.sh"

ns_init 300
need_srv6d
need_tools iperf3 ethtool nstat tcpdump tshark
BASE=$MARK_BASE	# mark-base's default: the range is BASE..BASE+65535
# kernel-encap's marks are the top ones of the default mark-mask's offsets:
# MARK_TOP (mark-base + 8848) down (lib.sh)
PRIO=1000		# rule-priority's default

pe1() { timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" -j status; }

# pe1_get EXPR: a Python expression over PE1's status `s` (t: its totals).
pe1_get() {
	pe1 | "$PYTHON" -c '
import json, sys
s = json.load(sys.stdin)
t = s["totals"]
r = eval(sys.argv[1])
print(*r) if isinstance(r, tuple) else print(r)' "$1"
}

# table_of SEGS: the table whose IPv6 seg6 route has segs SEGS ("1 [ a ]").
table_of() {
	range_objects "$PE1" | awk -v s="segs $1" '$1 == "route6" && index($0, s) { print $2; exit }'
}

gro_on() {
	local ns_if
	for ns_if in "$A1:e0" "$B1:e0" "$PE1:ta" "$PE1:tb" "$PE1:c0" "$PE2:c0" \
		"$PE2:ta" "$PE2:tb" "$A2:e0" "$B2:e0"; do
		nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro on >/dev/null 2>&1 ||
			return 1
	done
}

pe1_start() {
	local sock="$TMPD/pe1.sock" pid _
	steering_no "$TMPD/pe1.conf"
	ip netns exec "$PE1" "$SRV6D" -c "$TMPD/pe1.conf" -s "$sock" -d \
		>>"$TMPD/pe1.log" 2>&1 &
	pid=$!
	SRV6D_PIDS=("$pid")
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || { cat "$TMPD/pe1.log"; return 1; }
		[ -S "$sock" ] && pe1 >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# pe1_conf SEGS_A6 [MODE]: PE1's config, tenant A's IPv6 list SEGS_A6 in
# MODE (encap).
pe1_conf() {
	cat <<EOF
queue 0
encap-source fc00:12::1
hmac 1 sha256 secret-file $TMPD/hmac.key
sid fc00:1::a6/128 action End.DT6 table 101
sid fc00:1::b6/128 action End.DT6 table 102
route fd01:2::/64 table 101 encap seg6 mode ${2:-encap} segs $1
route 10.1.2.0/24 table 101 encap seg6 mode encap segs fc00:2::a4
route fd02:2::/64 table 102 encap seg6 mode encap segs fc00:2::b6 hmac 1
EOF
}

# wire_case LABEL FIRST: a ping a1 -> a2 (srv6d's own H.Encaps of a small
# packet) and an iperf3 transfer (super-packets the kernel encapsulates),
# captured leaving PE1 on c0 towards FIRST (the outer destination); every
# TCP segment's outer header must be the ping's (source, hop limit, SRH
# bytes), traffic class and flow label the inner's, checksums good.
wire_case() {
	local label=$1 first=$2 tp k0 k1 c0 c1 csum0 csum1 rate wire bad
	local nping ntcp nbad nbig wsrc whlim wsrh
	local PCAP_PING="$TMPD/$2-ping.pcap" PCAP_TCP="$TMPD/$2-tcp.pcap"
	nsx "$PE1" timeout 10 tcpdump -i c0 -Q out -s 200 -w "$PCAP_PING" -c 3 \
		"ip6 and dst $first" >/dev/null 2>&1 &
	tp=$!
	sleep 1
	nsx "$A1" ping -c 3 -i 0.2 -W 2 fd01:2::2 >/dev/null || fail "ping a1 -> a2"
	wait "$tp"

	read -r k0 c0 v0 <<<"$(pe1_get 't["kencap"], t["gso_segments"], t["gso_vnet"]')"
	csum0=$(nstat_abs "$A2" TcpInCsumErrors)
	nsx "$PE1" timeout 20 tcpdump -i c0 -Q out -s 0 -w "$PCAP_TCP" -c 3000 \
		"ip6 and dst $first" >/dev/null 2>&1 &
	tp=$!
	sleep 1
	rate=$(l3vpn_iperf "$A2" fd01:2::2 "$A1" 3)
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	read -r k1 c1 v1 <<<"$(pe1_get 't["kencap"], t["gso_segments"], t["gso_vnet"]')"
	csum1=$(nstat_abs "$A2" TcpInCsumErrors)
	say "$label: $((${rate:-0} / 1000000)) Mbit/s, $((k1 - k0)) super-packets to the kernel, $((c1 - c0)) segments cut"
	if [ "${rate:-0}" -gt 1000000 ]; then pass "$label: the transfer got through"
	else fail "$label: transfer: ${rate:-no result}"; fi
	if [ $((k1 - k0)) -gt 10 ]; then
		pass "$label: the kernel encapsulated $((k1 - k0)) super-packets"
	else
		fail "$label: kencap counter: $((k1 - k0))"
	fi
	expect_eq "$label: a2 counted no TCP checksum error" $((csum1 - csum0)) 0
	# Core 9000 > host 1500 + the outer headers: the originals accepted
	# with the mark, none sent through srv6d0 (kencap_accept_ok()).
	expect_eq "$label: the originals went with the mark, no frame through srv6d0" \
		$((v1 - v0)) 0

	# The outer headers on the wire: the TCP segments' (the kernel's
	# encapsulation) against the pings' (srv6d's).
	wire=$("$PYTHON" - "$PCAP_PING" "$PCAP_TCP" <<'PY'
import struct, sys
def frames(path):
    with open(path, "rb") as f:
        d = f.read()
    off = 24
    while off + 16 <= len(d):
        incl = struct.unpack("<I", d[off + 8:off + 12])[0]
        yield d[off + 16:off + 16 + incl]
        off += 16 + incl
def outer(fr):
    ip = fr[14:]
    if len(ip) < 40 or ip[6] != 43:
        return None
    srh = ip[40:40 + 8 + ip[41] * 8]
    inner = ip[40 + len(srh):]
    vo = struct.unpack(">I", ip[:4])[0]
    vi = struct.unpack(">I", inner[:4])[0]
    return dict(src=ip[8:24].hex(), hlim=ip[7], srh=srh.hex(),
                tc=(vo >> 20) & 0xff, fl=vo & 0xfffff,
                itc=(vi >> 20) & 0xff, ifl=vi & 0xfffff, ihlim=inner[7],
                proto=inner[6], plen=struct.unpack(">H", ip[4:6])[0],
                iplen=struct.unpack(">H", inner[4:6])[0], flen=len(fr))
ping = [o for o in map(outer, frames(sys.argv[1])) if o and o["proto"] == 58]
tcp = [o for o in map(outer, frames(sys.argv[2])) if o and o["proto"] == 6]
bad = 0
ref = ping[0] if ping else None
for o in tcp:
    same = ref and (o["src"], o["hlim"], o["srh"]) == \
        (ref["src"], ref["hlim"], ref["srh"])
    ok = same and o["tc"] == o["itc"] and o["fl"] == o["ifl"] and \
        o["hlim"] == o["ihlim"] - 1 and o["plen"] == o["iplen"] + 40 + len(o["srh"]) // 2
    bad += not ok
for o in ping:
    bad += not (o["tc"] == o["itc"] and o["fl"] == o["ifl"])
big = sum(o["plen"] > 1500 + len(o["srh"]) // 2 for o in tcp)
print(len(ping), len(tcp), bad, big, ref["src"] if ref else "-",
      ref["hlim"] if ref else "-", ref["srh"] if ref else "-")
PY
	)
	read -r nping ntcp nbad nbig wsrc whlim wsrh <<<"$wire"
	say "$label wire: $nping pings, $ntcp TCP segments, $nbad differ; outer source $wsrc, hop limit $whlim, SRH $wsrh"
	if [ "${nping:-0}" -ge 1 ] && [ "${ntcp:-0}" -gt 100 ] && [ "$nbad" = 0 ]; then
		pass "$label: every TCP segment has the outer header of srv6d's own H.Encaps ($ntcp)"
	else
		fail "$label: outer headers: $wire"
	fi
	expect_eq "$label: every segment fits the hosts' MTU behind the outer header and SRH" "$nbig" 0
	# shellcheck disable=SC2086 # TSHARK_OPTS is a list of options
	bad=$(tshark -r "$PCAP_TCP" $TSHARK_OPTS -Y 'tcp.len > 0 and tcp.checksum.status != 1' \
		2>/dev/null | wc -l)
	expect_eq "$label: every captured TCP segment's checksum is good" "$bad" 0
}

l3vpn_setup || { fail "topology setup"; ns_finish; }
printf 'kencap-test-secret' >"$TMPD/hmac.key"
chmod 600 "$TMPD/hmac.key"
# PE2: the kernel's End.DT6 for both tenants (HMAC ignored), End for the
# reloaded list, its own H.Encaps of the replies.
nsx "$PE2" ip sr tunsrc set fc00:12::2
nsx "$PE2" sysctl -qw net.ipv6.conf.c0.seg6_require_hmac=-1
if ! { ip -n "$PE2" -6 route add fc00:2::a6/128 encap seg6local \
		action End.DT6 table 101 dev ta &&
	ip -n "$PE2" -6 route add fc00:2::b6/128 encap seg6local \
		action End.DT6 table 102 dev tb &&
	ip -n "$PE2" -6 route add fc00:2::1/128 encap seg6local action End \
		dev c0 &&
	ip -n "$PE2" -6 route add fd01:1::/64 encap seg6 mode encap \
		segs fc00:1::a6 dev c0 table 101 &&
	ip -n "$PE2" -6 route add fd02:1::/64 encap seg6 mode encap \
		segs fc00:1::b6 dev c0 table 102; }; then
	fail "PE2's seg6 routes"
fi
for pe in "$PE1" "$PE2"; do
	ip -n "$pe" link set c0 mtu 9000 || fail "core MTU"
done
gro_on || skip_test "ethtool -K gro on failed"
# PE1's c0 cuts and sums in software before tcpdump sees the frames.
nsx "$PE1" ethtool -K c0 tso off gso off tx off >/dev/null 2>&1 ||
	skip_test "ethtool -K c0 tso/gso/tx off failed"
if ! { nsx "$PE1" ip6tables -t raw -A PREROUTING -i c0 -d fc00:1::/48 \
		-j NFQUEUE --queue-num 0 &&
	nsx "$PE1" ip6tables -t raw -A PREROUTING -i ta -d fd01:2::/64 \
		-j NFQUEUE --queue-num 0 &&
	nsx "$PE1" ip6tables -t raw -A PREROUTING -i tb -d fd02:2::/64 \
		-j NFQUEUE --queue-num 0; }; then
	fail "NFQUEUE rules at PE1"
fi

# A crashed instance's leftovers in the range (srv6d's: protocol 93,
# RTPROT_SRV6D): gone once srv6d starts.
STALE=$((BASE + 0xfe00))
if ! { ip -n "$PE1" -4 rule add priority "$PRIO" fwmark "$STALE" lookup "$STALE" protocol 93 &&
	ip -n "$PE1" -6 route add default dev lo table "$STALE" proto 93; }; then
	fail "stale rule and route"
fi
pe1_conf fc00:2::a6 >"$TMPD/pe1.conf"
pe1_start || { fail "srv6d start on PE1"; ns_finish; }
nsx "$A2" nstat -n >/dev/null 2>&1

say "PE1's objects in srv6d's range:"
range_objects "$PE1" | sed 's/^/    /'
expect_eq "the stale rule and route are gone" \
	"$(range_objects "$PE1" | grep -c " $STALE")" 0
expect_eq "kernel encapsulation active" "$(pe1_get 's["kernel_encap"]["active"]')" True
expect_eq "two encapsulations (the HMAC policy has none)" \
	"$(pe1_get 's["kernel_encap"]["encapsulations"]')" 2
TA=$(table_of "1 [ fc00:2::a6 ]")
TA4=$(range_objects "$PE1" | awk '$1 == "route4" && index($0, "segs 1 [ fc00:2::a4 ]") { print $2; exit }')
if [ -n "$TA" ] && [ "$TA" -gt $((MARK_TOP - 0x100)) ] && [ "$TA" -le "$MARK_TOP" ]; then
	pass "tenant A's list has table $TA, at the top of the range"
else
	fail "no table for tenant A's list (${TA:-none})"
fi
expect_eq "IPv6 and IPv4 fwmark rules for table $TA" \
	"$(range_objects "$PE1" | grep -c "^rule[46] $TA $TA\$")" 2
expect_eq "a throw route for the first segment in table $TA" \
	"$(ip -n "$PE1" -6 route show table "$TA" | grep -c '^throw fc00:2::a6 ')" 1
expect_eq "IPv6 and IPv4 blackhole routes last in table $TA" \
	"$(range_objects "$PE1" | grep -c "^route[46] $TA blackhole default .*metric 4294967295")" 2
expect_eq "an IPv4 seg6 route for 10.1.2.0/24's list" \
	"$( [ -n "$TA4" ] && ip -n "$PE1" -4 route show table "$TA4" | grep -c 'encap seg6 mode encap segs 1 \[ fc00:2::a4 \]')" 1
expect_eq "the kernel's tunsrc is encap-source" \
	"$(nsx "$PE1" ip sr tunsrc show | awk '{ print $NF }')" fc00:12::1

wire_case "tenant A" fc00:2::a6

# tenant B, `hmac 1`: cut by srv6d
read -r h0 c0 <<<"$(pe1_get 't["kencap_fallbacks"]["hmac"], t["gso_segments"]')"
rate=$(l3vpn_iperf "$B2" fd02:2::2 "$B1" 2)
read -r h1 c1 <<<"$(pe1_get 't["kencap_fallbacks"]["hmac"], t["gso_segments"]')"
say "tenant B (hmac): $((${rate:-0} / 1000000)) Mbit/s, $((h1 - h0)) fallbacks, $((c1 - c0)) segments"
if [ "${rate:-0}" -gt 1000000 ] && [ $((h1 - h0)) -gt 0 ] && [ $((c1 - c0)) -gt $((h1 - h0)) ]; then
	pass "tenant B's HMAC super-packets were cut by srv6d ($((h1 - h0)))"
else
	fail "tenant B: rate ${rate:-none}, hmac fallbacks $((h1 - h0)), segments $((c1 - c0))"
fi

# reload: tenant A through End fc00:2::1 at PE2
pe1_conf fc00:2::1,fc00:2::a6 >"$TMPD/pe1.conf"
timeout 10 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null || fail "reload"
sleep 0.5
TA2=$(table_of "2 [ fc00:2::1 fc00:2::a6 ]")
TA4b=$(range_objects "$PE1" | awk '$1 == "route4" && index($0, "segs 1 [ fc00:2::a4 ]") { print $2; exit }')
say "after the reload:"
range_objects "$PE1" | sed 's/^/    /'
if [ -n "$TA2" ] && [ "$TA2" != "$TA" ]; then
	pass "the new list has its own table $TA2"
else
	fail "the new list's table: ${TA2:-none} (old $TA)"
fi
expect_eq "the old list's table $TA is empty" \
	"$(ip -n "$PE1" -6 route show table "$TA" 2>/dev/null | wc -l)" 0
expect_eq "no rule looks up $TA" "$(range_objects "$PE1" | grep -c "^rule[46] $TA ")" 0
expect_eq "the unchanged IPv4 list keeps its table" "$TA4b" "$TA4"
expect_eq "a throw route for the new first segment" \
	"$(ip -n "$PE1" -6 route show table "$TA2" | grep -c '^throw fc00:2::1 ')" 1
read -r k0 <<<"$(pe1_get 't["kencap"]')"
rate=$(l3vpn_iperf "$A2" fd01:2::2 "$A1" 2)
read -r k1 <<<"$(pe1_get 't["kencap"]')"
if [ "${rate:-0}" -gt 1000000 ] && [ $((k1 - k0)) -gt 10 ]; then
	pass "tenant A through End fc00:2::1: kernel-encapsulated ($((k1 - k0)))"
else
	fail "after the reload: rate ${rate:-none}, kencap $((k1 - k0))"
fi

# H.Encaps.Red of the same list: the kernel's encap.red route leaves the
# first segment out of the SRH as srv6d does.
pe1_conf fc00:2::1,fc00:2::a6 encap.red >"$TMPD/pe1.conf"
timeout 10 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null || fail "reload"
sleep 0.5
expect_eq "an encap.red route for the list" \
	"$(range_objects "$PE1" | grep -c '^route6 .* default encap seg6 mode encap.red segs 2 \[ fc00:2::1 fc00:2::a6 \]')" 1
wire_case "encap.red" fc00:2::1

# Without encap-source, tunsrc ::: the kernel picks the source, and it is
# the one srv6d's own H.Encaps gives (fc00:12::1, c0's).
l3vpn_srv6d_stop || fail "srv6d exit"
nsx "$PE1" ip sr tunsrc set ::
grep -v '^encap-source' "$TMPD/pe1.conf" >"$TMPD/pe1b.conf"
mv "$TMPD/pe1b.conf" "$TMPD/pe1.conf"
pe1_start || { fail "srv6d start without encap-source"; ns_finish; }
expect_eq "without encap-source: active, the kernel picks the source" \
	"$(pe1_get 's["kernel_encap"]["active"], "picks the source" in s["kernel_encap"]["why"]')" "True True"
wire_case "no encap-source" fc00:2::1
expect_eq "without encap-source: no super-packet fell back for its source" \
	"$(pe1_get 't["kencap_fallbacks"]["source"]')" 0
expect_eq "the tunsrc stays ::" "$(nsx "$PE1" ip sr tunsrc show | awk '{ print $NF }')" "::"

# header-queue 1: the tenants' packets are queued there first (copy range
# 2112 bytes, tests/ns/lib.sh nfq_steer6_hq's rules): tenant A's
# super-packets go to the kernel's seg6 from their headers only, tenant
# B's (hmac) are bounced and cut from queue 0 whole.
l3vpn_srv6d_stop || fail "srv6d exit"
echo "header-queue 1" >>"$TMPD/pe1.conf"
for r in "ta fd01:2::/64" "tb fd02:2::/64"; do
	nsx "$PE1" ip6tables -t raw -I PREROUTING 1 -i "${r% *}" -d "${r#* }" \
		-m mark ! --mark 0x80000000/0x80000000 -j NFQUEUE --queue-num 1 ||
		fail "header queue rule for ${r#* }"
done
pe1_start || { fail "srv6d start with header-queue"; ns_finish; }
read -r t0 b0 <<<"$(pe1_get 't["hq_truncated"], t["bounced"]')"
wire_case "header queue" fc00:2::1
read -r t1 b1 <<<"$(pe1_get 't["hq_truncated"], t["bounced"]')"
say "header queue, tenant A: $((t1 - t0)) cut short, $((b1 - b0)) bounced"
if [ $((t1 - t0)) -gt 10 ] && [ $((b1 - b0)) = 0 ]; then
	pass "header queue: tenant A's super-packets by their headers only ($((t1 - t0))), none bounced"
else
	fail "header queue, tenant A: $((t1 - t0)) cut short, $((b1 - b0)) bounced"
fi
read -r b0 h0 <<<"$(pe1_get 't["bounced"], t["kencap_fallbacks"]["hmac"]')"
rate=$(l3vpn_iperf "$B2" fd02:2::2 "$B1" 2)
read -r b1 h1 <<<"$(pe1_get 't["bounced"], t["kencap_fallbacks"]["hmac"]')"
say "header queue, tenant B (hmac): $((${rate:-0} / 1000000)) Mbit/s, $((b1 - b0)) bounced, $((h1 - h0)) cut"
if [ "${rate:-0}" -gt 1000000 ] && [ $((b1 - b0)) -gt 0 ] && [ $((h1 - h0)) -gt 0 ]; then
	pass "header queue: tenant B's HMAC super-packets bounced, then cut whole"
else
	fail "header queue, tenant B: rate ${rate:-none}, bounced $((b1 - b0)), hmac $((h1 - h0))"
fi
expect_eq "header queue: rx_packets = accepted + forwarded + injected + dropped + bounced" \
	"$(pe1_get 't["accepted"] + t["forwarded"] + t["injected"] + t["dropped"] + t["bounced"] - t["rx_packets"]')" 0
l3vpn_srv6d_stop || fail "srv6d exit"
if ! { nsx "$PE1" ip6tables -t raw -D PREROUTING 1 &&
	nsx "$PE1" ip6tables -t raw -D PREROUTING 1; }; then
	fail "header queue rules removed"
fi
grep -v '^header-queue' "$TMPD/pe1.conf" >"$TMPD/pe1b.conf"
mv "$TMPD/pe1b.conf" "$TMPD/pe1.conf"
pe1_start || { fail "srv6d start without header-queue"; ns_finish; }

# kencap_left: routes of kernel-encap (seg6 encap, throw, blackhole) and
# rules at its marks (the top of the range) still in PE1.
kencap_left() {
	range_objects "$PE1" | awk -v top=$((MARK_TOP + 1 - 64)) '
		$1 ~ /^route/ && / encap seg6 | throw | blackhole / { n++ }
		$1 ~ /^rule/ && $2 >= top { n++ }
		END { print n + 0 }'
}

# srv6d0 deleted under srv6d: the kernel takes the encap routes with it;
# a reload makes the device and the routes again.
ip -n "$PE1" link del srv6d0 && say "deleted srv6d0"
sleep 0.5
# srv6d sees it and makes the device and its routes again (rtwatch.h;
# tests/ns/repair.sh times it), no reload needed
expect_eq "srv6d0 deleted: srv6d made it again" \
	"$(ip -n "$PE1" -o link show srv6d0 2>/dev/null | grep -c .)" 1
expect_eq "srv6d0 deleted: srv6d made its IPv6 seg6 route again" \
	"$(range_objects "$PE1" | grep -c '^route6 .* default encap seg6 mode encap.red segs 2 \[ fc00:2::1 fc00:2::a6 \] dev srv6d0 ')" 1
expect_eq "srv6d0 deleted: a repair counted" \
	"$(pe1_get 's["repairs"]["device"] >= 1')" True
timeout 10 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null || fail "reload"
sleep 0.5
expect_eq "after the reload: srv6d0 is back" \
	"$(ip -n "$PE1" -o link show srv6d0 2>/dev/null | grep -c .)" 1
expect_eq "after the reload: the IPv6 seg6 route through srv6d0 is back" \
	"$(range_objects "$PE1" | grep -c '^route6 .* default encap seg6 mode encap.red segs 2 \[ fc00:2::1 fc00:2::a6 \] dev srv6d0 ')" 1
wire_case "srv6d0 made again" fc00:2::1

# auto falls back when the kernel refuses the install: srv6d0 at MTU 1000
# has no IPv6 (the kernel refuses IPv6 routes through it: No such device).
# A reload: what the running config installed goes, the new one runs
# with kernel-encap off and says why; the next reload, MTU back, tries
# again.
mtu0=$(ip -n "$PE1" -o link show srv6d0 | awk '{ for (i = 1; i < NF; i++) if ($i == "mtu") print $(i + 1) }')
ip -n "$PE1" link set srv6d0 mtu 1000
if timeout 10 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null; then
	pass "auto: a reload the kernel refuses kernel-encap's routes for is taken"
else
	fail "auto: the reload was refused"
fi
sleep 0.5
expect_eq "auto, install refused: off, why says so" \
	"$(pe1_get 's["kernel_encap"]["active"], s["kernel_encap"]["why"].startswith("install failed: ") and s["kernel_encap"]["why"].endswith("No such device")')" "False True"
say "why: $(pe1_get 's["kernel_encap"]["why"]')"
expect_eq "auto, install refused: nothing of kernel-encap is left" "$(kencap_left)" 0
[ "$(kencap_left)" = 0 ] || range_objects "$PE1" | sed 's/^/    /'
expect_eq "auto, install refused: one warning logged" \
	"$(grep -c 'kernel-encap auto: install failed: .*No such device; running without it' "$TMPD/pe1.log")" 1
# A repair puts the config in force again, which tries the install
# again: failing the same way it stays quiet (a repair's retry, under
# load one of srv6d's own prunes seen late, logged the warning twice).
r0=$(pe1_get 'sum(s["repairs"][k] for k in ("rule", "route"))')
rl=$(ip -n "$PE1" -6 rule show | awk '/ proto 93/ && / lookup / { sub(":", "", $1); print $1, $5, $7; exit }')
if [ -n "$rl" ]; then
	set -- $rl
	ip -n "$PE1" -6 rule del priority "$1" fwmark "$2" lookup "$3" protocol 93
	sleep 0.5
	expect_eq "install refused, a rule deleted: repaired" \
		"$(pe1_get 'sum(s["repairs"][k] for k in ("rule", "route")) > '"$r0")" True
	expect_eq "install refused, a repair's retry fails the same way: still one warning" \
		"$(grep -c 'kernel-encap auto: install failed: .*No such device; running without it' "$TMPD/pe1.log")" 1
else
	fail "install refused: no fwmark rule of srv6d's to delete"
fi
ip -n "$PE1" link set srv6d0 mtu "${mtu0:-65535}"
timeout 10 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null || fail "reload"
sleep 0.5
expect_eq "the next reload, srv6d0's MTU back: kernel-encap on again" \
	"$(pe1_get 's["kernel_encap"]["active"]')" True
l3vpn_srv6d_stop || fail "srv6d exit"

# The same at start: srv6d starts with kernel-encap off (srv6d0 as a
# crashed srv6d leaves it, srv6d's MAC addresses: taken over, not refused).
ip -n "$PE1" link add srv6d0 mtu 1000 address 02:00:00:00:00:00 type veth \
	peer name srv6d0t mtu 1000 address 06:00:00:00:00:00
if pe1_start; then
	pass "auto: srv6d starts though the kernel refuses kernel-encap's routes"
	expect_eq "at start, install refused: off, why says so" \
		"$(pe1_get 's["kernel_encap"]["active"], s["kernel_encap"]["why"].startswith("install failed: ")')" "False True"
	expect_eq "at start, install refused: nothing of kernel-encap is left" "$(kencap_left)" 0
	l3vpn_srv6d_stop || fail "srv6d exit"
else
	fail "auto: srv6d did not start with its install refused"
fi
ip -n "$PE1" link del srv6d0 2>/dev/null
left=$(range_objects "$PE1")
expect_eq "nothing of srv6d's range is left after it stops" "$(echo -n "$left" | grep -c .)" 0
[ -n "$left" ] && say "left: $left"
ns_finish
