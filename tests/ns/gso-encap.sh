#!/bin/bash
# shellcheck disable=SC2317 # l3vpn.sh returns early when sourced as a library
# gso-encap.sh - TCP super-packets encapsulated by srv6d's H.Encaps with
# `offload yes` (the default) and `kernel-encap no` (issue 10): each super-packet result is cut into segments in
# userspace (REINJECT_SEGMENT, src/io/segment.c) and sent through srv6d's
# reinjection device.  The L3VPN of tests/ns/l3vpn.sh, hosts at MTU 1500:
#
#   a1 --ta-- PE1 (srv6d: H.Encaps, kernel-encap no) ==c0== PE2 --ta-- a2
#
# PE2 decapsulates with the kernel's seg6local End.DT6 (IPv6 tenant) and
# with srv6d's End.DT4 (`offload no`: single packets; IPv4 tenant: the kernel's End.DT4 needs
# a VRF device).  For each case (core MTU 9000 and 1500, GRO on and off
# at every veth, IPv6 and IPv4 inside) a 2-second iperf3 transfer a1 -> a2
# is captured leaving PE1 on c0, and every frame is checked:
#  - the inner TCP checksum (tshark, the inner IPv6/IPv4 pseudo header) and
#    the inner IPv4 header checksum;
#  - the lengths: outer Payload Length = frame - 54, the inner packet's
#    length = outer - SRH (24) and TCP header + payload = the inner
#    packet's payload; no frame larger than the core MTU;
#  - the flags: PSH on fewer than 1 segment in 10 (only on the last of
#    a super-packet: copied to every segment, about half would have it);
# and a2's TcpInCsumErrors stays 0, a1's TcpRetransSegs small, srv6d's
# gso_segments counts the segmentation and nothing is refused or dropped
# too big.
T=gso-encap
L3VPN_LIB=1
HOST_MTU=1500
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "$0")/l3vpn.sh"

ns_init 300
need_srv6d
[ "${SRV6D_KERNEL:-}" = 7.2 ] &&
	skip_test "SRV6D_KERNEL=7.2: this cut needs every payload"
for c in iperf3 ethtool nstat tcpdump tshark; do
	command -v "$c" >/dev/null || skip_test "$c not found"
done

