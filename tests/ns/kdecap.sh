#!/bin/bash
# kdecap.sh - srv6d's default (`offload yes`: kernel-end auto) at the
# egress PE of an L3VPN: the kernel's seg6local End.DT6 / End.DX4
# decapsulates the TCP super-packets of srv6d's decapsulating SIDs,
# through the rules and routes srv6d installs for each
# (src/route/kencap_routes.h, src/io/kend.h), GRO on at every veth:
#
#   gen (iperf3 client, kernel seg6: fd00:a::/64 encap segs fc00:100::6,
#        10.10.0.0/24 encap.red segs fc00:100::4)
#     -> gw (srv6d End.DT6 fc00:100::6 table 200, End.DX4 fc00:100::4 nh4
#            203.0.113.2, End.DX6 fc00:100::5 nh6 fc00:3::2 oif gw2,
#            End.DT4 fc00:100::7 table 200)
#     -> s2 (iperf3 server on fd00:a::1 and 10.10.0.1; arp_ignore 1, so
#            an ARP for 10.10.0.1 on the link goes unanswered: End.DX4
#            must send to nh4's neighbour)
#
# Checks: each decapsulating SID's fwmark rule (End.DX4 an IPv4 one too)
# and seg6local route in its table (End.DX6/DX4: and a host route to the
# next hop via itself), none for End.DT4 (a VRF's in the kernel); a TCP transfer
# through each of End.DT6 (SRH with SL 0) and End.DX4 (no SRH): srv6d's
# kend counts what the route counted, no error there, no TCP checksum
# error at s2, every segment leaving gw2 (tx checksum off: summed in
# software) plain TCP with a valid checksum; a reload that removes
# End.DX4 removes its rules and routes and keeps End.DT6's mark;
# `kernel-end no` leaves no seg6local route and no rule of the old marks;
# nothing of the range is left after srv6d stops; with `header-queue 1`
# the same transfers cross as their headers only (hq_truncated) and the
# kernel decapsulates them, kend again the routes' count.
T=kdecap
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 300
need_srv6d
# (runs under SRV6D_KERNEL=7.2 too: the kernel ways are no payload)
need_tools iperf3 ethtool nstat tcpdump tshark

kmark_of() {	# SID: the table of its seg6local route in the range, "" none
	range_objects "$GW" | awk -v s="$1" '$1 == "route6" && $3 == s && /seg6local/ { print $2 }'
}

ns_setup || { fail "topology setup"; ns_finish; }
nsx "$S2" ip -6 addr add fd00:a::1/128 dev lo
nsx "$S2" ip addr add 10.10.0.1/32 dev lo
_sysctls "$S2" net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.s2.arp_ignore=1 ||
	fail "arp_ignore at s2"
nsx "$GW" ip -6 route add fd00:a::/64 via fc00:3::2 dev gw2 table 200 ||
	fail "table 200 at gw"
nsx "$GEN" ip sr tunsrc set fc00:1::1
nsx "$GEN" ip -6 route replace fd00:a::/64 encap seg6 mode encap \
	segs fc00:100::6 via fc00:1::2 dev g0 || fail "seg6 encap route at gen"
nsx "$GEN" ip route replace 10.10.0.0/24 encap seg6 mode encap.red \
	segs fc00:100::4 dev g0 || fail "seg6 encap.red route at gen"
tcp_path_offloads gw2
nsx "$S2" iperf3 -s -D >/dev/null 2>&1
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"

conf() {	# [kernel-end no] [no-dx4]
	echo "queue 0"	# the default: offload yes
	echo "sid fc00:100::6/128 action End.DT6 table 200"
	case " $* " in *" no-dx4 "*) ;; *)
	echo "sid fc00:100::4/128 action End.DX4 nh4 203.0.113.2" ;; esac
	echo "sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2 oif gw2"
	echo "sid fc00:100::7/128 action End.DT4 table 200"
	case " $* " in *" kernel-end no "*) echo "kernel-end no" ;; esac
}
conf >"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

objs=$(range_objects "$GW")
say "range at start:"; printf '%s\n' "$objs" | sed "s/^/$T:   /"
MDT6=$(kmark_of fc00:100::6) MDX4=$(kmark_of fc00:100::4) MDX6=$(kmark_of fc00:100::5)
has() { printf '%s\n' "$objs" | grep -q -- "$1"; }
if [ -n "$MDT6" ] && has "^rule6 $MDT6 $MDT6$" &&
	has "^route6 $MDT6 fc00:100::6 encap seg6local action End.DT6 table 200.* dev srv6d0"; then
	pass "End.DT6: rule and 'seg6local action End.DT6 table 200 ... dev srv6d0' in table $MDT6"
else
	fail "End.DT6 (table '$MDT6'): $objs"
fi
if [ -n "$MDX4" ] && has "^rule6 $MDX4 $MDX4$" && has "^rule4 $MDX4 $MDX4$" &&
	has "^route6 $MDX4 fc00:100::4 encap seg6local action End.DX4 nh4 203.0.113.2.* dev srv6d0" &&
	has "^route4 $MDX4 203.0.113.2 via 203.0.113.2 dev gw2"; then
	pass "End.DX4: both rules, its seg6local route and nh4/32 via nh4 in table $MDX4"
