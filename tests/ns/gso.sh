#!/bin/bash
# gso.sh - TCP super-packets through srv6d's End with `offload yes` (the
# default since issue 18; no directive in the config) on the real
# kernel (issue 10), GRO on at every veth:
#
#   gen (iperf3 client, kernel seg6 headend) -> gw (srv6d End fc00:100::1)
#     -> s1 (kernel seg6local End.DT6 fc00:9::d6; iperf3 server on
#            fd00:9::1)
#
# gw1's checksum offload is off, so every segment leaves gw with a
# checksum the kernel computed in software and s1 verifies it (a veth
# otherwise hands CHECKSUM_PARTIAL packets over unverified).  Each case
# captures what leaves gw and checks every TCP segment's checksum with
# tshark (RFC 8200 8.1: the final destination's pseudo header), and s1's
# TcpInCsumErrors (which alone would not do: with GRO on, s1 validates an
# SRH packet against its DA before its own SRH processing, the same wrong
# sum the sender made, and the segments pass; measured without the gate
# below: 19988 of 19993 segments with a wrong checksum, TcpInCsumErrors 0):
#  - encapsulated (H.Encaps at gen), through End, End.X and End.T: the
#    result is given back whole
#    as the verdict and the kernel segments it right (the inner header
#    is the one summed): super-packets forwarded, none refused;
#  - inline SRH whose DA becomes the final destination (SL 1 -> 0): kept;
#  - inline SRH still on its way (SL 2 -> 1, to fd00:9::2, an address of
#    s1 whose kernel processes the SRH): as a payload the kernel would sum
#    the new DA, not the final destination: it goes whole by the vnet
#    socket instead (virtio_net_hdr, NEEDS_CSUM seeded over the final
#    destination: gso_vnet), every segment's checksum right;
#  - decapsulation (End.DT6, End.DT4 at srv6d, the kernel's seg6 encap at
#    gen, the iperf3 server on s2 behind gw2 in table 100): the inner TCP
#    super-packet goes whole by the vnet socket into the reinjection
#    device with the SID's mark (gso_vnet), captured leaving gw2 (tx checksum off), s2's
#    TcpInCsumErrors 0, gen's TcpRetransSegs small; with GRO on and off;
#  - H.Insert (srv6d's policy, an SRH inserted into gen's plain TCPv6):
#    the vnet way too (TCPV6 with a routing header);
#  - `offload no`: no super-packet reaches srv6d (the single-packet way,
#    which was the default before issue 18).
# With `kernel-end no`: the End's results go back from srv6d (the kernel's
# End for them is tests/ns/kend.sh's).
# SRV6D_KERNEL=7.2 (Linux 7.2's payload rule): an End's result changes
# the chain (SL), so the inline cases go the vnet way there too; the
# encapsulated End cases are skipped (IP in IP: no virtio_net_hdr type,
# their userspace segmentation is another part of issue 10).
T=gso
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 1000	# 77-92 s alone; once 520 s in a distcheck (cause not found): every step has its own timeout
need_srv6d
K72=false
[ "${SRV6D_KERNEL:-}" = 7.2 ] && K72=true
for c in iperf3 ethtool nstat tcpdump tshark; do
	command -v "$c" >/dev/null || skip_test "$c not found"
done

# iperf3 gen -> DST (default fd00:9::1) for 2 s: bytes received (0 on
# failure).
transfer() {
	local dst=${1:-fd00:9::1} fam=-6
	case $dst in *.*) fam=-4 ;; esac
	nsx "$GEN" timeout 15 iperf3 "$fam" -c "$dst" -t 2 -J 2>/dev/null |
		"$PYTHON" -c 'import json,sys
try: print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))
except Exception: print(0)'
}

# A segment with a wrong TCP or IPv4 header checksum, or that tshark finds
# malformed (a length that does not add up).
BADF='(tcp && tcp.checksum.status != 1) || (ip && ip.checksum.status != 1) || _ws.malformed'

