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
# seg6local End route (no blackhole), a stale rule and route of the range
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
for c in iperf3 ethtool nstat tcpdump tshark; do
	command -v "$c" >/dev/null || skip_test "$c not found"
done
BASE=$((0x5d6f0000))	# mark-base's default
PRIO=1000		# rule-priority's default
M1=$((BASE + 0xffff))	# fc00:100::1's mark (the first from the top)
M2=$((BASE + 0xfffe))	# fc00:100::2's

nstat_abs() {	# NS COUNTER
	nsx "$1" nstat -az "$2" 2>/dev/null | awk -v c="$2" '$1 == c { print $2 + 0 }'
}

# range_objects: gw's IPv6 rules and routes in srv6d's range, one a line
# ("rule MARK TABLE", "route TABLE ROUTE..."), sorted.
range_objects() {
	{ ip -n "$GW" -6 rule show | sed 's/^/rule /'
	  ip -n "$GW" -6 route show table all | sed 's/^/route /'
	  ip -n "$GW" -4 rule show | sed 's/^/rule /'; } | "$PYTHON" -c '
import sys
b, out = int(sys.argv[1]), []
for line in sys.stdin:
    w = line.split()
    val = lambda k: w[w.index(k) + 1] if k in w[:-1] else None
    if w[0] == "rule":
        m = val("fwmark")
        if m is not None and b <= int(m, 0) < b + 65536:
            out.append("rule %d %s" % (int(m, 0), val("lookup")))
    else:
        t = val("table")
        if t and t.isdigit() and b <= int(t) < b + 65536:
            out.append("route %s %s" % (t, " ".join(w[1:])))
if out:
    print("\n".join(sorted(out)))' "$BASE"
}

route_packets() {	# TABLE: what the seg6local route there counted: "PACKETS ERRORS"
	nsx "$GW" ip -s -6 route show table "$1" | awk '/seg6local/ {
		for (i = 1; i < NF; i++) {
			if ($i == "packets") p = $(i + 1)
			if ($i == "errors") e = $(i + 1)
		}
		print p + 0, e + 0 }'
}

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
nsx "$GW" ethtool -K gw1 tx off >/dev/null 2>&1 || skip_test "ethtool -K gw1 tx off failed"
nsx "$S1" iperf3 -s -D -B fd00:9::1 >/dev/null 2>&1
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"

# A crashed instance's leftovers in the range (srv6d's: protocol 93,
# RTPROT_SRV6D).
nsx "$GW" ip -6 rule add priority $PRIO fwmark $((BASE + 0xfff0)) lookup $((BASE + 0xfff0)) protocol 93 &&
	nsx "$GW" ip -6 route add fc00:100::9/128 encap seg6local action End \
		dev gw1 table $((BASE + 0xfff0)) proto 93 || fail "stale rule and route"

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

objs=$(range_objects)
say "range at start:"; printf '%s\n' "$objs" | sed "s/^/$T:   /"
if printf '%s\n' "$objs" | grep -q "^rule $M1 $M1$" &&
	printf '%s\n' "$objs" | grep -q "^rule $M2 $M2$"; then
	pass "a fwmark rule for each End SID's mark"
else
	fail "fwmark rules: $objs"
fi
for t in "$M1:fc00:100::1" "$M2:fc00:100::2"; do
	r=$(printf '%s\n' "$objs" | grep "^route ${t%%:*} ")
	if [ "$(printf '%s\n' "$r" | wc -l)" = 1 ] &&
		printf '%s\n' "$r" | grep -q "^route ${t%%:*} ${t#*:} encap seg6local action End .*dev srv6d0"; then
		pass "table ${t%%:*}: only ${t#*:}'s seg6local End (dev srv6d0)"
	else
		fail "table ${t%%:*}: $r"
	fi
done
if printf '%s\n' "$objs" | grep -q "$((BASE + 0xfff0))"; then
	fail "the stale rule or route stayed"
else
	pass "the stale rule and route of the range are gone"