# pe_srv6d_start PE N CONF: srv6d in PE with CONF, socket $TMPD/peN.sock.
pe_srv6d_start() {
	local pe=$1 n=$2 sock="$TMPD/pe$2.sock" pid _
	steering_no "$3"
	ip netns exec "$pe" "$SRV6D" -c "$3" -s "$sock" -d \
		>"$TMPD/pe$n.log" 2>&1 &
	pid=$!
	SRV6D_PIDS+=("$pid")
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || { cat "$TMPD/pe$n.log"; return 1; }
		[ -S "$sock" ] && timeout 2 "$SRV6CTL" -s "$sock" -j status \
			>/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# pe1_totals: PE1's srv6d counters "gso_packets gso_segments gso_refused
# too_big-icmp_sent rx_packets" (a drop too big that is not a Packet Too
# Big sent, a full-size single packet's, is a super-packet not cut).
pe1_totals() {
	timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" -j status | "$PYTHON" -c '
import json, sys
t = json.load(sys.stdin)["totals"]
print(t["gso_packets"], t["gso_segments"], t["gso_refused"],
      t["drops"].get("too_big", 0) - t["icmp_sent"], t["rx_packets"])'
}

nstat_get() {	# NS COUNTER: its absolute value
	nsx "$1" nstat -az "$2" 2>/dev/null | awk -v c="$2" '$1 == c { print $2 + 0 }'
}

# gro on|off: at every veth of the path.
gro() {
	local ns_if
	for ns_if in "$A1:e0" "$PE1:ta" "$PE1:c0" "$PE2:c0" "$PE2:ta" "$A2:e0"; do
		nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro "$1" >/dev/null 2>&1 ||
			return 1
	done
}

# check_case LABEL DST MTU FAMILY: the transfer, its capture, the checks.
check_case() {
	local label=$1 dst=$2 mtu=$3 fam=$4 tp
	local pcap="$TMPD/$label.pcap"
	local g0 s0 r0 b0 x0 g1 s1 r1 b1 x1 csum0 csum1 re0 re1 out0 out1
	local rate fields bad
	read -r g0 s0 r0 b0 x0 <<<"$(pe1_totals)"
	csum0=$(nstat_get "$A2" TcpInCsumErrors)
	re0=$(nstat_get "$A1" TcpRetransSegs)
	out0=$(nstat_get "$A1" TcpOutSegs)
	nsx "$PE1" timeout 20 tcpdump -i c0 -Q out -s 0 -w "$pcap" -c 20000 \
		ip6 >/dev/null 2>&1 &
	tp=$!
	sleep 1
	rate=$(l3vpn_iperf "$A2" "$dst" "$A1" 2)
	sleep 0.5
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	read -r g1 s1 r1 b1 x1 <<<"$(pe1_totals)"
	csum1=$(nstat_get "$A2" TcpInCsumErrors)
	re1=$(nstat_get "$A1" TcpRetransSegs)
	out1=$(nstat_get "$A1" TcpOutSegs)
	say "$label: $((${rate:-0} / 1000000)) Mbit/s; PE1: $((g1 - g0)) super-packets cut into $((s1 - s0)) segments, $((x1 - x0)) packets received"
	if [ "${rate:-0}" -gt 1000000 ]; then
		pass "$label: the transfer got through ($((rate / 1000000)) Mbit/s)"
	else
		fail "$label: transfer: ${rate:-no result}"
	fi
	# One line per data frame: frame length, the IPv6 Payload Lengths
	# (outer,inner for IPv6 inside), the inner IPv4 total length, TCP's
	# header length and payload, its checksum status, the IPv4 header
	# checksum status, PSH.
	# shellcheck disable=SC2086 # TSHARK_OPTS is a list of options
	fields=$(tshark -r "$pcap" $TSHARK_OPTS -Y 'tcp.len > 0' -T fields \
		-E separator='|' -E aggregator=, -e frame.len -e ipv6.plen \
		-e ip.len -e tcp.hdr_len -e tcp.len -e tcp.checksum.status \
		-e ip.checksum.status -e tcp.flags.push 2>/dev/null)
	bad=$("$PYTHON" -c '
import sys
fam, mtu = sys.argv[1], int(sys.argv[2])
n = bad = psh = big = 0
why = {}
for line in sys.stdin:
    f = line.strip().split("|")
    if len(f) < 8:
        continue
    n += 1
    flen, plens = int(f[0]), [int(x) for x in f[1].split(",") if x]
    thl, tlen, tst, ipst, push = int(f[3]), int(f[4]), f[5], f[6], f[7]
    if fam == "4":
        inner = int(f[2] or 0)
        ok_len = plens[0] == flen - 54 and inner == plens[0] - 24 and \
            thl + tlen == inner - 20
        ok_sum = tst == "1" and ipst == "1"	# 1: good
    else:
        ok_len = len(plens) == 2 and plens[0] == flen - 54 and \
            plens[1] == plens[0] - 24 - 40 and thl + tlen == plens[1]
        ok_sum = tst == "1"
    if flen > mtu + 14:
        big += 1
    if push in ("1", "True"):
        psh += 1
    if not ok_len:
        why["length"] = why.get("length", 0) + 1
    if not ok_sum:
        why["checksum"] = why.get("checksum", 0) + 1
print(n, sum(why.values()), psh, big, why)' "$fam" "$mtu" <<<"$fields")
	read -r n nbad npsh nbig _ <<<"$bad"
	say "$label: $n data frames captured, $nbad wrong ($bad), $npsh with PSH, $nbig over the MTU"
	if [ "${n:-0}" -gt 100 ] && [ "$nbad" = 0 ]; then
		pass "$label: every segment's lengths and checksums are valid ($n)"
	else
		fail "$label: $n segments, $nbad wrong: $bad"
	fi
	expect_eq "$label: no frame over the core MTU $mtu" "$nbig" 0
	# iperf3's 128 KB writes: one PSH per write, on its last segment (a
	# super-packet ends at a PSH: GRO stops there); PSH copied to every
	# segment of a super-packet would mark about half of them.
	if [ $((npsh * 10)) -lt "${n:-0}" ]; then
		pass "$label: PSH only on a super-packet's last segment ($npsh of $n)"
	else
		fail "$label: $npsh of $n segments with PSH"
	fi
	expect_eq "$label: a2 counted no TCP checksum error" $((csum1 - csum0)) 0
	if [ $((s1 - s0)) -gt $((g1 - g0)) ] && [ $((g1 - g0)) -gt 0 ]; then
		pass "$label: srv6d cut $((g1 - g0)) super-packets into $((s1 - s0)) segments"
	else
		fail "$label: $((g1 - g0)) super-packets, $((s1 - s0)) segments"
	fi
	expect_eq "$label: none refused" $((r1 - r0)) 0
	expect_eq "$label: none dropped too big at PE1 without an ICMP error" \
		$((b1 - b0)) 0
	# Retransmissions: the sender's own on a loaded machine, not
	# srv6d's doing, when they stay a small share.
	say "$label: a1 TcpRetransSegs $((re1 - re0)) of $((out1 - out0)) sent"
	if [ $((re1 - re0)) -le $(((out1 - out0) / 50 + 10)) ]; then
		pass "$label: retransmissions stay under 2% ($((re1 - re0)))"
	else
		fail "$label: $((re1 - re0)) retransmitted of $((out1 - out0))"
	fi
}

l3vpn_setup || { fail "topology setup"; ns_finish; }
# PE2: the kernel's End.DT6 (and its H.Encaps of the IPv6 replies), srv6d's
# End.DT4 for the IPv4 tenant.
nsx "$PE2" ip sr tunsrc set fc00:12::2
ip -n "$PE2" -6 route add fc00:2::a6/128 encap seg6local action End.DT6 \
	table 101 dev ta || fail "End.DT6 at PE2"
ip -n "$PE2" -6 route add fd01:1::/64 encap seg6 mode encap segs fc00:1::a6 \
	dev c0 table 101 || fail "seg6 encap at PE2"
if ! { nsx "$PE2" ip6tables -t raw -A PREROUTING -i c0 -d fc00:2::a4 \
		-j NFQUEUE --queue-num 0 &&
	nsx "$PE2" iptables -t raw -A PREROUTING -i ta -d 10.1.1.0/24 \
		-j NFQUEUE --queue-num 0; }; then
	fail "NFQUEUE rules at PE2"
fi
# offload no at PE2: its End.DT4 takes single packets (the way this test
# ran before offload became the default); the cut under test is PE1's.
cat >"$TMPD/pe2.conf" <<EOF
queue 0
offload no
encap-source fc00:12::2
sid fc00:2::a4/128 action End.DT4 table 101
route 10.1.1.0/24 table 101 encap seg6 mode encap segs fc00:1::a4
EOF
l3vpn_steer "$PE1" 1 || fail "NFQUEUE rules at PE1"
# offload yes (the default) with kernel-encap no: this test is about
# srv6d's own cut (kencap.sh has the kernel's encapsulation).
{ l3vpn_srv6d_conf 1; echo "kernel-encap no"; } >"$TMPD/pe1.conf"
pe_srv6d_start "$PE1" 1 "$TMPD/pe1.conf" || { fail "srv6d start on PE1"; ns_finish; }
pe_srv6d_start "$PE2" 2 "$TMPD/pe2.conf" || { fail "srv6d start on PE2"; ns_finish; }
nsx "$A2" nstat -n >/dev/null 2>&1

for mtu in 9000 1500; do
	if ! { ip -n "$PE1" link set c0 mtu "$mtu" &&
		ip -n "$PE2" link set c0 mtu "$mtu"; }; then
		fail "core MTU $mtu"
	fi
	sleep 0.5	# the route mirror learns the MTU
	for g in on off; do
		[ "$mtu" = 1500 ] && [ "$g" = off ] && continue
		gro "$g" || skip_test "ethtool -K gro $g failed"
		check_case "mtu$mtu-gro$g-v6" fd01:2::2 "$mtu" 6
		check_case "mtu$mtu-gro$g-v4" 10.1.2.2 "$mtu" 4
	done
done
l3vpn_srv6d_stop || fail "srv6d exit"
ns_finish