qdrops() {	# the kernel's drops at queue 0: "queue_dropped user_dropped"
	nsx "$GW" awk '$1 == 0 { print $6 "/" $7 }' /proc/net/netfilter/nfnetlink_queue 2>/dev/null
}

gwdrops() {	# rx dropped of gw's and s2's devices, the backlogs' (cumulative)
	nsx "$GW" cat /proc/net/dev | awk 'NR > 2 && $5 > 0 { printf "%s%s ", $1, $5 }'
	nsx "$S2" cat /proc/net/dev | awk 'NR > 2 && $5 > 0 { printf "s2:%s%s ", $1, $5 }'
	# the CPUs' backlog drops (global: netdev_max_backlog)
	local d=0 _a b _r
	while read -r _a b _r; do d=$((d + 16#$b)); done </proc/net/softnet_stat
	printf 'backlog %d' "$d"
}

nstat_abs() {	# NS COUNTER (nstat's history is per user: absolute values)
	nsx "$1" nstat -az "$2" 2>/dev/null |
		awk -v c="$2" '$1 == c { print $2 + 0 }'
}

# capture LABEL [GWDEV RECVNS DST]: run a transfer to DST (fd00:9::1)
# captured leaving gw by GWDEV (gw1), received in RECVNS ($S1); sets
# BYTES, GOOD, BAD, MAXLEN, CSUMERR (the receiver's TcpInCsumErrors),
# RETRANS (gen's TcpRetransSegs), OUTSEGS (gen's TcpOutSegs).
capture() {
	local pcap="$TMPD/$1.pcap" tp dev=${2:-gw1} rns=${3:-$S1} dst=${4:-}
	local csum0 retr0 out0 qd0 qd1
	qd0=$(qdrops)
	csum0=$(nstat_abs "$rns" TcpInCsumErrors)
	retr0=$(nstat_abs "$GEN" TcpRetransSegs)
	out0=$(nstat_abs "$GEN" TcpOutSegs)
	nsx "$GW" timeout 20 tcpdump -i "$dev" -Q out -s 0 -w "$pcap" -c 20000 \
		"ip or ip6" >/dev/null 2>&1 &
	tp=$!
	sleep 1
	BYTES=$(transfer "$dst")
	sleep 0.5
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	# One pass: segments with data and a good TCP checksum; segments with
	# a bad TCP or IPv4 header checksum or that tshark finds malformed;
	# the largest frame.
	# shellcheck disable=SC2086 # TSHARK_OPTS is a list of options
	read -r GOOD BAD MAXLEN <<EOF
$(tshark -r "$pcap" $TSHARK_OPTS -T fields -E separator='|' -e frame.len \
	-e tcp.len -e tcp.checksum.status -e ip.checksum.status \
	-e frame.protocols 2>/dev/null | awk -F'|' '
	$1 + 0 > max { max = $1 + 0 }
	$2 > 0 && $3 == 1 { good++ }
	($3 != "" && $3 != 1) || ($4 != "" && $4 != 1) || $5 ~ /_ws\.malformed/ { bad++ }
	END { print good + 0, bad + 0, max + 0 }')
EOF
	CSUMERR=$(( $(nstat_abs "$rns" TcpInCsumErrors) - csum0 ))
	RETRANS=$(( $(nstat_abs "$GEN" TcpRetransSegs) - retr0 ))
	OUTSEGS=$(( $(nstat_abs "$GEN" TcpOutSegs) - out0 ))
	qd1=$(qdrops)
	say "$1: ${BYTES} bytes, segments good $GOOD, not good $BAD, largest frame $MAXLEN, receiver TcpInCsumErrors $CSUMERR, gen TcpRetransSegs $RETRANS of TcpOutSegs $OUTSEGS; queue drops (full, send failed) before $qd0, after $qd1; gw's rx drops $(gwdrops)"
	# shellcheck disable=SC2086
	[ "$BAD" = 0 ] || tshark -r "$pcap" $TSHARK_OPTS -Y "$BADF" -T fields \
		-e tcp.checksum.status -e ip.checksum.status -e frame.len \
		-e tcp.len -e _ws.expert.message 2>/dev/null |
		sort | uniq -c | sort -rn | head -5
	[ -z "${GSO_KEEP:-}" ] || cp "$pcap" "$GSO_KEEP/"
}

gen_route() {	# MODE SEGS: the headend's route to fd00:9::/64
	nsx "$GEN" ip -6 route replace fd00:9::/64 encap seg6 mode "$1" \
		segs "$2" via fc00:1::2 dev g0
}

ns_setup || { fail "topology setup"; ns_finish; }
_sysctls "$S1" net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.s1.seg6_enabled=1 ||
	fail "seg6_enabled at s1"
nsx "$S1" ip -6 addr add fd00:9::1/128 dev lo
# End.DT6 looks fd00:9::1 up in the local table: delivered at s1.
nsx "$S1" ip -6 route add fc00:9::d6/128 encap seg6local action End.DT6 table 255 dev s1 ||
	fail "End.DT6 at s1"
# fd00:9::2, an address of s1: the kernel's own SRH processing there
# (seg6_enabled) takes the last segment, fd00:9::1.
nsx "$S1" ip -6 addr add fd00:9::2/128 dev lo
nsx "$GEN" ip sr tunsrc set fc00:1::1
nsx "$GW" ip -6 route add fd00:9::/64 via fc00:2::2 dev gw1 || fail "route at gw"
# End.T's table 100 (sink2 for fc00:9::/32) takes fc00:9::d6 to s1.
nsx "$GW" ip -6 route add fc00:9::d6/128 via fc00:2::2 dev gw1 table 100 ||
	fail "route in table 100"
# Decapsulation: srv6d's End.DT6 / End.DT4 look the inner destination up
# in table 200, which sends it to s2 (iperf3 server on fd00:a::1 and
# 10.10.0.1).
nsx "$S2" ip -6 addr add fd00:a::1/128 dev lo
nsx "$S2" ip addr add 10.10.0.1/32 dev lo
nsx "$GW" ip -6 route add fd00:a::/64 via fc00:3::2 dev gw2 table 200 &&
	nsx "$GW" ip route add 10.10.0.0/16 via 203.0.113.2 dev gw2 table 200 ||
	fail "routes in table 200"
nsx "$GEN" ip -6 route add fd00:a::/64 encap seg6 mode encap segs fc00:100::6 \
	via fc00:1::2 dev g0 && nsx "$GEN" ip route add 10.10.0.0/16 \
	encap seg6 mode encap segs fc00:100::7 dev g0 ||
	fail "seg6 encap routes at gen"
offloads() {	# gro on|off at every veth
	local ns_if
	for ns_if in "$GEN:g0" "$GW:gw0" "$GW:gw1" "$GW:gw2" "$S1:s1" "$S2:s2"; do
		nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro "$1" >/dev/null 2>&1 ||
			skip_test "ethtool -K ${ns_if#*:} gro $1 failed"
	done
}
offloads on
for d in gw1 gw2; do
	nsx "$GW" ethtool -K $d tx off >/dev/null 2>&1 ||
		skip_test "ethtool -K $d tx off failed"
done
nsx "$S1" iperf3 -s -D -B fd00:9::1 >/dev/null 2>&1
nsx "$S2" iperf3 -s -D >/dev/null 2>&1
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
cat >"$TMPD/srv6d.conf" <<CONF
queue 0
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 fc00:2::2
sid fc00:100::4/128 action End.T table 100
sid fc00:100::6/128 action End.DT6 table 200
sid fc00:100::7/128 action End.DT4 table 200
route fd00:9::/64 encap seg6 mode inline segs fd00:9::2
kernel-end no
CONF
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

totals() {	# the srv6d counters gso_packets gso_refused gso_vnet: "N M V"
	ctl_get "'%d %d %d' % (s['totals']['gso_packets'], s['totals']['gso_refused'], s['totals']['gso_vnet'])"
}

# A capture's segments: valid, within the MTU, no checksum error at the
# receiver, few retransmissions at the sender.
expect_clean() {	# LABEL
	if [ "$BYTES" -gt 1000000 ]; then
		pass "$1: the transfer got through ($BYTES bytes)"
	else
		fail "$1: transfer: $BYTES bytes"
	fi
	if [ "$GOOD" -gt 100 ] && [ "$BAD" = 0 ]; then
		pass "$1: every segment leaving gw has valid checksums and lengths ($GOOD)"
	else
		fail "$1: $GOOD good, $BAD not good segments"
	fi
	if [ "${MAXLEN:-0}" -le 1514 ]; then
		pass "$1: no frame over the link's MTU ($MAXLEN)"
	else
		fail "$1: a frame of $MAXLEN bytes"
	fi
	expect_eq "$1: the receiver counted no TCP checksum error" "$CSUMERR" 0
	# A retransmission is a segment lost or wrong: some are the queues
	# overflowing at full speed (the kernel's own End path in one run:
	# 0.1-0.5% of the segments), not a segment in a hundred.
	if [ $((RETRANS * 100)) -le "$OUTSEGS" ]; then
		pass "$1: gen retransmitted $RETRANS of $OUTSEGS segments (<= 1%)"
	else
		fail "$1: gen retransmitted $RETRANS of $OUTSEGS segments (> 1%)"
	fi
}

# ---- encapsulated: kept whole, segmented right by the kernel ---------------
# encap_case LABEL SID: H.Encaps at gen through SID at gw, then End.DT6.
encap_case() {
	local g0 r0 v0 g1 r1 v1
	gen_route encap "$2,fc00:9::d6" || fail "$1: seg6 encap route"
	read -r g0 r0 v0 <<<"$(totals)"
	capture "$1"
	read -r g1 r1 v1 <<<"$(totals)"
	expect_clean "$1"
	if [ $((g1 - g0)) -gt 0 ]; then
		pass "$1: super-packets reached srv6d ($((g1 - g0)))"
	else
		fail "$1: no super-packet reached srv6d"
	fi
	expect_eq "$1: none refused" $((r1 - r0)) 0
}
if $K72; then
	say "SRV6D_KERNEL=7.2: encapsulated End cases skipped (IP in IP: userspace segmentation)"
else
	encap_case "encap End" fc00:100::1
	encap_case "encap End.X" fc00:100::3
	encap_case "encap End.T" fc00:100::4
fi

# ---- inline SRH, SL 1 -> 0: the DA becomes the final one -------------------
# A payload on 6.18 (the kernel segments it right); on 7.2 the SL change
# forbids the payload: the vnet way.
gen_route inline fc00:100::1 || fail "seg6 inline route"
read -r g0 r0 v0 <<<"$(totals)"
capture inline-last
read -r g1 r1 v1 <<<"$(totals)"
expect_clean "inline, SL 1 -> 0"
if [ $((g1 - g0)) -gt 0 ] && [ $((r1 - r0)) = 0 ]; then
	pass "inline, SL 1 -> 0: super-packets kept whole ($((g1 - g0)), $((v1 - v0)) by the vnet socket)"
else
	fail "inline, SL 1 -> 0: $((g1 - g0)) super-packets, $((r1 - r0)) refused"
fi
if $K72; then
	if [ $((v1 - v0)) -gt 0 ]; then
		pass "inline, SL 1 -> 0 (7.2): super-packets went by the vnet socket ($((v1 - v0)))"
	else
		fail "inline, SL 1 -> 0 (7.2): none went by the vnet socket"
	fi
fi

# ---- inline SRH, SL 2 -> 1: the vnet way, checksums over the final DA ------
gen_route inline fc00:100::1,fd00:9::2 || fail "seg6 inline route"
read -r g0 r0 v0 <<<"$(totals)"
capture inline-transit
read -r g1 r1 v1 <<<"$(totals)"
expect_clean "inline, SL 2 -> 1"
expect_eq "inline, SL 2 -> 1: none refused" $((r1 - r0)) 0
if [ $((v1 - v0)) -gt 0 ]; then
	pass "inline, SL 2 -> 1: super-packets went whole by the vnet socket ($((v1 - v0)) of $((g1 - g0)))"
else
	fail "inline, SL 2 -> 1: none by the vnet socket ($((g1 - g0)) super-packets)"
fi

# ---- decapsulation: End.DT6, End.DT4, the inner TCP by the vnet socket -----
decap_case() {	# LABEL DST
	local g0 r0 v0 g1 r1 v1
	read -r g0 r0 v0 <<<"$(totals)"
	capture "$1" gw2 "$S2" "$2"
	read -r g1 r1 v1 <<<"$(totals)"
	expect_clean "$1"
	expect_eq "$1: none refused" $((r1 - r0)) 0
	if [ $((v1 - v0)) -gt 0 ]; then
		pass "$1: super-packets went whole by the vnet socket ($((v1 - v0)) of $((g1 - g0)))"
	else
		fail "$1: none by the vnet socket ($((g1 - g0)) super-packets)"
	fi
}
for gro in on off; do
	offloads "$gro"
	decap_case "End.DT6, GRO $gro" fd00:a::1
	decap_case "End.DT4, GRO $gro" 10.10.0.1
done
offloads on

# ---- H.Insert: an SRH inserted into a TCPv6 super-packet -------------------
# gen sends plain TCP to fd00:9::1; srv6d's policy inserts an SRH (SL 1,
# to fd00:9::2: s1's kernel takes the last segment).  A new length: not a
# payload; TCPv6 with a routing header: the vnet way (ipv6_gso_segment()
# walks the SRH), each segment's checksum over the final destination.
nsx "$GEN" ip -6 route replace fd00:9::/64 via fc00:1::2 dev g0
nfq_steer6 fd00:9::/64 || fail "NFQUEUE rule for H.Insert"
read -r g0 r0 v0 <<<"$(totals)"
capture h-insert
read -r g1 r1 v1 <<<"$(totals)"
expect_clean "H.Insert"
expect_eq "H.Insert: none refused" $((r1 - r0)) 0
if [ $((v1 - v0)) -gt 0 ]; then
	pass "H.Insert: super-packets went whole by the vnet socket ($((v1 - v0)) of $((g1 - g0)))"
else
	fail "H.Insert: none by the vnet socket ($((g1 - g0)) super-packets)"
fi
nsx "$GW" ip6tables -t raw -D PREROUTING ! -i srv6d+ -d fd00:9::/64 -j NFQUEUE --queue-num 0 2>/dev/null
ctl_get "'drops: %s' % {k: v for k, v in s['totals']['drops'].items() if v}" 2>/dev/null |
	sed "s/^/$T: /"
srv6d_stop || fail "srv6d exit"

# ---- offload no: no super-packet, the single-packet way -------------------
gen_route encap fc00:100::1,fc00:9::d6
printf 'queue 0\noffload no\nsid fc00:100::1/128 action End\n' >"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start (offload no)"; ns_finish; }
capture offload-no
read -r g1 r1 v1 <<<"$(totals)"
if [ "$BYTES" -gt 1000000 ] && [ "$BAD" = 0 ]; then
	pass "offload no: through, every checksum valid ($GOOD segments)"
else
	fail "offload no: $BYTES bytes, $BAD not good"
fi
expect_eq "offload no: no super-packet reached srv6d" "$g1" 0
srv6d_stop || fail "srv6d exit"
ns_finish
