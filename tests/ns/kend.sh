#!/bin/bash
# kend.sh - `kernel-end auto` with `offload yes` (both the default): the kernel's
# seg6local End rewrites the TCP super-packets of srv6d's plain End SIDs,
# through the rule and route srv6d installs itself for each
# (src/route/kencap_routes.h, src/io/kend.h), GRO on at every veth:
#
#   gen (iperf3 client, kernel seg6 encap: segs fc00:100::1,fc00:9::d6)
#     -> gw (srv6d End fc00:100::1 and fc00:100::2)
#     -> s1 (kernel seg6local End.DT6 fc00:9::d6; iperf3 server fd00:9::1)
#
# Checks: each End SID's fwmark rule and, alone in its table, its
# seg6local End route and behind it (metric 4294967295) a blackhole of
# the SID (its route gone, the marked packets are dropped, not routed by
# the main table), a stale rule and route of the range
# gone at start; srv6ctl status says kernel-end is on; a transfer whose
# super-packets srv6d hands to the kernel's End (kend) as many as the
# route counted, no error there, every segment leaving gw (gw1's tx
# checksum off: summed in software) with valid checksums, DA fc00:9::d6
# and SL 0, no TcpInCsumErrors at s1; a reload that removes fc00:100::1
# removes its rule and route and keeps fc00:100::2's mark; a reload with
# `kernel-end no` removes the rest and status says why; nothing of the
# range is left after srv6d stops.
T=kend
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 300
need_srv6d
# (runs under SRV6D_KERNEL=7.2 too: the kernel ways are no payload)
need_tools iperf3 ethtool nstat tcpdump tshark
BASE=$MARK_BASE	# mark-base's default
PRIO=1000		# rule-priority's default
# fc00:100::1's mark, the first from the top of the default mark-mask's
# offsets (lib.sh MARK_TOP: mark-base + 8848, 0x7fff0000 on the packet)
M1=$MARK_TOP
M2=$((MARK_TOP - 1))	# fc00:100::2's

ns_setup || { fail "topology setup"; ns_finish; }
tcp_end_setup
tcp_end_via fc00:100::1 || fail "seg6 encap route at gen"

# A crashed instance's leftovers in the range (srv6d's: protocol 93,
# RTPROT_SRV6D).
if ! { nsx "$GW" ip -6 rule add priority $PRIO fwmark $((BASE + 0xfff0)) lookup $((BASE + 0xfff0)) protocol 93 &&
	nsx "$GW" ip -6 route add fc00:100::9/128 encap seg6local action End \
		dev gw1 table $((BASE + 0xfff0)) proto 93; }; then
	fail "stale rule and route"
fi

conf() {	# SIDS... (the last argument may be "kernel-end no")
	echo "queue 0"	# offload yes: the default
	for a in "$@"; do
		case $a in
		kernel-end*) echo "$a" ;;
		*) echo "sid $a/128 action End" ;;
		esac
	done
}
conf fc00:100::1 fc00:100::2 >"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

objs=$(range_objects "$GW")
say "range at start:"; printf '%s\n' "$objs" | sed "s/^/$T:   /"
if printf '%s\n' "$objs" | grep -q "^rule[46] $M1 $M1$" &&
	printf '%s\n' "$objs" | grep -q "^rule[46] $M2 $M2$"; then
	pass "a fwmark rule for each End SID's mark"
else
	fail "fwmark rules: $objs"
fi
for t in "$M1:fc00:100::1" "$M2:fc00:100::2"; do
	r=$(printf '%s\n' "$objs" | grep "^route6 ${t%%:*} " | grep -v "^route6 ${t%%:*} blackhole ${t#*:} .*metric 4294967295")
	if printf '%s\n' "$objs" | grep -q "^route6 ${t%%:*} blackhole ${t#*:} .*metric 4294967295"; then
		pass "table ${t%%:*}: ${t#*:}'s blackhole behind it (its route gone: dropped, not routed by main)"
	else
		fail "table ${t%%:*}: no blackhole ${t#*:}"
	fi
	if [ "$(printf '%s\n' "$r" | wc -l)" = 1 ] &&
		printf '%s\n' "$r" | grep -q "^route6 ${t%%:*} ${t#*:} encap seg6local action End .*dev srv6d0"; then
		pass "table ${t%%:*}: only ${t#*:}'s seg6local End (dev srv6d0) and its blackhole"
	else
		fail "table ${t%%:*}: $r"
	fi
done
if printf '%s\n' "$objs" | grep -q "$((BASE + 0xfff0))"; then
	fail "the stale rule or route stayed"
else
	pass "the stale rule and route of the range are gone"
fi
kernel_end_status_expect 2 \
	"kernel-end auto: the kernel's End rewrites plain End super-packets (2 End SIDs)"

# ---- a transfer ----------------------------------------------------------
pcap="$TMPD/kend.pcap"
kernel_end_reset $M1 "$S1"
kernel_end_expect End "$(tcp_transfer "$pcap" gw1 ip6 -6 fd00:9::1)"
read -r good bad <<<"$(tcp_segments_checked "$pcap" \
	'ipv6.dst == fc00:9::d6 && ipv6.routing.segleft == 0' \
	'ipv6.dst != fc00:9::d6 || ipv6.routing.segleft != 0')"
if [ "$good" -gt 100 ] && [ "$bad" = 0 ]; then
	pass "every segment leaving gw: valid checksum, DA fc00:9::d6, SL 0 ($good)"
else
	fail "$good good, $bad not good segments leaving gw"
	tshark -r "$pcap" -o tcp.check_checksum:TRUE -T fields -e ipv6.dst \
		-e ipv6.routing.segleft -e tcp.checksum.status -Y 'tcp.len > 0' 2>/dev/null |
		sort | uniq -c | head -5
fi

# ---- reloads -------------------------------------------------------------
conf fc00:100::2 >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload"
objs=$(range_objects "$GW")
say "range after the reload without fc00:100::1:"; printf '%s\n' "$objs" | sed "s/^/$T:   /"
expect_eq "the reload removed fc00:100::1's rule and route, fc00:100::2 kept its mark" \
	"$(printf '%s\n' "$objs" | awk '{ print $1, $2 }' | tr '\n' ' ')" "route6 $M2 route6 $M2 rule6 $M2 "
conf fc00:100::2 "kernel-end no" >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload (kernel-end no)"
expect_eq "kernel-end no: nothing of the range" "$(range_objects "$GW")" ""
expect_eq "status: kernel-end off, why" \
	"$(ctl_get "'%s %s' % (s['kernel_end']['active'], s['kernel_end']['why'])")" "False kernel-end no"
conf fc00:100::1 fc00:100::2 >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload (back on)"
[ -n "$(range_objects "$GW")" ] || fail "kernel-end back on: nothing in the range"
srv6d_stop || fail "srv6d exit"
expect_eq "nothing of the range is left after srv6d stops" "$(range_objects "$GW")" ""
ns_finish
