#!/bin/bash
# hqueue.sh - `header-queue 1` with the defaults (offload yes, so kernel-end
# auto): the SIDs' packets are queued to header queue 1 first (copy range
# 2112 bytes), GRO on at every veth:
#
#   gen (iperf3 client, kernel seg6 encap: segs SID,fc00:9::d6)
#     -> gw (srv6d: End fc00:100::1, End.X fc00:100::4 via s1)
#     -> s1 (kernel seg6local End.DT6 fc00:9::d6; iperf3 server fd00:9::1)
#
# gw's steering, in front of queue 0's rule (tests/ns/lib.sh
# nfq_steer6_hq):
#   -d fc00:100::/32 -m mark ! --mark 0x80000000/0x80000000 -j NFQUEUE --queue-num 1
#   -d fc00:100::/32 -j NFQUEUE --queue-num 0
#
# Checks: status shows the header queue; through the End, srv6d reads
# only the super-packets' first bytes (hq_truncated) and hands them to the
# kernel's End with their SID's mark (kend, as many as the seg6local route
# counted), none bounced; through the End.X (no kernel End for it), every
# super-packet cut short is bounced (NF_REPEAT with the mark) and comes
# back whole on queue 0, where srv6d rewrites it (forwarded); small
# packets (ping) through the End are whole on the header queue and
# processed there, through the End.X bounced whole (one way for all of a
# flow's packets: their order kept); every
# segment leaving gw has valid checksums (gw1's tx checksum off), no
# TcpInCsumErrors at s1; rx_packets = accepted + forwarded + injected +
# dropped + bounced; with a rule that sends bounced packets back to the
# header queue, each such packet is dropped once (bounce_loop), srv6d
# stays healthy; a reload cannot change header-queue, nor mark-base;
# after srv6d stops, neither queue is bound.
T=hqueue
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 300
need_srv6d
# (runs under SRV6D_KERNEL=7.2 too: the kernel ways are no payload)
need_tools iperf3 ethtool nstat tcpdump tshark
BOUNCE=0x80000000	# mark-mask's highest bit (default mask): the bounce bit
M1=$((0x5d6f0000 + 0xffff))	# fc00:100::1's kend mark (the first from the top)

totals() {	# FIELD...: srv6d's totals, blank-separated
	local f expr=''
	for f in "$@"; do
		expr="$expr${expr:+, }str(s['totals']['$f'])"
	done
	ctl_get "' '.join([$expr])"
}

bound_queues() {	# the queues gw has a program bound to (nfnetlink_queue)
	nsx "$GW" cat /proc/net/netfilter/nfnetlink_queue 2>/dev/null |
		awk '{ print $1 }' | sort -n | tr '\n' ' '
}