else
	fail "End.DX4 (table '$MDX4'): $objs"
fi
if [ -n "$MDX6" ] && has "^rule6 $MDX6 $MDX6$" &&
	has "^route6 $MDX6 fc00:100::5 encap seg6local action End.DX6 nh6 fc00:3::2.* dev srv6d0" &&
	has "^route6 $MDX6 fc00:3::2 via fc00:3::2 dev gw2"; then
	pass "End.DX6: rule, its seg6local route and nh6/128 via nh6 dev gw2 in table $MDX6"
else
	fail "End.DX6 (table '$MDX6'): $objs"
fi
if has "fc00:100::7 .*seg6local"; then fail "End.DT4 got a seg6local route"
else pass "End.DT4 keeps srv6d's own way (no seg6local route)"; fi
kernel_end_status_expect 3 "kernel-end auto: .*(0 End SIDs, 3 decapsulating)"

# ---- transfers -----------------------------------------------------------
transfer() {	# LABEL FAMILY DST TABLE FILTER
	local pcap="$TMPD/$1.pcap" bytes good bad
	kernel_end_reset "$4" "$S2"
	bytes=$(tcp_transfer "$pcap" gw2 tcp "$2" "$3")
	kernel_end_expect "$1" "$bytes"
	read -r good bad <<<"$(tcp_segments_checked "$pcap" "$5" "!($5)")"
	if [ "$good" -gt 100 ] && [ "$bad" = 0 ]; then
		pass "$1: every segment leaving gw2 is plain TCP with a valid checksum ($good)"
	else
		fail "$1: $good good, $bad not good segments leaving gw2"
	fi
}
transfer End.DT6 -6 fd00:a::1 "$MDT6" \
	'ipv6.dst == fd00:a::1 && !ipv6.routing && ipv6.nxt == 6 && ipv6.hlim == 63'
transfer End.DX4 -4 10.10.0.1 "$MDX4" \
	'ip.dst == 10.10.0.1 && ip.proto == 6 && ip.ttl == 63 && !ipv6 && eth.dst == '"$MAC_S2"

# ---- reloads -------------------------------------------------------------
conf no-dx4 >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload"
objs=$(range_objects "$GW")
say "range after the reload without End.DX4:"; printf '%s\n' "$objs" | sed "s/^/$T:   /"
if [ -n "$MDX4" ] && ! has "^[a-z0-9]* $MDX4 " && [ "$(kmark_of fc00:100::6)" = "$MDT6" ]; then
	pass "the reload removed End.DX4's rules and routes, End.DT6 kept its mark"
else
	fail "after the reload: $objs"
fi
conf no-dx4 "kernel-end no" >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload (kernel-end no)"
objs=$(range_objects "$GW")
if ! has seg6local && ! has "^[a-z0-9]* $MDT6 " && ! has "^[a-z0-9]* $MDX6 "; then
	pass "kernel-end no: no seg6local route, nothing of the kernel marks"
else
	fail "kernel-end no: $objs"
fi
expect_eq "status: kernel-end off, why" \
	"$(ctl_get "'%s %s' % (s['kernel_end']['active'], s['kernel_end']['why'])")" "False kernel-end no"
conf >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload (back on)"
[ -n "$(kmark_of fc00:100::4)" ] || fail "kernel-end back on: no End.DX4 route"
srv6d_stop || fail "srv6d exit"
expect_eq "nothing of the range is left after srv6d stops" "$(range_objects "$GW")" ""

# ---- a header queue (`header-queue 1`) -------------------------------------
# The super-packets cross into srv6d as their first 2112 bytes only
# (hq_truncated), are checked, counted and handed to the kernel's
# decapsulation from their headers (kend_from_headers()); none bounced.
nfq_steer6_hq fc00:100::/32 || fail "header queue rule"
{ echo "header-queue 1"; conf; } >"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start (header queue)"; ns_finish; }
MDT6=$(kmark_of fc00:100::6) MDX4=$(kmark_of fc00:100::4)
hq0=$(ctl_get "s['totals']['hq_truncated']")
b0=$(ctl_get "s['totals']['bounced']")
transfer "End.DT6 by headers" -6 fd00:a::1 "$MDT6" \
	'ipv6.dst == fd00:a::1 && !ipv6.routing && ipv6.nxt == 6 && ipv6.hlim == 63'
transfer "End.DX4 by headers" -4 10.10.0.1 "$MDX4" \
	'ip.dst == 10.10.0.1 && ip.proto == 6 && ip.ttl == 63 && !ipv6 && eth.dst == '"$MAC_S2"
hq1=$(ctl_get "s['totals']['hq_truncated']")
b1=$(ctl_get "s['totals']['bounced']")
say "header queue: hq_truncated $((hq1 - hq0)), bounced $((b1 - b0))"
if [ $((hq1 - hq0)) -gt 10 ]; then
	pass "the header queue cut $((hq1 - hq0)) super-packets short"
else
	fail "hq_truncated: $((hq1 - hq0))"
fi
srv6d_stop || fail "srv6d exit (header queue)"
expect_eq "nothing of the range is left after srv6d stops (header queue)" "$(range_objects "$GW")" ""
ns_finish
