#!/bin/bash
# mark-mask.sh - srv6d owns a bit field of the packet mark (`mark-mask`,
# issue 19 items 2 and 5): its rules match under the mask, its verdicts
# keep the packet's other bits, and a bounce is known by its bit.
#
#   gen (iperf3 client; kernel seg6 encap segs fc00:100::1,fc00:9::d6, or
#        plain to the policy's prefix)
#     -> gw (srv6d: End fc00:100::1 with kernel-end, H.Encaps policy
#            fd00:9::/64 segs fc00:9::d6 with kernel-encap: the defaults
#            with offload on)
#     -> s1 (kernel seg6local End.DT6 fc00:9::d6; iperf3 server fd00:9::1)
#   s2: the leak namespace, where gw's table 50 sends everything (counted)
#
# The operator's own rules at gw: `ip -6 rule add priority 100 fwmark
# 0x1/0x1 lookup 50` and `priority 101 fwmark 0x2/0x2 lookup 50` (table 50:
# everything to s2), and in raw PREROUTING, before the queue rule, `-j MARK
# --set-xmark 0x4/0x4` on the SID's and the policy's packets, its bit 0x4
# counted on what leaves gw for s1 (mangle POSTROUTING).
# Checks:
# - control, the default mask (every bit, srv6d's marks mark-base +
#   offset): srv6d's kernel-encap and kernel-end marks (0x5d6fffff,
#   0x5d6ffffe) trip the operator's rules, packets leak to s2 (the probe
#   sees a leak where there is one);
# - `mark-base 0x10000`, `mark-mask 0xffff0000`: srv6d's rules are
#   `fwmark V/0xffff0000`; a transfer through the End (kernel-end) and
#   one through the policy (kernel-encap) get through (kend, kencap
#   counted), nothing leaks to s2, and every packet leaving gw for s1
#   carries the operator's bit 0x4 (and no other bit of the low 16); the
#   operator's own 0x1 traffic still takes table 50;
# - bounces (`header-queue 1`, a 3100-byte packet with an SRH TLV: cut
#   short, bounced to be queued whole): a rule in front of the header
#   queue's rule that rewrites the mark (`--set-xmark 0x100/0x100`, re-run
#   on each NF_REPEAT): with the header queue's rule leaving out the
#   bounce bit, each packet is bounced once, then processed whole on
#   queue 0 and forwarded; with the rule written for the bounce mark of
#   before (`! --mark 0x5d6f0000`, the default mask: the issue's probe,
#   an endless loop on main), each packet is bounced once and then
#   dropped as bounce_loop; no packet is left in a queue, srv6d stays up.
T=mark-mask
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 300
need_srv6d
need_tools iperf3 ethtool nstat tcpdump
N=20	# bounce probe packets

# the way to s1 of tcp_end_setup (lib.sh), but no queue rule yet
ns_setup || { fail "topology setup"; ns_finish; }
_sysctls "$S1" net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.s1.seg6_enabled=1 ||
	fail "seg6_enabled at s1"
nsx "$S1" ip -6 addr add fd00:9::1/128 dev lo
nsx "$S1" ip -6 route add fc00:9::d6/128 encap seg6local action End.DT6 table 255 dev s1 ||
	fail "End.DT6 at s1"
nsx "$GEN" ip sr tunsrc set fc00:1::1
nsx "$GW" ip -6 route add fc00:9::d6/128 via fc00:2::2 dev gw1 || fail "route at gw"
tcp_path_offloads gw1
nsx "$S1" iperf3 -s -D -B fd00:9::1 >/dev/null 2>&1

# ---- the operator's rules ----------------------------------------------------
nsx "$GW" ip -6 route add default via fc00:3::2 dev gw2 table 50 &&
nsx "$GW" ip -6 rule add priority 100 fwmark 0x1/0x1 lookup 50 &&
nsx "$GW" ip -6 rule add priority 101 fwmark 0x2/0x2 lookup 50 ||
	fail "the operator's rules"
