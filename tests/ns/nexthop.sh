#!/bin/bash
# shellcheck disable=SC2086,SC2015 # word lists on purpose; a && b || fail
# nexthop.sh - routes through the kernel's next-hop objects (`ip nexthop`,
# `ip route ... nhid N`: what FRR's zebra writes by default).  End.DT4 and
# End.DT6 look their inner destinations up in table 100, whose routes use
# a single object, a group and a blackhole; an object replaced under a
# stream moves the stream without a loss; a deleted one takes its routes;
# `srv6ctl route get` agrees with `ip route get`; `kernel-routes yes`
# takes a seg6 encapsulation and a seg6local action held in an object.
# The gateway runs with net.ipv4.nexthop_compat_mode=0 (routes carry only
# their object's id, and a replaced object sends no route message), then
# with the default 1 for the same replace.
T=nexthop
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

S="--src fc00:1::1"
RATE=200

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
kernel-routes yes
offload no
sid fc00:100::7/128 action End.DT6 table 100
sid fc00:100::8/128 action End.DT4 table 100
EOF

ns_setup || { fail "topology setup"; ns_finish; }
_sysctls "$GW" net.ipv4.nexthop_compat_mode=0 || fail "nexthop_compat_mode=0"
g() { nsx "$GW" "$@"; }
# Table 100: 10.9.0.0/16 through object 1 (sink2), 10.8.0.0/16 through
# group 12 (objects 1 and 3, weights 3 and 1: both to sink2), 10.7.0.0/16
# through blackhole 30; fc00:8::/32 through object 6, fc00:7::/32
# through group 16 (sink2).
g ip nexthop add id 1 via 203.0.113.2 dev gw2 &&
	g ip nexthop add id 3 via 203.0.113.2 dev gw2 &&
	g ip nexthop add id 12 group 1,3/3 &&
	g ip nexthop add id 30 blackhole &&
	g ip -6 nexthop add id 6 via fc00:3::2 dev gw2 &&
	g ip -6 nexthop add id 7 via fc00:3::2 dev gw2 &&
	g ip nexthop add id 16 group 6/7 &&
	g ip route add 10.9.0.0/16 nhid 1 table 100 &&
	g ip route add 10.8.0.0/16 nhid 12 table 100 &&
	g ip route add 10.7.0.0/16 nhid 30 table 100 &&
	g ip -6 route add fc00:8::/32 nhid 6 table 100 &&
	g ip -6 route add fc00:7::/32 nhid 16 table 100 ||
	fail "next-hop objects and their routes"
nfq_steer6 fc00:100::/32 fc00:9:5::/64 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"
say "table 100:"
g ip route show table 100 | sed 's/^/    /'
g ip -6 route show table 100 | sed 's/^/    /'

dt_drops() {	# SID: its no_route drops
	ctl_get "drop(sid('$1'), 'no_route')"
}

# ---- End.DT4 / End.DT6 into routes through objects -------------------------------
for dst in 10.9.3.1 10.8.3.1; do
	out=$(pkt_xchg --tag dt4$dst $S --segs fc00:100::8 --sl 0 --inner ipv4 \
		--inner-src 192.0.2.1 --inner-dst $dst)
	exp=$(pkt_build --tag dt4$dst --v4 --src 192.0.2.1 --dst $dst --hlim 63)
	expect_frame "End.DT4 to $dst (table 100, nhid route): to sink2" "$out" s2 "$exp"
done
for dst in fc00:8::99 fc00:7::99; do
	out=$(pkt_xchg --tag dt6$dst $S --segs fc00:100::7 --sl 0 --inner ipv6 \
		--inner-src fc00:1::1 --inner-dst $dst)
	exp=$(pkt_build --tag dt6$dst --src fc00:1::1 --dst $dst --hlim 63)
	expect_frame "End.DT6 to $dst (table 100, nhid route): to sink2" "$out" s2 "$exp"
done
expect_eq "End.DT4/End.DT6: no no_route drop for the nhid routes" \
	"$(dt_drops fc00:100::8/128) $(dt_drops fc00:100::7/128)" "0 0"
