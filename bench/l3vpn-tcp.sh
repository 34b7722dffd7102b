#!/bin/bash
# shellcheck disable=SC2317 # l3vpn.sh returns early when sourced as a library
# l3vpn-tcp.sh - TCP throughput through the L3VPN of tests/ns/l3vpn.sh
# (two PEs, tenant hosts behind each), once with the kernel's seg6/seg6local
# at both PEs and once with srv6d at both, in the same run on the same
# topology.  The comparison uses tenant A's IPv6 hosts: the kernel's
# End.DT4 needs a VRF device (not available here); End.DT6 `table` does
# not.  srv6d's IPv4 figure (H.Encaps of IPv4 through the TUN device,
# End.DT4 through the SID's veth pair) is printed too.
#
# Usage (root): bench/l3vpn-tcp.sh [SECONDS] [RUNS]
#   SRV6D=/path/to/srv6d SRV6CTL=/path/to/srv6ctl to use another build.
# Prints one line per run and the median of each mode, in Mbit/s.
T=l3vpnbench
SECS=${1:-5}
RUNS=${2:-3}
L3VPN_LIB=1
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "$0")/../tests/ns/l3vpn.sh"

ns_init $((60 + 4 * RUNS * (SECS + 5)))
need_srv6d
command -v iperf3 >/dev/null || skip_test "iperf3 not found"

median() {	# numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

measure() {	# LABEL DST_NS DST SRC_NS: RUNS rates in Mbit/s to $TMPD/LABEL
	local i r
	: >"$TMPD/$1"
	for i in $(seq 1 "$RUNS"); do
		r=$(l3vpn_iperf "$2" "$3" "$4" "$SECS") || { say "$1: iperf3 failed"; return 1; }
		echo $((r / 1000000)) >>"$TMPD/$1"
		say "$1 run $i: $((r / 1000000)) Mbit/s"
	done
}

l3vpn_setup || { say "topology setup failed"; exit 1; }
say "kernel: seg6 encap + seg6local End.DT6 (table) at both PEs, ${SECS}s x $RUNS"
if ! l3vpn_kernel "$PE1" 1 || ! l3vpn_kernel "$PE2" 2; then
	say "kernel routes failed"
	exit 1
fi
nsx "$A1" ping -c 2 -W 2 fd01:2::2 >/dev/null || { say "kernel L3VPN does not answer"; exit 1; }
measure kernel6 "$A2" fd01:2::2 "$A1" || exit 1
for n in 1 2; do
	pe=$PE1; [ "$n" = 2 ] && pe=$PE2
	for r in a6 b6; do ip -n "$pe" -6 route del "fc00:$n::$r/128"; done
	ip -n "$pe" -6 route del "fd01:$((3 - n))::/64" table 101
	ip -n "$pe" -6 route del "fd02:$((3 - n))::/64" table 102
	nsx "$pe" ip sr tunsrc set ::
done

say "srv6d: H.Encaps + End.DT6/End.DT4 at both PEs (NFQUEUE, 1 queue each), ${SECS}s x $RUNS"
if ! l3vpn_steer "$PE1" 1 || ! l3vpn_steer "$PE2" 2; then
	say "NFQUEUE rules failed"
	exit 1
fi
l3vpn_srv6d_start "$PE1" 1 || exit 1
l3vpn_srv6d_start "$PE2" 2 || exit 1
nsx "$A1" ping -c 2 -W 2 fd01:2::2 >/dev/null || { say "srv6d L3VPN does not answer"; exit 1; }
measure srv6d6 "$A2" fd01:2::2 "$A1" || exit 1
measure srv6d4 "$A2" 10.1.2.2 "$A1" || exit 1
l3vpn_srv6d_stop

echo
echo "L3VPN TCP throughput (iperf3, a1 -> a2, host MTU $HOST_MTU, ${SECS}s, median of $RUNS):"
printf '  %-44s %6s Mbit/s  (runs: %s)\n' \
	"kernel seg6/seg6local End.DT6, IPv6 tenant" "$(median <"$TMPD/kernel6")" "$(tr '\n' ' ' <"$TMPD/kernel6")" \
	"srv6d H.Encaps/End.DT6, IPv6 tenant" "$(median <"$TMPD/srv6d6")" "$(tr '\n' ' ' <"$TMPD/srv6d6")" \
	"srv6d H.Encaps/End.DT4, IPv4 tenant" "$(median <"$TMPD/srv6d4")" "$(tr '\n' ' ' <"$TMPD/srv6d4")"
