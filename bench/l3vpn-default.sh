#!/bin/bash
# shellcheck disable=SC2317 # l3vpn.sh returns early when sourced as a library
# l3vpn-default.sh - what a user gets: TCP through the L3VPN of
# tests/ns/l3vpn.sh with srv6d at both PEs and srv6d.conf as the README
# writes it (no offload, steering or header-queue directive at all: srv6d
# installs its own rules, with header queues), side by side with the
# kernel's own seg6/seg6local at both PEs, in one run (issue 18's goals).
# Rows, tenant A (a1 -> a2):
#   kernel6     the kernel's seg6 encap + seg6local End.DT6 at both PEs
#   default6    srv6d at both PEs, default config, IPv6 tenant (End.DT6)
#   default4    the same, IPv4 tenant (End.DT4 without a VRF: srv6d's own)
#   off6        srv6d at both PEs with `offload no` (every super-packet
#               cut by the kernel before it is queued)
# with the receiver's TcpInCsumErrors and the sender's TcpRetransSegs, and
# each PE's counters (how its packets went back).  The ratios to print
# are default6/kernel6 and default4/default6.
#
# Usage (root): bench/l3vpn-default.sh [SECONDS] [RUNS]
#   HOST_MTU=N (default 1400), CORE_MTU=N (default 1500), GRO=on|off
T=l3vpndef
SECS=${1:-5}
RUNS=${2:-3}
L3VPN_LIB=1
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "$0")/../tests/ns/l3vpn.sh"
# shellcheck source=bench/tcplib.sh
. "$(dirname "$0")/tcplib.sh"
CORE_MTU=${CORE_MTU:-1500}
OFFLOAD=default

tcp_bench_init $((120 + 10 * RUNS * (SECS + 5))) iperf3

eval "l3vpn_conf_base() $(declare -f l3vpn_srv6d_conf | tail -n +2)"
l3vpn_srv6d_conf() {	# the README's PE config; `offload no` for off6
	l3vpn_conf_base "$1" | grep -v -E '^(gso|offload|kernel-encap|kernel-end) '
	[ "$OFFLOAD" = no ] && echo "offload no"
	return 0
}

l3vpn_bench_setup
l3vpn_bench_kernel kernel6
l3vpn_kernel_del "$PE1" 1
l3vpn_kernel_del "$PE2" 2

say "srv6d at both PEs, default config (its own steering, header queues auto)"
STEERING=auto	# lib.sh steering_no: the default, no rule written here
nsx "$PE1" ip sr tunsrc set ::
l3vpn_srv6d_start "$PE1" 1 && l3vpn_srv6d_start "$PE2" 2 || exit 1
l3vpn_bench_ping srv6d
l3vpn_measure default6
l3vpn_measure default4 10.1.2.2
say "PE1: $(l3vpn_pe_counters 1)"
say "PE2: $(l3vpn_pe_counters 2)"
l3vpn_srv6d_stop

say "srv6d at both PEs, offload no"
OFFLOAD=no
nsx "$PE1" ip sr tunsrc set ::
l3vpn_srv6d_start "$PE1" 1 && l3vpn_srv6d_start "$PE2" 2 || exit 1
l3vpn_measure off6
l3vpn_srv6d_stop

row() {	# LABEL FILE
	rate_row 52 "$1" "$2" "$(cat "$TMPD/$2.ctr")"
}
ratio() {	# A B: median(A) / median(B)
	local a b
	a=$(median <"$TMPD/$1")
	b=$(median <"$TMPD/$2")
	[ "$b" -gt 0 ] && echo "  $1 / $2 = $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
}
echo
echo "L3VPN TCP, srv6d at both PEs (iperf3 a1 -> a2, host MTU $HOST_MTU, core MTU $CORE_MTU, GRO ${GRO:-default}, ${SECS}s, median of $RUNS):"
row "kernel seg6/seg6local End.DT6" kernel6
row "srv6d, default config, IPv6 tenant (End.DT6)" default6
row "srv6d, default config, IPv4 tenant (End.DT4)" default4
row "srv6d, offload no, IPv6 tenant" off6
ratio default6 kernel6
ratio default4 default6
ratio off6 kernel6
exit 0
