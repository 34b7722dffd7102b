#!/bin/bash
# shellcheck disable=SC2317 # l3vpn.sh returns early when sourced as a library
# l3vpn-tcp.sh - TCP throughput through the L3VPN of tests/ns/l3vpn.sh
# (two PEs, tenant hosts behind each), once with the kernel's seg6/seg6local
# at both PEs and once with srv6d at both, in the same run on the same
# topology.  The comparison uses tenant A's IPv6 hosts: the kernel's
# End.DT4 needs a VRF device (not available here); End.DT6 `table` does
# not.  srv6d's IPv4 figure (H.Encaps of IPv4 through the reinjection
# device, End.DT4 through the SID's veth pair) is printed too.
#
# Usage (root): bench/l3vpn-tcp.sh [SECONDS] [RUNS]
#   SRV6D=/path/to/srv6d SRV6CTL=/path/to/srv6ctl to use another build.
#   HOST_MTU=N     the hosts' links' MTU, at both ends (default 1400)
#   CORE_MTU=N     the PEs' link's MTU (default 1500)
#   GRO=on|off     GRO at every veth (default: the kernel's, off)
#   GSO=yes        srv6d with `gso yes` at PE1 too (issue 10), in the
#                  same run: PE1's H.Encaps hands its TCP super-packets to
#                  the kernel's seg6 whole (`kernel-encap auto`, the
#                  default: srv6d installs the rules and routes), with the
#                  kernel's End.DT6 at PE2, then the same with GRO at
#                  srv6d0, the reinjection device's receiving end
#                  (threaded NAPI: it coalesces KENCAP=no's segments
#                  again); and after the `gso no` rows, with srv6d's
#                  End.DT6 and End.DT4 at PE2, whose config says
#                  `offload no` (the old default: PE2's NFQUEUE segments
#                  what it queues; bench/l3vpn-kencap.sh runs PE2 with
#                  offload)
#   KENCAP=no      with GSO=yes: `kernel-encap no` at PE1, whose H.Encaps
#                  then cuts the super-packets into segments
#                  (REINJECT_SEGMENT)
# Prints one line per run and the median of each mode, in Mbit/s.
T=l3vpnbench
SECS=${1:-5}
RUNS=${2:-3}
L3VPN_LIB=1
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "$0")/../tests/ns/l3vpn.sh"
# shellcheck source=bench/tcplib.sh
. "$(dirname "$0")/tcplib.sh"
CORE_MTU=${CORE_MTU:-1500}
GSO=${GSO:-no}
PE1_GSO=no

tcp_bench_init $((90 + 8 * RUNS * (SECS + 5))) iperf3

# l3vpn.sh's config, with `offload yes` at PE1 when PE1_GSO=yes, else
# `offload no` (PE2 always: the `gso no` rows of before offload was the
# default).
eval "l3vpn_conf_base() $(declare -f l3vpn_srv6d_conf | tail -n +2)"
l3vpn_srv6d_conf() {
	l3vpn_conf_base "$1"
	if [ "$1" = 1 ] && [ "$PE1_GSO" = yes ]; then
		printf 'offload yes\nkernel-encap %s\n' "${KENCAP:-auto}"
	else
		echo "offload no"
	fi
}

measure() {	# LABEL DST_NS DST SRC_NS: RUNS rates in Mbit/s to $TMPD/LABEL
	# A stalled transfer (the kernel's seg6 at a core MTU of 1500: it
	# sends itself Packet Too Big) counts as 0.  Packets the receiving
	# host's veth dropped (over its MTU) are said.
	local d0 d1
	d0=$(rx_dropped "$2")
	tcp_runs "$1" zero l3vpn_iperf "$2" "$3" "$4" "$SECS" || return 1
	d1=$(rx_dropped "$2")
	[ "$d1" = "$d0" ] || say "$1: $2's e0 dropped $((d1 - d0)) packets"
}

rx_dropped() {	# NS: e0's rx_dropped in NS
	nsx "$1" cat /sys/class/net/e0/statistics/rx_dropped
}

pe1_counters() {	# PE1 srv6d's super-packets, segments, refused, kencap
	timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" -j status | "$PYTHON" -c '
import json, sys
t = json.load(sys.stdin)["totals"]
fb = {k: v for k, v in t.get("kencap_fallbacks", {}).items() if v}
print("gso_packets %d gso_segments %d gso_refused %d injected %d kencap %d "
      "fallbacks %s" % (t["gso_packets"], t["gso_segments"], t["gso_refused"],
                        t["injected"], t.get("kencap", 0), fb))'
}


