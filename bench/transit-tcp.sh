#!/bin/bash
# transit-tcp.sh - TCP through an SRv6 transit End, with GRO on: the
# kernel's seg6 headend and End.DT6 decapsulation at the edges, the End in
# the middle by the kernel's seg6local or by srv6d (without and with
# `gso yes`), in the same run on the same topology (tests/ns/lib.sh):
#
#   gen (iperf3 client, seg6 encap: segs fc00:100::1,fc00:9::d6)
#    -> gw (End fc00:100::1: kernel or srv6d)
#    -> s1 (seg6local End.DT6 fc00:9::d6, iperf3 server on fd00:9::1)
#
# For each mode: the rate (median of RUNS), the retransmissions at the
# sender (nstat TcpRetransSegs on gen) and the checksum errors at the
# receiver (TcpInCsumErrors on s1); then a proof run with the gateway's
# egress checksum offload off (ethtool -K gw1 tx off: every segment leaves
# gw with a checksum computed in software, which s1 verifies instead of
# trusting a veth's CHECKSUM_PARTIAL), captured as it leaves gw, every TCP
# segment's checksum checked by tshark.
#
# Usage (root): bench/transit-tcp.sh [SECONDS] [RUNS] [gro on|off]
#   SRV6D=/path/to/srv6d SRV6CTL=/path/to/srv6ctl to use another build.
T=transitbench
SECS=${1:-5}
RUNS=${2:-3}
GRO=${3:-on}
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/../tests/ns/lib.sh"

ns_init $((120 + 4 * RUNS * (SECS + 5)))
need_srv6d
for c in iperf3 ethtool nstat tcpdump tshark; do
	command -v "$c" >/dev/null || skip_test "$c not found"
done

median() {	# numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# nstat's history file is per user, not per namespace: read absolute
# values (-a) and subtract.
nstat_abs() {	# NS COUNTER
	nsx "$1" nstat -az "$2" 2>/dev/null | awk -v c="$2" '$1 == c { print $2 + 0 }'
}

nstat_reset() {	# remember gen's TcpRetransSegs and s1's TcpInCsumErrors
	RETRANS0=$(nstat_abs "$GEN" TcpRetransSegs)
	CSUMERR0=$(nstat_abs "$S1" TcpInCsumErrors)
}

nstat_get() {	# NS COUNTER: its increase since nstat_reset
	local v
	v=$(nstat_abs "$1" "$2")
	case $2 in
	TcpRetransSegs) echo $((v - RETRANS0)) ;;
	*) echo $((v - CSUMERR0)) ;;
	esac
}

iperf() {	# SECONDS: bits per second from gen to s1's fd00:9::1
	nsx "$GEN" timeout $(($1 + 10)) iperf3 -6 -c fd00:9::1 -t "$1" -J 2>/dev/null |
		"$PYTHON" -c 'import json,sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))'
}

offloads() {	# gro on|off on every veth
	local ns_if
	for ns_if in "$GEN:g0" "$GW:gw0" "$GW:gw1" "$S1:s1"; do
		nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro "$1" >/dev/null 2>&1 ||
			say "ethtool -K ${ns_if#*:} gro $1 failed"
	done
}

measure() {	# LABEL: RUNS rates to $TMPD/LABEL, counters to $TMPD/LABEL.c
	local i r
	: >"$TMPD/$1"
	nstat_reset
	for i in $(seq 1 "$RUNS"); do
		r=$(iperf "$SECS") || { say "$1: iperf3 failed"; return 1; }
		echo $((r / 1000000)) >>"$TMPD/$1"
		say "$1 run $i: $((r / 1000000)) Mbit/s"
	done
	echo "retrans=$(nstat_get "$GEN" TcpRetransSegs) csumerr=$(nstat_get "$S1" TcpInCsumErrors)" >"$TMPD/$1.c"
}

