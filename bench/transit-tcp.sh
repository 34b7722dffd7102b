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
# Then (srv6d-kend) srv6d with `kernel-end auto`, the kernel's End by its
# SID's mark (src/io/kend.h); the other srv6d modes have `kernel-end no`;
# and (srv6d-kend-hq) the same with a header queue in front
# (`header-queue`): srv6d reads only the super-packets' first bytes.
# Then the same with an inline SRH still on its way after the End (gen:
# seg6 inline, segs fc00:100::1,fd00:9::2; s1's kernel takes the last
# segment): srv6d's result of a super-packet is not a payload the kernel
# would segment right (the SL 2 -> 1 DA is not the final destination), so
# it goes whole behind a virtio_net_hdr (gso_vnet); and under the 7.2
# emulation (tests/kernel72: every End result changes the chain: the vnet
# way for every super-packet).  The encapsulated End under 7.2 is not
# measured: IP in IP has no virtio_net_hdr type (userspace segmentation).
#
# For each mode: the rate (median of RUNS), the retransmissions at the
# sender (nstat TcpRetransSegs on gen) and the checksum errors at the
# receiver (TcpInCsumErrors on s1); then a proof run with the gateway's
# egress checksum offload off (ethtool -K gw1 tx off: every segment leaves
# gw with a checksum computed in software, which s1 verifies instead of
# trusting a veth's CHECKSUM_PARTIAL), captured as it leaves gw, every TCP
# segment's checksum checked by tshark.
#
# With PROFILE=S, each mode then runs one more transfer under a system-wide
# `perf record -a -g` of S seconds, and the CPU time is given per 64 KiB
# moved, by function group (bench/transit-buckets.py): the kernel's End
# and srv6d's compared per super-packet.
#
# Usage (root): bench/transit-tcp.sh [SECONDS] [RUNS] [gro on|off]
#   SRV6D=/path/to/srv6d SRV6CTL=/path/to/srv6ctl to use another build;
#   SRV6D_K72 (default: tests/kernel72/srv6d-k72 beside SRV6D's build);
#   PROFILE=S (perf record S seconds per mode); MODES="kernel srv6d-gso-yes"
#   (only these modes, default all).
T=transitbench
SECS=${1:-5}
RUNS=${2:-3}
GRO=${3:-on}
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/../tests/ns/lib.sh"
# shellcheck source=bench/tcplib.sh
. "$(dirname "$0")/tcplib.sh"

tcp_bench_init $((180 + 7 * RUNS * (SECS + 5))) iperf3 ethtool nstat tcpdump \
	tshark ${PROFILE:+perf}
BUCKETS=$(dirname "$0")/transit-buckets.py
MODES=${MODES:-}
wanted() {	# LABEL: is this mode to be run (MODES)?
	[ -z "$MODES" ] || case " $MODES " in *" $1 "*) ;; *) return 1 ;; esac
}

DST=fd00:9::1	# s1's iperf3 server

offloads() {	# gro on|off on every veth
	gro_set "$1" "$GEN:g0" "$GW:gw0" "$GW:gw1" "$S1:s1"
}

measure() {	# LABEL: RUNS rates to $TMPD/LABEL, counters to $TMPD/LABEL.c
	nstat_reset "$GEN" "$S1"
	tcp_runs "$1" stop iperf "$DST" "$SECS" || return 1
	nstat_line >"$TMPD/$1.c"
	[ -z "${PROFILE:-}" ] || profile "$1"
}

profile() {	# LABEL: one more transfer, PROFILE s of it perf-recorded
	local r pp data="$TMPD/$1.perf"
	( sleep 1; perf record -a -g -F 997 -o "$data" -- sleep "$PROFILE" \
		>/dev/null 2>&1 ) &
	pp=$!
	r=$(iperf "$DST" $((PROFILE + 2))) || { wait "$pp"; return 0; }
	wait "$pp"
	perf script -i "$data" -F comm,pid,tid,ip,sym,dso 2>/dev/null |
		"$PYTHON" "$BUCKETS" --bps "$r" --seconds "$PROFILE" \
			${SRV6D_PID:+--pid "$SRV6D_PID"} >"$TMPD/$1.prof"
	say "$1 profile: $(head -1 "$TMPD/$1.prof")"
}