out=$(pkt_xchg --tag bh $S --segs fc00:100::8 --sl 0 --inner ipv4 \
	--inner-src 192.0.2.1 --inner-dst 10.7.3.1)
expect_none "End.DT4 to 10.7.3.1 (blackhole object): nothing at sink1 or sink2" \
	"$(grep '^s[12] ' <<<"$out")"
expect_eq "the blackhole is a counted no_route drop of End.DT4" \
	"$(dt_drops fc00:100::8/128)" 1

# ---- srv6ctl route get agrees with ip route get ----------------------------------
# iproute2 here has no `ip route get ... table`: a rule of the test's own
# (fwmark 0x77, no mark of srv6d's) sends `ip route get ... mark 0x77` to
# table 100.
g ip rule add priority 900 fwmark 0x77 lookup 100 &&
	g ip -6 rule add priority 900 fwmark 0x77 lookup 100 ||
	fail "the test's fwmark 0x77 rules"
viadev() { grep -o 'via [^ ]* dev [^ ]*' | head -1; }
for q in "10.9.3.1" "10.8.3.1" "fc00:8::99" "fc00:7::99"; do
	k=$(g ip route get $q mark 0x77 2>&1 | viadev)
	d=$(g "$SRV6CTL" -s "$SOCK" route get $q table 100 2>&1 | viadev)
	if [ -n "$k" ] && [ "$k" = "$d" ]; then
		pass "route get $q (table 100): srv6ctl and ip agree ($k)"
	else
		fail "route get $q (table 100): ip '$k', srv6ctl '$d'"
		g "$SRV6CTL" -s "$SOCK" route get $q table 100
		g ip route get $q mark 0x77
	fi
done
k=$(g ip route get 10.7.3.1 mark 0x77 2>&1 | head -1)
d=$(g "$SRV6CTL" -s "$SOCK" route get 10.7.3.1 table 100 2>&1 | head -1)
# the kernel answers a blackhole route's lookup with an error
if grep -q "Invalid argument\|blackhole" <<<"$k" && grep -q "^blackhole " <<<"$d"; then
	pass "route get 10.7.3.1 (table 100): ip refuses ('$k'), srv6ctl says blackhole"
else
	fail "route get 10.7.3.1 (table 100): ip '$k', srv6ctl '$d'"
fi
# group_json ADDR: srv6ctl's next hops of ADDR in table 100 as
# "gateway/dev/weight ..."
group_json() {
	g "$SRV6CTL" -s "$SOCK" -j route get "$1" table 100 | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)
print(" ".join("%s/%s/%d" % (n["gateway"], n["dev"], n["weight"]) for n in r.get("nexthops", [])))'
}
expect_eq "srv6ctl route get 10.8.3.1: group 12's members with their weights" \
	"$(group_json 10.8.3.1)" "203.0.113.2/gw2/3 203.0.113.2/gw2/1"
expect_eq "srv6ctl route get fc00:7::99: group 16's members" \
	"$(group_json fc00:7::99)" "fc00:3::2/gw2/1 fc00:3::2/gw2/1"

# ---- an object replaced under a stream, then deleted ------------------------------
sink_count_rules 10.9.3.1 || fail "sink counter rules"
H4=$(pkt_build --tag st4 $S --segs fc00:100::8 --sl 0 --inner ipv4 \
	--inner-src 192.0.2.1 --inner-dst 10.9.3.1 --ul udp)
n0=$(dt_drops fc00:100::8/128)
pkt_paced_start "$TMPD/sent" $RATE 0 "$H4" || fail "the sender did not start"
sleep 1
g ip nexthop replace id 1 via 198.51.100.2 dev gw1 || fail "nexthop replace"
sleep 1
pkt_paced_stop
sleep 0.3
sent=$(cut -d' ' -f1 "$TMPD/sent")
c1=$(sink_count "$S1" 10.9.3.1) c2=$(sink_count "$S2" 10.9.3.1)
say "stream: $sent sent, $c2 at sink2 before the replace, $c1 at sink1 after"
if [ "${c1:-0}" -gt 0 ] && [ "${c2:-0}" -gt 0 ] && [ $((c1 + c2)) -eq "$sent" ]; then
	pass "object 1 replaced (compat mode 0: no route message): the stream moved to sink1, none lost"