proof() {	# LABEL: a 2 s transfer captured leaving gw, its tx csum off
	local pcap="$TMPD/$1.pcap" good bad
	nsx "$GW" ethtool -K gw1 tx off >/dev/null 2>&1
	nstat_reset
	# At gw1's transmit tap: after the kernel's segmentation and software
	# checksum, what s1 receives.
	nsx "$GW" timeout 20 tcpdump -i gw1 -Q out -s 0 -w "$pcap" -c 30000 \
		'ip6 and dst host fc00:9::d6' >/dev/null 2>&1 &
	local tp=$!
	sleep 1
	iperf 2 >/dev/null
	sleep 0.5
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	nsx "$GW" ethtool -K gw1 tx on >/dev/null 2>&1
	# tcp.checksum.status: 0 bad, 1 good, 2 not verified.
	good=$(tshark -r "$pcap" -o tcp.check_checksum:TRUE \
		-Y 'tcp.len > 0 && tcp.checksum.status == 1' 2>/dev/null | wc -l)
	bad=$(tshark -r "$pcap" -o tcp.check_checksum:TRUE \
		-Y 'tcp.checksum.status != 1' 2>/dev/null | wc -l)
	echo "segments_good=$good not_good=$bad maxlen=$(tshark -r "$pcap" -T fields -e frame.len 2>/dev/null | sort -n | tail -1) retrans=$(nstat_get "$GEN" TcpRetransSegs) csumerr=$(nstat_get "$S1" TcpInCsumErrors)" >"$TMPD/$1.p"
	say "$1 proof: $(cat "$TMPD/$1.p")"
}

ns_setup || { say "topology setup failed"; exit 1; }
nsx "$S1" ip -6 addr add fd00:9::1/128 dev lo
nsx "$S1" ip -6 route add fc00:9::d6/128 encap seg6local action End.DT6 table 255 dev s1 ||
	{ say "End.DT6 route failed"; exit 1; }
nsx "$GEN" ip sr tunsrc set fc00:1::1
nsx "$GEN" ip -6 route add fd00:9::/64 encap seg6 mode encap \
	segs fc00:100::1,fc00:9::d6 via fc00:1::2 dev g0 ||
	{ say "seg6 encap route failed"; exit 1; }
offloads "$GRO"
nsx "$S1" iperf3 -s -D -B fd00:9::1 >/dev/null 2>&1
sleep 0.5

say "kernel: seg6local End at gw, GRO $GRO, ${SECS}s x $RUNS"
nsx "$GW" ip -6 route add fc00:100::1/128 encap seg6local action End dev gw1 ||
	{ say "seg6local End failed"; exit 1; }
nsx "$GEN" ping -6 -c 2 -W 2 fd00:9::1 >/dev/null || { say "kernel path does not answer"; exit 1; }
measure kernel || exit 1
proof kernel
nsx "$GW" ip -6 route del fc00:100::1/128

nfq_steer6 fc00:100::/32 || { say "NFQUEUE rule failed"; exit 1; }
for gso in no yes; do
	printf 'queue 0\nsid fc00:100::1/128 action End\ngso %s\n' "$gso" >"$TMPD/srv6d.conf"
	srv6d_start "$TMPD/srv6d.conf" || exit 1
	say "srv6d End, gso $gso, GRO $GRO, ${SECS}s x $RUNS"
	nsx "$GEN" ping -6 -c 2 -W 2 fd00:9::1 >/dev/null || { say "srv6d path does not answer"; exit 1; }
	measure "srv6d-gso-$gso" || exit 1
	proof "srv6d-gso-$gso"
	ctl_get "'gso_packets=%d gso_refused=%d csum_completed=%d forwarded=%d' % (s['totals']['gso_packets'], s['totals']['gso_refused'], s['totals']['csum_completed'], s['totals']['forwarded'])" \
		>"$TMPD/srv6d-gso-$gso.s" 2>&1
	srv6d_stop
done

echo
echo "Transit End TCP (iperf3 gen -> s1, kernel seg6 headend and End.DT6, GRO $GRO, ${SECS}s, median of $RUNS):"
for m in kernel srv6d-gso-no srv6d-gso-yes; do
	printf '  %-16s %6s Mbit/s  (runs: %s) %s\n' "$m" "$(median <"$TMPD/$m")" \
		"$(tr '\n' ' ' <"$TMPD/$m")" "$(cat "$TMPD/$m.c")"
	printf '  %-16s proof: %s %s\n' "" "$(cat "$TMPD/$m.p")" "$(cat "$TMPD/$m.s" 2>/dev/null)"
done