# transfer SID LABEL: a 2 s iperf3 through SID, captured leaving gw; sets
# BYTES, GOOD and BAD (segments with a good / not good checksum).
transfer() {
	local pcap="$TMPD/$2.pcap"
	tcp_end_via "$1" || fail "seg6 encap route via $1"
	BYTES=$(tcp_transfer "$pcap" gw1 ip6 -6 fd00:9::1)
	# shellcheck disable=SC2086 # TSHARK_OPTS is a list of options
	read -r GOOD BAD <<-EOF
	$(tshark -r "$pcap" $TSHARK_OPTS -o tcp.check_checksum:TRUE -T fields \
		-E separator='|' -e tcp.len -e tcp.checksum.status -e ipv6.dst \
		2>/dev/null | awk -F'|' '
		$1 > 0 && $2 == 1 && $3 ~ /fc00:9::d6/ { good++ }
		$1 != "" && $2 != 1 { bad++ }
		END { print good + 0, bad + 0 }')
	EOF
	say "$2: $BYTES bytes, $GOOD good and $BAD not good segments leaving gw"
}

ns_setup || { fail "topology setup"; ns_finish; }
tcp_end_setup
nfq_steer6_hq fc00:100::/32 || fail "header queue rule"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
header-queue 1
sid fc00:100::1/128 action End
sid fc00:100::4/128 action End.X nh6 fc00:2::2
EOF
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
expect_eq "both queues bound" "$(bound_queues)" "0 1 "
expect_eq "status: the header queue" \
	"$(ctl_get "'%d-%d %d %d' % (s['header_queue']['first'], s['header_queue']['last'], s['header_queue']['copy'], s['header_queue']['bounce_mark'])")" \
	"1-1 2112 $((BOUNCE))"
if timeout 5 "$SRV6CTL" -s "$SOCK" status | grep -q "^header queue 1 (copy 2112 bytes): [0-9]* cut short, [0-9]* bounced with mark 0x80000000"; then
	pass "srv6ctl status shows the header queue"
else
	fail "srv6ctl status: $(timeout 5 "$SRV6CTL" -s "$SOCK" status | grep -i header)"
fi

# ---- small packets: whole on the header queue, or bounced whole -----------
# ping_via SID: 3 pings through SID; prints "back cut-short bounced", back
# the results given back processed: forwarded (a verdict), or injected
# (by srv6d's device: Linux 7.2's rule, SRV6D_KERNEL=7.2)
ping_via() {
	local f0 i0 t0 b0 f1 i1 t1 b1
	tcp_end_via "$1"
	read -r f0 i0 t0 b0 <<<"$(totals forwarded injected hq_truncated bounced)"
	nsx "$GEN" ping -6 -c 3 -i 0.2 -W 2 fd00:9::1 >/dev/null ||
		fail "ping through $1"
	read -r f1 i1 t1 b1 <<<"$(totals forwarded injected hq_truncated bounced)"
	echo "$((f1 + i1 - f0 - i0)) $((t1 - t0)) $((b1 - b0))"
}
expect_eq "pings through the End: processed whole on the header queue (back, cut short, bounced)" \
	"$(ping_via fc00:100::1)" "3 0 0"
# End.X: no kernel End; bounced whole too, so a flow's packets keep
# their order (all by queue 0)
expect_eq "pings through the End.X: bounced whole, back from queue 0 (back, cut short, bounced)" \
	"$(ping_via fc00:100::4)" "3 0 3"

# ---- the End: headers only, the kernel's End ---------------------------------
csum0=$(nstat_abs "$S1" TcpInCsumErrors)
read -r t0 b0 k0 <<<"$(totals hq_truncated bounced kend)"
read -r rp0 _ <<<"$(route_packets $M1)"
transfer fc00:100::1 end
read -r t1 b1 k1 <<<"$(totals hq_truncated bounced kend)"
read -r rp1 _ <<<"$(route_packets $M1)"
say "End: cut short $((t1 - t0)), bounced $((b1 - b0)), kend $((k1 - k0)), the route counted $((rp1 - rp0))"
if [ "${BYTES:-0}" -gt 1000000 ]; then pass "End: the transfer got through ($BYTES bytes)"
else fail "End transfer: ${BYTES:-0} bytes"; fi
if [ $((t1 - t0)) -gt 10 ]; then
	pass "End: srv6d read only the first bytes of $((t1 - t0)) super-packets"
else
	fail "End: hq_truncated $((t1 - t0))"
fi
expect_eq "End: none bounced" $((b1 - b0)) 0
# kend also counts the few super-packets short enough to arrive whole.
if [ $((k1 - k0)) -ge $((t1 - t0)) ]; then
	pass "End: every one cut short went to the kernel's End (kend $((k1 - k0)))"
else
	fail "End: kend $((k1 - k0)) < cut short $((t1 - t0))"
fi
expect_eq "End: the seg6local route counted what srv6d handed it" $((rp1 - rp0)) $((k1 - k0))
if [ "$GOOD" -gt 100 ] && [ "$BAD" = 0 ]; then
	pass "End: every segment leaving gw has a valid checksum ($GOOD)"
else
	fail "End: $GOOD good, $BAD not good segments"
fi

# ---- the End.X: bounced, then whole on queue 0 --------------------------------
read -r t0 b0 f0 i0 <<<"$(totals hq_truncated bounced forwarded injected)"
transfer fc00:100::4 endx
read -r t1 b1 f1 i1 <<<"$(totals hq_truncated bounced forwarded injected)"
f0=$((f0 + i0)) f1=$((f1 + i1))	# given back: a verdict or srv6d's device
say "End.X: cut short $((t1 - t0)), bounced $((b1 - b0)), forwarded $((f1 - f0))"
if [ "${BYTES:-0}" -gt 1000000 ]; then pass "End.X: the transfer got through ($BYTES bytes)"
else fail "End.X transfer: ${BYTES:-0} bytes"; fi
if [ $((b1 - b0)) -gt 10 ]; then
	pass "End.X: $((b1 - b0)) super-packets bounced to be queued whole"
else
	fail "End.X: bounced $((b1 - b0))"
fi
# bounced: those cut short and the flow's short packets
if [ $((b1 - b0)) -ge $((t1 - t0)) ]; then
	pass "End.X: every one cut short was bounced ($((t1 - t0)) of $((b1 - b0)))"
else
	fail "End.X: bounced $((b1 - b0)) < cut short $((t1 - t0))"
fi
[ $((f1 - f0)) -ge $((b1 - b0)) ] ||
	fail "End.X: given back $((f1 - f0)) < bounced $((b1 - b0)): not all came back whole"
if [ "$GOOD" -gt 100 ] && [ "$BAD" = 0 ]; then
	pass "End.X: every segment leaving gw has a valid checksum ($GOOD)"
else
	fail "End.X: $GOOD good, $BAD not good segments"
fi
csum1=$(nstat_abs "$S1" TcpInCsumErrors)
expect_eq "s1 counted no TCP checksum error" $((csum1 - csum0)) 0
expect_eq "rx_packets = accepted + forwarded + injected + dropped + bounced" \
	"$(ctl_get "s['totals']['accepted'] + s['totals']['forwarded'] + s['totals']['injected'] + s['totals']['dropped'] + s['totals']['bounced'] - s['totals']['rx_packets']")" 0

# ---- a rule that queues bounced packets to the header queue again ----------
nsx "$GW" ip6tables -t raw -R PREROUTING 1 ! -i srv6d+ -d fc00:100::/32 \
	-j NFQUEUE --queue-num 1 || fail "the looping rule"
l0=$(ctl_get "s['totals']['drops']['bounce_loop']")
b0=$(totals bounced)
transfer fc00:100::4 loop
l1=$(ctl_get "s['totals']['drops']['bounce_loop']")
b1=$(totals bounced)
say "loop: bounced $((b1 - b0)), dropped as bounce_loop $((l1 - l0))"
if [ $((l1 - l0)) -gt 0 ] && [ $((l1 - l0)) -le $((b1 - b0)) ]; then
	pass "a bounced packet queued to the header queue again is dropped once ($((l1 - l0)))"
else
	fail "bounce_loop $((l1 - l0)), bounced $((b1 - b0))"
fi
nsx "$GW" ip6tables -t raw -R PREROUTING 1 ! -i srv6d+ -d fc00:100::/32 \
	-m mark ! --mark $BOUNCE/$BOUNCE -j NFQUEUE --queue-num 1 || fail "the rule back"
if kill -0 "$SRV6D_PID" 2>/dev/null &&
	timeout 5 "$SRV6CTL" -s "$SOCK" status >/dev/null 2>&1; then
	pass "srv6d healthy after the loop"
else
	fail "srv6d unhealthy after the loop"
fi

# ---- reload, stop --------------------------------------------------------------
sed 's/^header-queue 1$/header-queue 2/' "$TMPD/srv6d.conf" >"$TMPD/srv6d2.conf"
cp "$TMPD/srv6d2.conf" "$TMPD/srv6d.conf.new"
mv "$TMPD/srv6d.conf" "$TMPD/srv6d.conf.old"
mv "$TMPD/srv6d.conf.new" "$TMPD/srv6d.conf"
if timeout 10 "$SRV6CTL" -s "$SOCK" reload 2>"$TMPD/reload.err"; then
	fail "a reload changed header-queue"
elif grep -q "header-queue" "$TMPD/reload.err"; then
	pass "a reload cannot change header-queue: $(head -1 "$TMPD/reload.err")"
else
	fail "reload refused without naming header-queue: $(cat "$TMPD/reload.err")"
fi
mv "$TMPD/srv6d.conf.old" "$TMPD/srv6d.conf"
{ echo "mark-base 0x5d6e0000"; cat "$TMPD/srv6d.conf"; } >"$TMPD/srv6d.conf.new"
mv "$TMPD/srv6d.conf" "$TMPD/srv6d.conf.old"
mv "$TMPD/srv6d.conf.new" "$TMPD/srv6d.conf"
if timeout 10 "$SRV6CTL" -s "$SOCK" reload 2>"$TMPD/reload.err"; then
	fail "a reload changed mark-base with a header queue"
elif grep -q "'mark-base' changed, which needs a restart" "$TMPD/reload.err"; then
	pass "a reload cannot change mark-base with a header queue"
else
	fail "reload refused without naming mark-base: $(cat "$TMPD/reload.err")"
fi
mv "$TMPD/srv6d.conf.old" "$TMPD/srv6d.conf"
srv6d_stop || fail "srv6d exit"
expect_eq "after the stop no queue is bound" "$(bound_queues)" ""
ns_finish