# s2 counts (and drops) what leaks: the SID's, the tenant's, the probe's
for d in fc00:100::1 fd00:9::1 fc00:9::99; do
	nsx "$S2" ip6tables -t raw -A PREROUTING -d "$d/128" -j DROP ||
		fail "leak counter at s2"
done
leaked() {	# DST: what arrived at s2 for DST
	sink_count "$S2" "$1"
}
# what leaves gw for s1's End.DT6: all, with the operator's bit alone in
# the low 16 bits
nsx "$GW" ip6tables -t mangle -A POSTROUTING -o gw1 -d fc00:9::d6/128 &&
nsx "$GW" ip6tables -t mangle -A POSTROUTING -o gw1 -d fc00:9::d6/128 \
	-m mark --mark 0x4/0xffff || fail "mark counters at gw"
out_counts() {	# "ALL WITH-0x4" packets leaving gw1 for fc00:9::d6
	nsx "$GW" ip6tables -t mangle -L POSTROUTING -v -x -n |
		awk '$0 ~ /fc00:9::d6/ { if ($0 ~ /mark match/) m = $1; else a = $1 }
		     END { print a + 0, m + 0 }'
}

# steer: the operator's MARK first, then the queue (nfq_steer6)
steer() {
	nfq_flush
	nsx "$GW" ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:100::/32 \
		-j MARK --set-xmark 0x4/0x4 &&
	nsx "$GW" ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fd00:9::/64 \
		-j MARK --set-xmark 0x4/0x4 &&
	nfq_steer6 fc00:100::/32 fd00:9::/64
}

conf() {	# [MARK LINES...]
	cat <<EOF
queue 0
encap-source fc00:2::1
sid fc00:100::1/128 action End
route fd00:9::/64 encap seg6 mode encap segs fc00:9::d6
EOF
	printf '%s\n' "$@"
}

# transfers LABEL: through the End (kernel-end), then the policy
# (kernel-encap); prints "END-BYTES ENCAP-BYTES KEND KENCAP LEAKED OUT-ALL
# OUT-WITH-0x4"
transfers() {
	local k0 c0 l0 a0 m0 b1 b2 k1 c1 l1 a1 m1
	read -r k0 c0 <<<"$(ctl_get "'%d %d' % (s['totals']['kend'], s['totals']['kencap'])")"
	l0=$(($(leaked fc00:100::1) + $(leaked fd00:9::1)))
	read -r a0 m0 <<<"$(out_counts)"
	tcp_end_via fc00:100::1 || fail "$1: seg6 encap route at gen"
	b1=$(tcp_transfer "$TMPD/end.pcap" gw1 ip6 -6 fd00:9::1)
	nsx "$GEN" ip -6 route replace fd00:9::/64 via fc00:1::2 dev g0 ||
		fail "$1: plain route at gen"
	b2=$(tcp_transfer "$TMPD/encap.pcap" gw1 ip6 -6 fd00:9::1)
	read -r k1 c1 <<<"$(ctl_get "'%d %d' % (s['totals']['kend'], s['totals']['kencap'])")"
	l1=$(($(leaked fc00:100::1) + $(leaked fd00:9::1)))
	read -r a1 m1 <<<"$(out_counts)"
	echo "$b1 $b2 $((k1 - k0)) $((c1 - c0)) $((l1 - l0)) $((a1 - a0)) $((m1 - m0))"
}

# ---- control: the default mask ---------------------------------------------
steer || fail "steering rules"
conf >"$TMPD/default.conf"
srv6d_start "$TMPD/default.conf" || { fail "srv6d start (default mask)"; ns_finish; }
read -r b1 b2 kd kc lk oa om <<<"$(transfers "default mask")"
say "default mask: End $b1 bytes (kend $kd), policy $b2 bytes (kencap $kc), leaked to s2 $lk, left for s1 $oa (with 0x4 alone in the low bits: $om)"
[ "$lk" -gt 0 ] && pass "control: with the default mask srv6d's marks trip the operator's 0x1/0x2 rules ($lk packets leaked to s2)" ||
	fail "control: no leak with the default mask (the probe sees nothing)"