else
	fail "object 1 replaced: sent $sent, sink1 $c1, sink2 $c2"
fi
# The kernel routes End.DT4's result by the SID's mark whatever srv6d
# found: what shows that srv6d's mirror followed is that no packet of the
# stream was a no_route (before, during or after the replace).
expect_eq "the stream's End.DT4 lookups all found the route: no no_route drop" \
	"$(($(dt_drops fc00:100::8/128) - n0))" 0
out=$(pkt_xchg --tag grp1 $S --segs fc00:100::8 --sl 0 --inner ipv4 \
	--inner-src 192.0.2.1 --inner-dst 10.8.3.1)
if grep -q '^s[12] ' <<<"$out"; then
	pass "group 12 re-resolved with its member 1 replaced: delivered"
else
	fail "group 12 after the replace: $out"
fi
expect_eq "srv6ctl route get 10.8.3.1 after the replace: member 1 moved to gw1" \
	"$(group_json 10.8.3.1)" "198.51.100.2/gw1/3 203.0.113.2/gw2/1"

# the same replace with compat mode 1 (the kernel tells of the routes too)
_sysctls "$GW" net.ipv4.nexthop_compat_mode=1 || fail "nexthop_compat_mode=1"
g ip nexthop replace id 1 via 203.0.113.2 dev gw2 || fail "nexthop replace back"
sleep 0.2
out=$(pkt_xchg --tag back $S --segs fc00:100::8 --sl 0 --inner ipv4 \
	--inner-src 192.0.2.1 --inner-dst 10.9.3.2)
exp=$(pkt_build --tag back --v4 --src 192.0.2.1 --dst 10.9.3.2 --hlim 63)
expect_frame "object 1 replaced back (compat mode 1): End.DT4 to sink2 again" "$out" s2 "$exp"
_sysctls "$GW" net.ipv4.nexthop_compat_mode=0 || fail "nexthop_compat_mode=0"

n0=$(dt_drops fc00:100::8/128)
g ip nexthop del id 1 || fail "nexthop del 1"
sleep 0.2
out=$(pkt_xchg --tag del1 $S --segs fc00:100::8 --sl 0 --inner ipv4 \
	--inner-src 192.0.2.1 --inner-dst 10.9.3.3)
expect_none "object 1 deleted (its IPv4 route goes without a message): nothing at the sinks" \
	"$(grep '^s[12] ' <<<"$out")"
expect_eq "... and the End.DT4 packet is a no_route drop" \
	"$(($(dt_drops fc00:100::8/128) - n0))" 1
out=$(pkt_xchg --tag del1g $S --segs fc00:100::8 --sl 0 --inner ipv4 \
	--inner-src 192.0.2.1 --inner-dst 10.8.3.3)
exp=$(pkt_build --tag del1g --v4 --src 192.0.2.1 --dst 10.8.3.3 --hlim 63)
expect_frame "group 12 without member 1 (object 3 left): to sink2" "$out" s2 "$exp"
n0=$(dt_drops fc00:100::7/128)
g ip -6 nexthop del id 6 || fail "nexthop del 6"
sleep 0.2
out=$(pkt_xchg --tag del6 $S --segs fc00:100::7 --sl 0 --inner ipv6 \
	--inner-src fc00:1::1 --inner-dst fc00:8::98)
expect_none "object 6 deleted: End.DT6 to fc00:8::98 reaches no sink" \
	"$(grep '^s[12] ' <<<"$out")"
expect_eq "... counted no_route" "$(($(dt_drops fc00:100::7/128) - n0))" 1

# gw2 set down: the kernel removes the objects on gw2 (3, 7), so groups
# 12 and 16 and their routes, with no message (nexthop_flush_dev(); a
# carrier loss does the same: check_nexthop).  Nothing after this uses
# gw2.
n4=$(dt_drops fc00:100::8/128) n6=$(dt_drops fc00:100::7/128)
g ip link set gw2 down
sleep 0.3
expect_eq "gw2 down: the kernel has no object left on it" \
	"$(g ip nexthop show | grep -c 'dev gw2\|group')" 0