PROOF_DST=fc00:9::d6
proof() {	# LABEL: a 2 s transfer captured leaving gw, its tx csum off
	local pcap="$TMPD/$1.pcap" good bad
	nsx "$GW" ethtool -K gw1 tx off >/dev/null 2>&1
	nstat_reset "$GEN" "$S1"
	# At gw1's transmit tap: after the kernel's segmentation and software
	# checksum, what s1 receives.
	nsx "$GW" timeout 20 tcpdump -i gw1 -Q out -s 0 -w "$pcap" -c 30000 \
		"ip6 and dst host $PROOF_DST" >/dev/null 2>&1 &
	local tp=$!
	sleep 1
	iperf "$DST" 2 >/dev/null
	sleep 0.5
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	nsx "$GW" ethtool -K gw1 tx on >/dev/null 2>&1
	# One pass (tests/ns/gso.sh's capture()): the segments with data and
	# a good TCP checksum, the TCP segments whose checksum is not good
	# (tcp.checksum.status: 0 bad, 1 good, 2 not verified), the largest
	# frame ("" when none).
	# shellcheck disable=SC2086 # TSHARK_OPTS is a list of options
	read -r good bad maxlen <<-EOF
	$(tshark -r "$pcap" $TSHARK_OPTS -T fields -E separator='|' -e frame.len \
		-e tcp.len -e tcp.checksum.status 2>/dev/null | awk -F'|' '
		NR == 1 || $1 + 0 > max { max = $1 + 0 }
		$2 > 0 && $3 == 1 { good++ }
		$3 != "" && $3 != 1 { bad++ }
		END { print good + 0, bad + 0, (NR ? max : "") }')
	EOF
	echo "segments_good=$good not_good=$bad maxlen=$maxlen $(nstat_line)" >"$TMPD/$1.p"
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

if wanted kernel; then
	say "kernel: seg6local End at gw, GRO $GRO, ${SECS}s x $RUNS"
	nsx "$GW" ip -6 route add fc00:100::1/128 encap seg6local action End dev gw1 ||
		{ say "seg6local End failed"; exit 1; }
	nsx "$GEN" ping -6 -c 2 -W 2 fd00:9::1 >/dev/null || { say "kernel path does not answer"; exit 1; }
	measure kernel || exit 1
	proof kernel
	nsx "$GW" ip -6 route del fc00:100::1/128
fi

nfq_steer6 fc00:100::/32 || { say "NFQUEUE rule failed"; exit 1; }
# srv6d_mode LABEL GSO [k72]: srv6d's End (gso GSO), measured and proved.
srv6d_mode() {	# LABEL GSO [k72] [KERNEL_END (no)]
	wanted "$1" || return 0
	srv6d_bench_start "$1" "${3:-}" \
		'queue 0\nsid fc00:100::1/128 action End\ngso %s\nkernel-end %s\n' \
		"$2" "${4:-no}" || return 0
	say "$1: srv6d End, gso $2, kernel-end ${4:-no}${3:+ ($3)}, GRO $GRO, ${SECS}s x $RUNS"
	srv6d_bench_ping "$DST"
	measure "$1" || exit 1
	proof "$1"
	srv6d_bench_counters "$1" gso_packets gso_refused gso_vnet csum_completed \
		forwarded injected kend
	# what srv6d's seg6local End route counted (super-packets)
	[ "${4:-no}" = no ] || echo "kernel_end=$(nsx "$GW" ip -s -6 route show table all |
		awk '/seg6local/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }')" \
		>>"$TMPD/$1.s"
	srv6d_bench_stop
}
srv6d_mode srv6d-gso-no no
srv6d_mode srv6d-gso-yes yes

# `kernel-end auto` (the default, src/io/kend.h): srv6d accepts each
# super-packet of the End unchanged with its SID's mark, and the kernel's
# seg6local End srv6d installed (a table of the mark's rule) makes the
# rewrite: no 64 KiB payload back.  kernel_end is what that route counted
# (super-packets).
srv6d_kend() {	# LABEL [k72]
	srv6d_mode "$1" yes "${2:-}" auto
}
srv6d_kend srv6d-kend

# The same with a header queue (`header-queue 1`, copy 2112 bytes): the End
# SID's packets are queued there first (nfq_steer6_hq), so srv6d reads
# only each super-packet's first bytes, enough for the kernel's End; one
# it cannot hand on that way goes back to the hook with the bounce mark
# and to queue 0 whole (bounced).
srv6d_kend_hq() {	# LABEL [k72]
	wanted "$1" || return 0
	nfq_steer6_hq fc00:100::/32 || { say "NFQUEUE rule failed"; exit 1; }
	srv6d_bench_start "$1" "${2:-}" \
		'queue 0\nheader-queue 1\nsid fc00:100::1/128 action End\ngso yes\nkernel-end auto\n' ||
		{ nsx "$GW" ip6tables -t raw -D PREROUTING 1; return 0; }
	say "$1: srv6d End, gso yes, kernel-end auto, header-queue 1${2:+ ($2)}, GRO $GRO, ${SECS}s x $RUNS"
	srv6d_bench_ping "$DST"
	measure "$1" || exit 1
	proof "$1"
	srv6d_bench_counters "$1" gso_packets hq_truncated bounced forwarded \
		injected kend
	echo "kernel_end=$(nsx "$GW" ip -s -6 route show table all |
		awk '/seg6local/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }')" \
		>>"$TMPD/$1.s"
	srv6d_bench_stop
	nsx "$GW" ip6tables -t raw -D PREROUTING 1
}
srv6d_kend_hq srv6d-kend-hq