srv6d_stop || fail "srv6d exit (default mask)"

# ---- mark-mask 0xffff0000 ----------------------------------------------------
conf "mark-base 0x10000" "mark-mask 0xffff0000" >"$TMPD/mask.conf"
srv6d_start "$TMPD/mask.conf" || { fail "srv6d start (mark-mask)"; ns_finish; }
rules=$(nsx "$GW" ip -6 rule show priority 1000)
say "srv6d's rules: $(tr '\n' ';' <<<"$rules")"
n_all=$(grep -c fwmark <<<"$rules")
n_masked=$(grep -c "fwmark 0x[0-9a-f]*0000/0xffff0000 " <<<"$rules")
[ "$n_all" -ge 2 ] && [ "$n_all" = "$n_masked" ] &&
	pass "srv6d's $n_all fwmark rules match under the mask (fwmark V/0xffff0000)" ||
	fail "srv6d's rules: $rules"
read -r b1 b2 kd kc lk oa om <<<"$(transfers "mark-mask")"
say "mark-mask 0xffff0000: End $b1 bytes (kend $kd), policy $b2 bytes (kencap $kc), leaked to s2 $lk, left for s1 $oa (with 0x4 alone in the low bits: $om)"
[ "$b1" -gt 1000000 ] && pass "the transfer through the End got through ($b1 bytes)" ||
	fail "the transfer through the End: $b1 bytes"
[ "$b2" -gt 1000000 ] && pass "the transfer through the policy got through ($b2 bytes)" ||
	fail "the transfer through the policy: $b2 bytes"
[ "$kd" -gt 10 ] && pass "kernel-end handled $kd super-packets" || fail "kend: $kd"
[ "$kc" -gt 10 ] && pass "kernel-encap handled $kc super-packets" || fail "kencap: $kc"
expect_eq "nothing leaked to s2 through the operator's rules" "$lk" 0
[ "$oa" -gt 100 ] && pass "$oa packets left gw for s1" || fail "left for s1: $oa"
expect_eq "every packet that left for s1 kept the operator's bit 0x4 (low 16 bits 0x0004)" "$om" "$oa"
# the operator's own 0x1 traffic: still theirs to route
l0=$(leaked fc00:9::99)
nsx "$GW" ip6tables -t raw -I PREROUTING 1 -d fc00:9::99 -j MARK --set-xmark 0x1/0x1 &&
nsx "$GEN" ping -6 -c 3 -i 0.2 -W 1 fc00:9::99 >/dev/null 2>&1
expect_eq "the operator's own 0x1 packets take its table 50 (to s2)" "$(($(leaked fc00:9::99) - l0))" 3
srv6d_stop || fail "srv6d exit (mark-mask)"

# ---- bounces -------------------------------------------------------------------
# room for the probe's 3100 bytes, from gen and on to s1
nsx "$GEN" ip link set g0 mtu 9000 && nsx "$GW" ip link set gw0 mtu 9000 &&
nsx "$GW" ip link set gw1 mtu 9000 && nsx "$S1" ip link set s1 mtu 9000 ||
	fail "MTU 9000 gen-gw-s1"
