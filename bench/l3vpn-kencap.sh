#!/bin/bash
# shellcheck disable=SC2317 # l3vpn.sh returns early when sourced as a library
# l3vpn-kencap.sh - TCP through the L3VPN of tests/ns/l3vpn.sh when the
# kernel encapsulates srv6d's TCP super-packets (issue 10, `kernel-encap
# auto`, src/route/kencap_routes.h): PE1's srv6d with `gso yes` hands each
# H.Encaps super-packet back as its inner TCP super-packet, behind a
# virtio_net_hdr, into srv6d0t with the mark of the rules and seg6 routes
# srv6d installed itself, and sets the kernel's tunsrc to its
# encap-source.  In one run, tenant A's IPv6
# (a1 -> a2):
#   kernel6     the kernel's seg6/seg6local at both PEs
#   srv6d6      srv6d at both PEs (gso no): the project's way today
#   kencap_k6   srv6d kencap at PE1, the kernel's End.DT6 at PE2
#   kencap6     srv6d kencap at PE1, srv6d `gso yes` at PE2 (End.DT6
#               through the vnet socket)
# and tenant A's IPv4 (the kernel's End.DT4 needs a VRF: no kernel row):
#   srv6d4      srv6d at both PEs (gso no)
#   kencap4     srv6d kencap at PE1 (segs fc00:2::a4), srv6d `gso yes` at PE2
# and for each: the receiver's TcpInCsumErrors and the sender's
# TcpRetransSegs (nstat).  CAPTURE=DIR: a short transfer of each srv6d
# mode and of the kernel with PE1's c0 segmenting in software and
# summing in software (tso/gso/tx off), captured at PE1's c0 into DIR.
#
# Usage (root): bench/l3vpn-kencap.sh [SECONDS] [RUNS]
#   HOST_MTU=N (default 1400), CORE_MTU=N (default 1500), GRO=on|off
T=l3vpnkencap
SECS=${1:-5}
RUNS=${2:-3}
L3VPN_LIB=1
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "$0")/../tests/ns/l3vpn.sh"
# shellcheck source=bench/tcplib.sh
. "$(dirname "$0")/tcplib.sh"
CORE_MTU=${CORE_MTU:-1500}
PE1_GSO=no PE2_GSO=no

tcp_bench_init $((120 + 10 * RUNS * (SECS + 5))) iperf3

eval "l3vpn_conf_base() $(declare -f l3vpn_srv6d_conf | tail -n +2)"
l3vpn_srv6d_conf() {
	l3vpn_conf_base "$1"
	# offload yes is the default: the `gso no` rows say `offload no`
	if [ "$1" = 1 ]; then echo "offload $PE1_GSO"; else echo "offload $PE2_GSO"; fi
	[ "$1" = 1 ] && [ "${PE1_HQ:-no}" = yes ] && echo "header-queue 1"
	return 0
}

pe1_kencap_start() {	# srv6d sets the tunsrc (:: here) to encap-source
	PE1_GSO=yes
	nsx "$PE1" ip sr tunsrc set :: && l3vpn_srv6d_start "$PE1" 1
}

capture() {	# LABEL [DST]: a short transfer captured at PE1's c0
	local dst=${2:-fd01:2::2}
	[ -n "${CAPTURE:-}" ] || return 0
	mkdir -p "$CAPTURE"
	nsx "$PE1" ethtool -K c0 tso off gso off tx off >/dev/null
	nsx "$PE1" tcpdump -i c0 -s 0 -w "$CAPTURE/$1.pcap" -c 3000 \
		ip6 and not icmp6 >/dev/null 2>&1 &
	local pid=$!
	sleep 1
	l3vpn_iperf "$A2" "$dst" "$A1" 1 >/dev/null
	sleep 0.5
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	nsx "$PE1" ethtool -K c0 tso on gso on tx on >/dev/null
}

