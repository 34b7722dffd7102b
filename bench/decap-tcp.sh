#!/bin/bash
# decap-tcp.sh - TCP through an SRv6 decapsulation, with GRO on (or off):
# the kernel's seg6 headend at gen, the End.DT6 (IPv6 inner) or End.DT4
# (IPv4 inner) at gw by the kernel's seg6local or by srv6d (`gso no`,
# `gso yes`, and `gso yes` under the 7.2 emulation), in the same run on
# the same topology (tests/ns/lib.sh): the decap half of the L3VPN.
#
#   gen (iperf3 client, seg6 encap: segs fc00:100::6 / fc00:100::7)
#    -> gw (End.DT6 / End.DT4, table 200: kernel or srv6d)
#    -> s2 (iperf3 server on fd00:a::1 and 10.10.0.1)
#
# With `gso yes` the inner TCP super-packet of each decapsulation goes
# whole into the SID's veth pair behind a virtio_net_hdr (gso_vnet); with
# `gso no` NFQUEUE segments every super-packet before srv6d sees it.  For
# each mode: the rate (median of RUNS), gen's TcpRetransSegs, s2's
# TcpInCsumErrors, and srv6d's counters.
#
# Usage (root): bench/decap-tcp.sh [SECONDS] [RUNS] [gro on|off]
#   SRV6D=/path/to/srv6d SRV6CTL=/path/to/srv6ctl to use another build;
#   SRV6D_K72 (default: tests/kernel72/srv6d-k72 beside SRV6D's build).
T=decapbench
SECS=${1:-5}
RUNS=${2:-3}
GRO=${3:-on}
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/../tests/ns/lib.sh"
# shellcheck source=bench/tcplib.sh
. "$(dirname "$0")/tcplib.sh"

tcp_bench_init $((180 + 8 * RUNS * (SECS + 5))) iperf3 ethtool nstat

measure() {	# LABEL DST: RUNS rates to $TMPD/LABEL, counters to LABEL.c
	nstat_reset "$GEN" "$S2"
	tcp_runs "$1" stop iperf "$2" "$SECS" || return 1
	nstat_line >"$TMPD/$1.c"
}

ns_setup || { say "topology setup failed"; exit 1; }
nsx "$S2" ip -6 addr add fd00:a::1/128 dev lo
nsx "$S2" ip addr add 10.10.0.1/32 dev lo
nsx "$GW" ip -6 route add fd00:a::/64 via fc00:3::2 dev gw2 table 200 &&
	nsx "$GW" ip route add 10.10.0.0/16 via 203.0.113.2 dev gw2 table 200 ||
	{ say "routes in table 200 failed"; exit 1; }
nsx "$GEN" ip sr tunsrc set fc00:1::1
nsx "$GEN" ip -6 route add fd00:a::/64 encap seg6 mode encap segs fc00:100::6 \
	via fc00:1::2 dev g0 && nsx "$GEN" ip route add 10.10.0.0/16 \
	encap seg6 mode encap segs fc00:100::7 dev g0 ||
	{ say "seg6 encap routes failed"; exit 1; }
gro_set "$GRO" "$GEN:g0" "$GW:gw0" "$GW:gw1" "$GW:gw2" "$S1:s1" "$S2:s2"
nsx "$S2" iperf3 -s -D >/dev/null 2>&1
sleep 0.5

say "kernel: seg6local End.DT6 / End.DT4 at gw, GRO $GRO, ${SECS}s x $RUNS"
nsx "$GW" ip -6 route add fc00:100::6/128 encap seg6local action End.DT6 \
	table 200 dev gw2 &&
	nsx "$GW" ip -6 route add fc00:100::7/128 encap seg6local action End.DT4 \
	vrftable 200 dev gw2 2>/dev/null ||
	say "kernel End.DT4 needs a VRF (vrftable): measured for End.DT6 only"
nsx "$GEN" ping -6 -c 2 -W 2 fd00:a::1 >/dev/null || { say "kernel path does not answer"; exit 1; }
measure kernel-dt6 fd00:a::1 || exit 1
if nsx "$GEN" ping -c 2 -W 2 10.10.0.1 >/dev/null 2>&1; then
	measure kernel-dt4 10.10.0.1
fi
nsx "$GW" ip -6 route del fc00:100::6/128
nsx "$GW" ip -6 route del fc00:100::7/128 2>/dev/null

nfq_steer6 fc00:100::/32 || { say "NFQUEUE rule failed"; exit 1; }
# srv6d_mode LABEL GSO [k72]: srv6d's End.DT6 and End.DT4, measured.
srv6d_mode() {
	srv6d_bench_start "$1" "${3:-}" \
		'queue 0\nsid fc00:100::6/128 action End.DT6 table 200\nsid fc00:100::7/128 action End.DT4 table 200\ngso %s\n' \
		"$2" || return 0
	say "$1: srv6d, gso $2${3:+ ($3)}, GRO $GRO, ${SECS}s x $RUNS"
	srv6d_bench_ping fd00:a::1
	measure "$1-dt6" fd00:a::1 || exit 1
	measure "$1-dt4" 10.10.0.1 || exit 1
	srv6d_bench_counters "$1" gso_packets gso_refused gso_vnet csum_completed injected dropped
	srv6d_bench_stop
}
srv6d_mode srv6d-gso-no no
srv6d_mode srv6d-gso-yes yes
srv6d_mode srv6d-gso-yes-k72 yes k72

echo
echo "Decapsulation TCP (iperf3 gen -> s2, kernel seg6 headend, End.DT6 / End.DT4 at gw, GRO $GRO, ${SECS}s, median of $RUNS):"
for m in kernel-dt6 kernel-dt4 srv6d-gso-no-dt6 srv6d-gso-no-dt4 srv6d-gso-yes-dt6 \
	srv6d-gso-yes-dt4 srv6d-gso-yes-k72-dt6 srv6d-gso-yes-k72-dt4; do
	[ -s "$TMPD/$m" ] || continue
	rate_row 22 "$m" "$m" "$(cat "$TMPD/$m.c")"
done
for m in srv6d-gso-no srv6d-gso-yes srv6d-gso-yes-k72; do
	[ -s "$TMPD/$m.s" ] && printf '  %-22s %s\n' "$m" "$(cat "$TMPD/$m.s")"
done