# probe: N packets of 3100 bytes to the End with a PadN TLV (no kernel End
# for it): cut short on the header queue, bounced
probe() {
	timeout 60 "$PYTHON" "$PKTPY" flood --send "$GEN:g0" --dmac $MAC_GW0 \
		-n $N --src fc00:1::1 --segs fc00:100::1,fc00:9::d6 \
		--tlv padn:4 --inner ipv6 --inner-src fc00:1::1 \
		--inner-dst fd00:9::1 --pad 3000 >/dev/null
	sleep 1
}
queue_stat() {	# QUEUE FIELD of /proc/net/netfilter/nfnetlink_queue
	nsx "$GW" cat /proc/net/netfilter/nfnetlink_queue |
		awk -v q="$1" -v f="$2" '$1 == q { print $f }'
}
# hq_rules MARK-MATCH...: the rewrite, the header queue's rule (with
# MARK-MATCH), queue 0's
hq_rules() {
	nfq_flush
	nsx "$GW" ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:100::1/128 \
		-j MARK --set-xmark 0x100/0x100 &&
	nsx "$GW" ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:100::/32 \
		"$@" -j NFQUEUE --queue-num 1 &&
	nfq_steer6 fc00:100::/32
}
# bounce_run LABEL: the probe; prints "BOUNCED BOUNCE-LOOP HQ-QUEUED
# Q0-QUEUED WAITING OUT"
bounce_run() {
	local b0 l0 h0 q0 a0 m0 b1 l1 h1 q1 a1 m1
	read -r b0 l0 <<<"$(ctl_get "'%d %d' % (s['totals']['bounced'], s['totals']['drops']['bounce_loop'])")"
	h0=$(queue_stat 1 8) q0=$(queue_stat 0 8)
	read -r a0 m0 <<<"$(out_counts)"
	probe
	read -r b1 l1 <<<"$(ctl_get "'%d %d' % (s['totals']['bounced'], s['totals']['drops']['bounce_loop'])")"
	h1=$(queue_stat 1 8) q1=$(queue_stat 0 8)
	read -r a1 m1 <<<"$(out_counts)"
	echo "$((b1 - b0)) $((l1 - l0)) $((h1 - h0)) $((q1 - q0)) $(($(queue_stat 0 3) + $(queue_stat 1 3))) $((a1 - a0))"
}

conf "mark-base 0x10000" "mark-mask 0xffff0000" "header-queue 1" >"$TMPD/hq.conf"
hq_rules -m mark ! --mark 0x80000000/0x80000000 || fail "header queue rules"
srv6d_start "$TMPD/hq.conf" || { fail "srv6d start (header queue)"; ns_finish; }
read -r bb bl hq q0 wt out <<<"$(bounce_run)"
say "mark-mask, the rule leaving out the bounce bit: $N sent, bounced $bb, bounce_loop $bl, header queue got $hq, queue 0 $q0, waiting $wt, forwarded to s1 $out"
expect_eq "each packet bounced once, though a rule rewrote its mark" "$bb" $N
expect_eq "no bounce_loop" "$bl" 0
expect_eq "the header queue got each packet once" "$hq" $N
expect_eq "queue 0 got each bounced packet whole" "$q0" $N
expect_eq "all processed whole and forwarded to s1" "$out" $N
expect_eq "no packet left in a queue" "$wt" 0
srv6d_stop || fail "srv6d exit (header queue)"

# the issue's probe: the default mask, the rule written for the bounce mark
# of before mark-mask
conf "header-queue 1" >"$TMPD/hq2.conf"
hq_rules -m mark ! --mark 0x5d6f0000 || fail "header queue rules (old)"
srv6d_start "$TMPD/hq2.conf" || { fail "srv6d start (header queue, default mask)"; ns_finish; }
read -r bb bl hq q0 wt out <<<"$(bounce_run)"
say "default mask, the rule of the old bounce mark: $N sent, bounced $bb, bounce_loop $bl, header queue got $hq, queue 0 $q0, waiting $wt"
expect_eq "each packet bounced once at most" "$bb" $N
expect_eq "each came back with the bounce bit and a rewritten mark: bounce_loop" "$bl" $N
expect_eq "the header queue got each packet twice, no more" "$hq" $((2 * N))
expect_eq "no packet left in a queue" "$wt" 0
ctl_get "s['totals']['rx_packets']" >/dev/null && pass "srv6d answers after the probe" ||
	fail "srv6d does not answer"
srv6d_stop || fail "srv6d exit (header queue, default mask)"
ns_finish