l3vpn_bench_setup
l3vpn_bench_kernel kernel6
capture kernel6
l3vpn_kernel_del "$PE1" 1

say "srv6d kencap at PE1, the kernel's End.DT6 at PE2"
l3vpn_steer "$PE1" 1 || { say "NFQUEUE rules failed"; exit 1; }
pe1_kencap_start || exit 1
l3vpn_bench_ping kencap+kernel
l3vpn_measure kencap_k6
say "PE1: $(l3vpn_pe_counters 1)"
capture kencap_k6
l3vpn_srv6d_stop
l3vpn_kernel_del "$PE2" 2

# The same with a header queue at PE1 (`header-queue 1`, copy 2112 bytes):
# tenant A's packets are queued there first, so srv6d reads each
# super-packet's first bytes only and accepts it with its encapsulation's
# mark; what needs its bytes is bounced to queue 0.
say "srv6d kencap at PE1 with a header queue, the kernel's End.DT6 at PE2"
l3vpn_kernel "$PE2" 2 || { say "kernel routes failed"; exit 1; }
nsx "$PE1" ip6tables -t raw -I PREROUTING 1 -i ta -d fd01:2::/64 \
	-m mark ! --mark 0x5d6f0000 -j NFQUEUE --queue-num 1 ||
	{ say "NFQUEUE rules failed"; exit 1; }
PE1_HQ=yes
pe1_kencap_start || exit 1
l3vpn_bench_ping kencap+kernel
l3vpn_measure kencaphq_k6
say "PE1: $(l3vpn_pe_counters 1)"
l3vpn_srv6d_stop
PE1_HQ=no
nsx "$PE1" ip6tables -t raw -D PREROUTING 1
l3vpn_kernel_del "$PE2" 2

say "srv6d at both PEs, gso no"
l3vpn_steer "$PE2" 2 || { say "NFQUEUE rules failed"; exit 1; }
nsx "$PE1" ip sr tunsrc set ::
PE1_GSO=no
l3vpn_srv6d_start "$PE1" 1 && l3vpn_srv6d_start "$PE2" 2 || exit 1
l3vpn_bench_ping srv6d
l3vpn_measure srv6d6
l3vpn_measure srv6d4 10.1.2.2
say "PE1: $(l3vpn_pe_counters 1)"
capture srv6d6
capture srv6d4 10.1.2.2
l3vpn_srv6d_stop

say "srv6d kencap at PE1, srv6d gso yes at PE2"
PE2_GSO=yes
pe1_kencap_start && l3vpn_srv6d_start "$PE2" 2 || exit 1
l3vpn_bench_ping kencap
l3vpn_measure kencap6
l3vpn_measure kencap4 10.1.2.2
say "PE1: $(l3vpn_pe_counters 1)"
capture kencap6
capture kencap4 10.1.2.2
l3vpn_srv6d_stop

# wire LABEL: a1 -> a2's encapsulated segments in LABEL's capture, counted
# by their length, outer and inner source, hop limits, traffic classes,
# SRH (Segments Left, Last Entry, flags, tag), whether the outer Payload
# Length is the inner packet's + 64 and the outer flow label the inner's,
# and tshark's TCP checksum status (1 good, 0 bad, 2 not verified);
# then the frames with TCP analysis flags (retransmission, out of order).
wire() {
	local f="$CAPTURE/$1.pcap"
	echo "  $1: count len src hlim tclass sl,le,flags,tag plen+64 fl= csum"
	# shellcheck disable=SC2086 # TSHARK_OPTS is a list of options
	tshark -r "$f" $TSHARK_OPTS \
		-Y "ipv6.dst == fc00:2::a6 && tcp.len > 0" -T fields \
		-e frame.len -e ipv6.src -e ipv6.hlim -e ipv6.tclass \
		-e ipv6.routing.segleft -e ipv6.routing.srh.last_entry \
		-e ipv6.routing.srh.flags -e ipv6.routing.srh.tag -e ipv6.plen \
		-e ipv6.flow -e tcp.checksum.status 2>/dev/null |
		awk -F'\t' '{ split($9, p, ","); split($10, l, ",")
			print $1, $2, $3, $4, $5 "," $6 "," $7 "," $8,
			p[1] == p[2] + 64, l[1] == l[2], $11 }' |
		sort | uniq -c | sort -rn | head -6 | sed 's/^/    /'
	# TCP sequence analysis on (not $TSHARK_OPTS): the flags are its.
	echo "    analysis flags (a1 -> a2): $(tshark -r "$f" \
		-Y 'ipv6.dst == fc00:2::a6 && tcp.analysis.flags && !tcp.analysis.window_update' \
		2>/dev/null | wc -l)"
}