fi
read -r on n <<<"$(ctl_get "'%s %d' % (s['kernel_end']['active'], s['kernel_end']['sids'])")"
expect_eq "status: kernel-end on, 2 SIDs" "$on $n" "True 2"
if timeout 5 "$SRV6CTL" -s "$SOCK" status | grep -q "^kernel-end auto: the kernel's End rewrites plain End super-packets (2 End SIDs)"; then
	pass "srv6ctl status says kernel-end is on"
else
	fail "srv6ctl status: $(timeout 5 "$SRV6CTL" -s "$SOCK" status | grep kernel-end)"
fi

# ---- a transfer ----------------------------------------------------------
pcap="$TMPD/kend.pcap"
kd0=$(ctl_get "s['totals']['kend']")
read -r rp0 re0 <<<"$(route_packets $M1)"
csum0=$(nstat_abs "$S1" TcpInCsumErrors)
nsx "$GW" timeout 20 tcpdump -i gw1 -Q out -s 0 -w "$pcap" -c 20000 ip6 >/dev/null 2>&1 &
tp=$!
sleep 1
bytes=$(nsx "$GEN" timeout 15 iperf3 -6 -c fd00:9::1 -t 2 -J 2>/dev/null |
	"$PYTHON" -c 'import json,sys
try: print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))
except Exception: print(0)')
sleep 0.5
kill -INT "$tp" 2>/dev/null
wait "$tp" 2>/dev/null
kd1=$(ctl_get "s['totals']['kend']")
read -r rp1 re1 <<<"$(route_packets $M1)"
csum1=$(nstat_abs "$S1" TcpInCsumErrors)
say "transfer: $bytes bytes, kend $((kd1 - kd0)), the route counted $((rp1 - rp0)) ($((re1 - re0)) errors)"
if [ "${bytes:-0}" -gt 1000000 ]; then pass "the transfer got through ($bytes bytes)"
else fail "transfer: ${bytes:-0} bytes"; fi
if [ $((kd1 - kd0)) -gt 10 ]; then
	pass "srv6d handed $((kd1 - kd0)) super-packets to the kernel's End"
else
	fail "kend counter: $((kd1 - kd0))"
fi
expect_eq "the seg6local route counted what srv6d handed it" $((rp1 - rp0)) $((kd1 - kd0))
expect_eq "the seg6local route counted no error" $((re1 - re0)) 0
expect_eq "s1 counted no TCP checksum error" $((csum1 - csum0)) 0
good=$(tshark -r "$pcap" -o tcp.check_checksum:TRUE \
	-Y 'tcp.len > 0 && tcp.checksum.status == 1 && ipv6.dst == fc00:9::d6 && ipv6.routing.segleft == 0' \
	2>/dev/null | wc -l)
bad=$(tshark -r "$pcap" -o tcp.check_checksum:TRUE \
	-Y 'tcp.len > 0 && (tcp.checksum.status != 1 || ipv6.dst != fc00:9::d6 || ipv6.routing.segleft != 0 || _ws.malformed)' \
	2>/dev/null | wc -l)
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
objs=$(range_objects)
say "range after the reload without fc00:100::1:"; printf '%s\n' "$objs" | sed "s/^/$T:   /"
expect_eq "the reload removed fc00:100::1's rule and route, fc00:100::2 kept its mark" \
	"$(printf '%s\n' "$objs" | awk '{ print $1, $2 }' | tr '\n' ' ')" "route $M2 rule $M2 "
conf fc00:100::2 "kernel-end no" >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload (kernel-end no)"
expect_eq "kernel-end no: nothing of the range" "$(range_objects)" ""
expect_eq "status: kernel-end off, why" \
	"$(ctl_get "'%s %s' % (s['kernel_end']['active'], s['kernel_end']['why'])")" "False kernel-end no"
conf fc00:100::1 fc00:100::2 >"$TMPD/srv6d.conf"
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || fail "reload (back on)"
[ -n "$(range_objects)" ] || fail "kernel-end back on: nothing in the range"
srv6d_stop || fail "srv6d exit"
expect_eq "nothing of the range is left after srv6d stops" "$(range_objects)" ""
ns_finish