# ---- inline SRH still on its way: the vnet way ----------------------------
_sysctls "$S1" net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.s1.seg6_enabled=1
nsx "$S1" ip -6 addr add fd00:9::2/128 dev lo
nsx "$GW" ip -6 route add fd00:9::/64 via fc00:2::2 dev gw1 ||
	{ say "route to fd00:9::/64 at gw failed"; exit 1; }
nsx "$GEN" ip -6 route replace fd00:9::/64 encap seg6 mode inline \
	segs fc00:100::1,fd00:9::2 via fc00:1::2 dev g0 ||
	{ say "seg6 inline route failed"; exit 1; }
PROOF_DST=fd00:9::2
nsx "$GW" ip6tables -t raw -F PREROUTING
if wanted kernel-inline; then
	say "kernel-inline: seg6local End at gw, inline SRH, GRO $GRO, ${SECS}s x $RUNS"
	nsx "$GW" ip -6 route add fc00:100::1/128 encap seg6local action End dev gw1 ||
		{ say "seg6local End failed"; exit 1; }
	measure kernel-inline || exit 1
	proof kernel-inline
	nsx "$GW" ip -6 route del fc00:100::1/128
fi
nfq_steer6 fc00:100::/32 || { say "NFQUEUE rule failed"; exit 1; }
srv6d_mode srv6d-inline-gso-yes yes
srv6d_mode srv6d-inline-gso-yes-k72 yes k72
srv6d_kend srv6d-inline-kend
srv6d_kend srv6d-inline-kend-k72 k72

echo
echo "Transit End TCP (iperf3 gen -> s1, kernel seg6 headend and End.DT6 (inline: s1's SRH processing), GRO $GRO, ${SECS}s, median of $RUNS):"
for m in kernel srv6d-gso-no srv6d-gso-yes srv6d-kend srv6d-kend-hq kernel-inline srv6d-inline-gso-yes srv6d-inline-gso-yes-k72 srv6d-inline-kend srv6d-inline-kend-k72; do
	[ -s "$TMPD/$m" ] || continue
	rate_row 16 "$m" "$m" "$(cat "$TMPD/$m.c")"
	printf '  %-16s proof: %s %s\n' "" "$(cat "$TMPD/$m.p")" "$(cat "$TMPD/$m.s" 2>/dev/null)"
done
for m in kernel srv6d-gso-no srv6d-gso-yes srv6d-kend srv6d-kend-hq kernel-inline srv6d-inline-gso-yes srv6d-inline-gso-yes-k72 srv6d-inline-kend srv6d-inline-kend-k72; do
	[ -s "$TMPD/$m.prof" ] || continue
	echo
	echo "$m, CPU per 64 KiB moved (perf record -a, ${PROFILE}s):"
	cat "$TMPD/$m.prof"
done