# wire4 LABEL: the same for the IPv4 tenant (segs fc00:2::a4): length,
# outer source, hop limit, traffic class and flow label, the inner TTL,
# DSCP/ECN, DF, whether the outer Payload Length is the inner Total
# Length + 24 (the SRH), the IPv4 header checksum and the TCP checksum
# status.
wire4() {
	local f="$CAPTURE/$1.pcap"
	echo "  $1: count len src hlim tclass flow ttl dsfield df plen=len+24 ipcsum tcpcsum"
	# shellcheck disable=SC2086 # TSHARK_OPTS is a list of options
	tshark -r "$f" $TSHARK_OPTS \
		-Y "ipv6.dst == fc00:2::a4 && tcp.len > 0" -T fields \
		-e frame.len -e ipv6.src -e ipv6.hlim -e ipv6.tclass \
		-e ipv6.flow -e ip.ttl -e ip.dsfield -e ip.flags.df \
		-e ipv6.plen -e ip.len -e ip.checksum.status \
		-e tcp.checksum.status 2>/dev/null |
		awk -F'\t' '{ print $1, $2, $3, $4, $5, $6, $7, $8,
			$9 == $10 + 24, $11, $12 }' |
		sort | uniq -c | sort -rn | head -4 | sed 's/^/    /'
	echo "    analysis flags (a1 -> a2): $(tshark -r "$f" \
		-Y 'ipv6.dst == fc00:2::a4 && tcp.analysis.flags && !tcp.analysis.window_update' \
		2>/dev/null | wc -l)"
}

row() {	# LABEL FILE
	rate_row 52 "$1" "$2" "$(cat "$TMPD/$2.ctr")"
}
echo
echo "L3VPN TCP (iperf3 a1 -> a2, IPv6 tenant, host MTU $HOST_MTU, core MTU $CORE_MTU, GRO ${GRO:-default}, ${SECS}s, median of $RUNS):"
row "kernel seg6/seg6local End.DT6" kernel6
row "srv6d kencap H.Encaps / kernel End.DT6" kencap_k6
row "same, PE1 with a header queue" kencaphq_k6
row "srv6d H.Encaps/End.DT6 (gso no)" srv6d6
row "srv6d kencap H.Encaps / srv6d gso yes End.DT6" kencap6
row "srv6d H.Encaps/End.DT4 (gso no), IPv4 tenant" srv6d4
row "srv6d kencap H.Encaps / srv6d gso yes End.DT4, IPv4" kencap4
k=$(median <"$TMPD/kernel6")
for m in kencap_k6 kencaphq_k6 srv6d6 kencap6; do
	v=$(median <"$TMPD/$m")
	[ "$k" -gt 0 ] && echo "  $m / kernel6 = $(awk -v a="$v" -v b="$k" 'BEGIN { printf "%.2f", a / b }')"
done
if [ -n "${CAPTURE:-}" ] && command -v tshark >/dev/null; then
	echo "On the wire (PE1's c0, segmented and summed in software), $CAPTURE:"
	for m in kernel6 kencap_k6 srv6d6 kencap6; do wire "$m"; done
	for m in srv6d4 kencap4; do wire4 "$m"; done
fi
exit 0