out=$(pkt_xchg --tag fl4 $S --segs fc00:100::8 --sl 0 --inner ipv4 \
	--inner-src 192.0.2.1 --inner-dst 10.8.3.4)
out6=$(pkt_xchg --tag fl6 $S --segs fc00:100::7 --sl 0 --inner ipv6 \
	--inner-src fc00:1::1 --inner-dst fc00:7::94)
expect_none "gw2 down: End.DT4 to 10.8.3.4 and End.DT6 to fc00:7::94 reach no sink" \
	"$(grep -h '^s[12] ' <<<"$out$out6")"
expect_eq "... nor does the mirror: End.DT4 to 10.8.3.4 and End.DT6 to fc00:7::94 are no_route" \
	"$(($(dt_drops fc00:100::8/128) - n4)) $(($(dt_drops fc00:100::7/128) - n6))" "1 1"

# ---- kernel-routes: seg6 and seg6local held in an object --------------------------
g ip -6 nexthop add id 50 encap seg6 mode encap segs fc00:9::d1 dev gw1 &&
	g ip -6 route add fc00:9:5::/64 nhid 50 || fail "seg6 encap in object 50"
if g ip -6 nexthop add id 51 encap seg6local action End dev gw1 2>"$TMPD/nh51"; then
	g ip -6 route add fc00:100::51/128 nhid 51 || fail "route to seg6local object 51"
	sl=1
else
	say "the kernel refuses seg6local in a next-hop object: $(cat "$TMPD/nh51")"
	sl=0
fi
wait_for() {	# EXPR: until ctl_get EXPR prints True (2 s at most)
	local _
	for _ in $(seq 1 40); do
		[ "$(ctl_get "$1" 2>/dev/null)" = True ] && return 0
		sleep 0.05
	done
	return 1
}
if wait_for "any(p['prefix'] == 'fc00:9:5::/64' and p['origin'] == 'kernel' for p in s['policies'])"; then
	pass "kernel-routes: the seg6 encap of object 50 is srv6d's policy for fc00:9:5::/64"
else
	fail "no kernel policy for fc00:9:5::/64: $(ctl_get "[p['prefix'] for p in s['policies']]")"
fi
out=$(pkt_xchg --tag enc $S --dst fc00:9:5::1 --ul udp)
expect_fields "its packets: encapsulated by srv6d (encap-source fc00:1::2) toward fc00:9::d1" \
	"$out" s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::d1
if [ "$sl" = 1 ]; then
	if wait_for "any(e['sid'] == 'fc00:100::51/128' and e['behavior'] == 'End' and e['origin'] == 'kernel' for e in s['sids'])"; then
		pass "kernel-routes: the seg6local End of object 51 is srv6d's SID"
	else
		fail "no kernel SID fc00:100::51/128"
	fi
	out=$(pkt_xchg --tag sl0 $S --segs fc00:9::c1,fc00:100::51 --sl 0)
	expect_fields "at SL 0: srv6d's Parameter Problem code 4 (the kernel would drop)" \
		"$out" gen icmp6.type=4 icmp6.code=4 ip6.src=fc00:100::51
	g ip -6 nexthop replace id 51 encap seg6local action End.DT6 table 100 dev gw1 ||
		fail "object 51 replaced"
	if wait_for "any(e['sid'] == 'fc00:100::51/128' and e['behavior'] == 'End.DT6' for e in s['sids'])"; then
		pass "object 51 replaced by End.DT6 table 100: the SID follows"
	else
		fail "SID fc00:100::51/128 did not follow its object"
	fi
	g ip -6 nexthop del id 51
	if wait_for "not any(e['sid'] == 'fc00:100::51/128' for e in s['sids'])"; then
		pass "object 51 deleted: the SID goes"
	else
		fail "SID fc00:100::51/128 still there"
	fi
fi

expect_eq "the route mirror: no message it could not apply" \
	"$(ctl_get "(s['mirror']['errors'], s['mirror']['last_error'])")" "(0, None)"

srv6d_stop || fail "srv6d stop"
ns_finish