l3vpn_setup || { say "topology setup failed"; exit 1; }
l3vpn_bench_links
say "host MTU $HOST_MTU, core MTU $CORE_MTU, GRO ${GRO:-default}, gso $GSO, kernel-encap ${KENCAP:-auto}"
say "kernel: seg6 encap + seg6local End.DT6 (table) at both PEs, ${SECS}s x $RUNS"
if ! l3vpn_kernel "$PE1" 1 || ! l3vpn_kernel "$PE2" 2; then
	say "kernel routes failed"
	exit 1
fi
nsx "$A1" ping -c 2 -W 2 fd01:2::2 >/dev/null || { say "kernel L3VPN does not answer"; exit 1; }
measure kernel6 "$A2" fd01:2::2 "$A1" || exit 1
l3vpn_kernel_del "$PE1" 1

if [ "$GSO" = yes ]; then
	say "srv6d gso yes at PE1 (H.Encaps, End.DT6), the kernel's End.DT6 at PE2, ${SECS}s x $RUNS"
	l3vpn_steer "$PE1" 1 || { say "NFQUEUE rules failed"; exit 1; }
	PE1_GSO=yes
	l3vpn_srv6d_start "$PE1" 1 || exit 1
	nsx "$A1" ping -c 2 -W 2 fd01:2::2 >/dev/null || { say "srv6d+kernel L3VPN does not answer"; exit 1; }
	measure srv6dgso_k6 "$A2" fd01:2::2 "$A1" || exit 1
	say "PE1: $(pe1_counters)"
	# The segments coalesced again by the kernel's GRO at the receiving
	# end of srv6d's reinjection device (threaded NAPI: GRO sees each
	# sendmmsg()'s frames together, and what follows runs off srv6d's
	# thread; TSO off at the sending end, else veth skips GRO).
	if ! { nsx "$PE1" ethtool -K srv6d0 gro on >/dev/null &&
		nsx "$PE1" ethtool -K srv6d0t tso off >/dev/null &&
		nsx "$PE1" sh -c 'echo 1 > /sys/class/net/srv6d0/threaded'; }; then
		say "GRO at srv6d0 failed"
		exit 1
	fi
	measure srv6dgso_k6_gro "$A2" fd01:2::2 "$A1" || exit 1
	say "PE1: $(pe1_counters)"
	l3vpn_srv6d_stop
	nsx "$PE1" iptables -t raw -F PREROUTING
	nsx "$PE1" ip6tables -t raw -F PREROUTING
fi
l3vpn_kernel_del "$PE2" 2

say "srv6d: H.Encaps + End.DT6/End.DT4 at both PEs (NFQUEUE, 1 queue each), ${SECS}s x $RUNS"
if ! l3vpn_steer "$PE1" 1 || ! l3vpn_steer "$PE2" 2; then
	say "NFQUEUE rules failed"
	exit 1
fi
# srv6d_both GSO LABEL: srv6d at both PEs (`gso GSO` at PE1), tenant A's
# IPv6 measured as LABEL6 and its IPv4 as LABEL4.
srv6d_both() {
	PE1_GSO=$1
	l3vpn_srv6d_start "$PE1" 1 || exit 1
	l3vpn_srv6d_start "$PE2" 2 || exit 1
	nsx "$A1" ping -c 2 -W 2 fd01:2::2 >/dev/null || { say "srv6d L3VPN does not answer"; exit 1; }
	measure "${2}6" "$A2" fd01:2::2 "$A1" || exit 1
	measure "${2}4" "$A2" 10.1.2.2 "$A1" || exit 1
	[ "$1" = no ] || say "PE1: $(pe1_counters)"
	l3vpn_srv6d_stop
}
srv6d_both no srv6d
if [ "$GSO" = yes ]; then
	say "srv6d: the same, gso yes at PE1 (gso no at PE2), ${SECS}s x $RUNS"
	srv6d_both yes srv6dgso
fi

row() {	# LABEL FILE
	rate_row 58 "$1" "$2"
}
echo
echo "L3VPN TCP throughput (iperf3, a1 -> a2, host MTU $HOST_MTU, core MTU $CORE_MTU, GRO ${GRO:-default}, ${SECS}s, median of $RUNS):"
row "kernel seg6/seg6local End.DT6, IPv6 tenant" kernel6
if [ "$GSO" = yes ]; then
	row "srv6d gso yes H.Encaps / kernel End.DT6, IPv6 tenant" srv6dgso_k6
	row "  the same, GRO (threaded NAPI) at srv6d0" srv6dgso_k6_gro
fi
row "srv6d H.Encaps/End.DT6, IPv6 tenant" srv6d6
row "srv6d H.Encaps/End.DT4, IPv4 tenant" srv6d4
if [ "$GSO" = yes ]; then
	row "srv6d gso yes H.Encaps / srv6d gso no End.DT6, IPv6 tenant" srv6dgso6
	row "srv6d gso yes H.Encaps / srv6d gso no End.DT4, IPv4 tenant" srv6dgso4
fi
