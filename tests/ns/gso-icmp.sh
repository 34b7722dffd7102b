#!/bin/bash
# gso-icmp.sh - ICMP errors about super-packets reach their sender.  An
# error srv6d builds in place of a GSO super-packet cannot be the payload
# of its verdict: nfqnl_mangle() trims the queued skb and copies the error
# in, but the skb keeps its GSO state, and on Linux 6.18 no such error
# reached the sender.  It leaves by the reinjection device instead
# (reinject_decide(), p->icmp_of_gso).
#
#   gen (iperf3 client, kernel seg6 encap: segs fc00:100::1,fc00:9::d6;
#        ip6tables HL --hl-set 1 on its packets of 3000 bytes and more,
#        the super-packets)
#     -> gw (srv6d End fc00:100::1, offload yes: the default)
#     -> s1 (kernel End.DT6 fc00:9::d6; iperf3 server)
#
# Checks, with `kernel-end no` and then with a header queue (the
# super-packets arrive there cut short): every super-packet gw got with
# hop limit 1 is answered (srv6d's hop_limit drops = icmp_sent) and gen
# receives as many Time Exceeded (Icmp6InTimeExcds) as srv6d sent, more
# than zero.
T=gso-icmp
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 180
need_srv6d
[ "${SRV6D_KERNEL:-}" = 7.2 ] && skip_test "SRV6D_KERNEL=7.2: the errors take the device way there anyway"
for c in iperf3 ethtool nstat; do
	command -v "$c" >/dev/null || skip_test "$c not found"
done

ns_setup || { fail "topology setup"; ns_finish; }
_sysctls "$S1" net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.s1.seg6_enabled=1 ||
	fail "seg6_enabled at s1"
nsx "$S1" ip -6 addr add fd00:9::1/128 dev lo
nsx "$S1" ip -6 route add fc00:9::d6/128 encap seg6local action End.DT6 table 255 dev s1 ||
	fail "End.DT6 at s1"
nsx "$GEN" ip sr tunsrc set fc00:1::1
nsx "$GEN" ip -6 route replace fd00:9::/64 encap seg6 mode encap \
	segs fc00:100::1,fc00:9::d6 via fc00:1::2 dev g0 || fail "seg6 encap route at gen"
nsx "$GW" ip -6 route add fc00:9::d6/128 via fc00:2::2 dev gw1 || fail "route at gw"
for ns_if in "$GEN:g0" "$GW:gw0" "$GW:gw1" "$S1:s1"; do
	nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro on >/dev/null 2>&1 ||
		skip_test "ethtool -K ${ns_if#*:} gro on failed"
done
nsx "$S1" iperf3 -s -D -B fd00:9::1 >/dev/null 2>&1
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
nsx "$GEN" ip6tables -t mangle -A POSTROUTING -o g0 -m length --length 3000:65535 \
	-j HL --hl-set 1 || skip_test "ip6tables HL target not available"

# errors LABEL: a 2 s transfer; the Time Exceeded srv6d sent and gen got.
errors() {
	local s0 s1 h0 h1 g0 g1
	read -r s0 h0 <<<"$(ctl_get "'%d %d' % (s['totals']['icmp_sent'], s['totals']['drops']['hop_limit'])")"
	g0=$(nsx "$GEN" nstat -az Icmp6InTimeExcds 2>/dev/null | awk '$1 == "Icmp6InTimeExcds" { print $2 + 0 }')
	nsx "$GEN" timeout 10 iperf3 -6 -c fd00:9::1 -t 2 >/dev/null 2>&1
	sleep 0.5
	read -r s1 h1 <<<"$(ctl_get "'%d %d' % (s['totals']['icmp_sent'], s['totals']['drops']['hop_limit'])")"
	g1=$(nsx "$GEN" nstat -az Icmp6InTimeExcds 2>/dev/null | awk '$1 == "Icmp6InTimeExcds" { print $2 + 0 }')
	say "$1: hop limit 1 at gw $((h1 - h0)), Time Exceeded sent $((s1 - s0)), received at gen $((g1 - g0))"
	if [ $((s1 - s0)) -gt 0 ] && [ $((s1 - s0)) = $((h1 - h0)) ]; then
		pass "$1: srv6d answered every super-packet with hop limit 1 ($((s1 - s0)))"
	else
		fail "$1: sent $((s1 - s0)) for $((h1 - h0)) hop-limit drops"
	fi
	expect_eq "$1: gen received every Time Exceeded srv6d sent" $((g1 - g0)) $((s1 - s0))
}

printf 'queue 0\nkernel-end no\nicmp-rate 100000\nicmp-burst 100000\nsid fc00:100::1/128 action End\n' \
	>"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
errors "whole super-packets"
srv6d_stop || fail "srv6d exit"

nfq_steer6_hq fc00:100::/32 || fail "header queue rule"
printf 'queue 0\nheader-queue 1\nicmp-rate 100000\nicmp-burst 100000\nsid fc00:100::1/128 action End\n' \
	>"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start (header queue)"; ns_finish; }
errors "cut short on a header queue"
srv6d_stop || fail "srv6d exit"
ns_finish
