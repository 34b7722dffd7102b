#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# kroutes.sh - `kernel-routes yes`: the kernel's own SRv6 routes, written
# with iproute2 (the netlink contract FRR's zebra uses), become srv6d's
# SIDs and policies: a seg6local End.X route answers as srv6d does (an
# RFC 8986 Parameter Problem where the kernel drops silently), a seg6
# encap route steers; srv6d.conf wins over a kernel route at the same
# SID; what srv6d cannot do is counted.  Then, under a steady UDP stream,
# the encap route is added, its segment list replaced, and deleted: srv6d
# follows each within 100 ms (from the ip command's return to the first
# packet at the sink that shows it) and no packet is lost.  srv6d's
# encapsulations are told from the kernel's by the outer source
# (encap-source fc00:1::2; the kernel would pick gw1's fc00:2::1).
T=kroutes
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d
command -v tcpdump >/dev/null 2>&1 || skip_test "tcpdump not found"

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
MAX_MS=${KROUTES_MAX_MS:-100}

# offload no: this test counts the kernel's SRv6 routes exactly and checks
# what the kernel does alone once srv6d is down.  With offload yes srv6d's
# own kernel-end route (seg6local End in its table) is counted as a kernel
# route of another table (other_table), and kernel-encap sets the kernel's
# ip sr tunsrc to encap-source, which stays after srv6d stops: the kernel's
# own seg6 then uses that source (both found with issue 18, left open).
cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
kernel-routes yes
sid fc00:100::1/128 action End
offload no
EOF

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 fc00:9:5::/64 || fail "NFQUEUE rule"
# Before srv6d starts: an End.X SID (taken at start) and one at the
# file's SID (shadowed: srv6d.conf wins).
nsx "$GW" ip -6 route add fc00:100::3/128 encap seg6local action End.X \
	nh6 fc00:3::2 dev gw1 || fail "seg6local End.X route"
nsx "$GW" ip -6 route add fc00:100::1/128 encap seg6local action End.DT6 \
	table 100 dev gw1 || fail "seg6local route at the file's SID"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# wait_for EXPR: until ctl_get EXPR prints True (2 s at most).
wait_for() {
	local _
	for _ in $(seq 1 40); do
		[ "$(ctl_get "$1" 2>/dev/null)" = True ] && return 0
		sleep 0.05
	done
	return 1
}

# ---- what srv6d took from the kernel at start -------------------------------
expect_eq "End.X from the kernel is srv6d's SID, origin kernel table 254" \
	"$(ctl_get "(sid('fc00:100::3/128')['behavior'], sid('fc00:100::3/128')['origin'], sid('fc00:100::3/128')['kernel_table'], sid('fc00:100::3/128')['nh6'])")" \
	"('End.X', 'kernel', 254, 'fc00:3::2')"
expect_eq "srv6d.conf's SID wins over the kernel route at the same prefix" \
	"$(ctl_get "(sid('fc00:100::1/128')['behavior'], sid('fc00:100::1/128')['origin'], sid('fc00:100::1/128')['line'])")" \
	"('End', 'file', 4)"
expect_eq "status kernel_routes: 2 routes, 1 applied, 1 shadowed" \
	"$(ctl_get "[s['kernel_routes'][k] for k in ('enabled', 'routes', 'applied', 'shadowed', 'unsupported')]")" \
	"[True, 2, 1, 1, 0]"
if grep -q "kernel route seg6local fc00:100::1/128 (table 254) not applied: the same SID is in srv6d.conf (line 4)" "$LOG"; then
	pass "the shadowed route is logged, with srv6d.conf's line"
else
	fail "no log line for the shadowed kernel route"
fi
if "$SRV6CTL" -s "$SOCK" sid | grep -q 'kernel table 254'; then
	pass "srv6ctl sid shows the kernel table"
else
	fail "srv6ctl sid: no 'kernel table 254'"
	"$SRV6CTL" -s "$SOCK" sid
fi

out=$(pkt_xchg --tag kx $S --segs fc00:100::3,fc00:9::c1 $IN6)
exp=$(pkt_build --tag kx $S --segs fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "kernel End.X run by srv6d: leaves toward nh6 (sink2)" "$out" s2 "$exp"
# SL 0 with UDP: Linux's seg6local drops it silently; srv6d answers.
out=$(pkt_xchg --tag kxsl0 $S --segs fc00:9::c1,fc00:100::3 --sl 0)
expect_fields "kernel End.X at SL 0: srv6d's Parameter Problem code 4 (the kernel would drop)" \
	"$out" gen icmp6.type=4 icmp6.code=4 ip6.src=fc00:100::3
expect_eq "the kernel SID's counters are srv6d's (packets, errors)" \
	"$(ctl_get "(sid('fc00:100::3/128')['packets'], sid('fc00:100::3/128')['errors'])")" \
	"(1, 1)"

# What srv6d cannot do: counted, never applied.
nsx "$GW" ip -6 route add fc00:9:6::/64 encap seg6 mode l2encap \
	segs fc00:9::a1 dev gw1 2>/dev/null ||
	nsx "$GW" ip -6 route add fc00:100::f/128 encap seg6local action End.DX2 \
		oif gw2 dev gw1 table 200 || fail "a route srv6d does not apply"
if wait_for "s['kernel_routes']['unsupported'] + s['kernel_routes']['other_table'] + s['kernel_routes']['policies_unsupported'] == 1"; then
	pass "a kernel route srv6d cannot apply is counted, not applied"
else
	fail "unsupported route not counted: $(ctl_get "s['kernel_routes']")"
fi
before_other=$(ctl_get "s['kernel_routes']['other_table']")

# A seg6 route of another table is a policy of that table (a tenant's);
# a seg6local route there is not a SID (counted as other_table).
nsx "$GW" ip -6 route add fc00:9:7::/64 encap seg6 mode encap \
	segs fc00:9::a1 dev gw1 table 200 || fail "seg6 route in table 200"
nsx "$GW" ip -6 route add fc00:100::e/128 encap seg6local action End \
	dev gw1 table 200 || fail "seg6local route in table 200"
if wait_for "[(p['table'], p['origin'], p['kernel_table']) for p in s['policies'] if p['prefix'] == 'fc00:9:7::/64'] == [(200, 'kernel', 200)] and not any(e['sid'] == 'fc00:100::e/128' for e in s['sids'])"; then
	pass "a seg6 route of table 200 is a policy of table 200; a seg6local one is no SID"
else
	fail "table 200: $(ctl_get "[p for p in s['policies'] if p['prefix'] == 'fc00:9:7::/64']")"
fi
expect_eq "status kernel_routes: the seg6local route of table 200 is other_table" \
	"$(ctl_get "s['kernel_routes']['other_table'] - ($before_other)")" 1
nsx "$GW" ip -6 route del fc00:9:7::/64 table 200
nsx "$GW" ip -6 route del fc00:100::e/128 table 200

# A binding SID: its policy is the route's SRH.
nsx "$GW" ip -6 route add fc00:100::b6/128 encap seg6local action End.B6.Encaps \
	srh segs fc00:9::d1,fc00:9::d2 dev gw1 || fail "End.B6.Encaps route"
if wait_for "any(e['sid'] == 'fc00:100::b6/128' and e['policy']['lists'][0]['segs'] == ['fc00:9::d1', 'fc00:9::d2'] for e in s['sids'])"; then
	pass "an End.B6.Encaps route is srv6d's binding SID, its SRH the policy"
else
	fail "End.B6.Encaps route not applied"
fi
out=$(pkt_xchg --tag kb6 $S --segs fc00:100::b6,fc00:9::c1 $IN6)
expect_fields "its packets: encapsulated by srv6d toward fc00:9::d1 (sink1)" "$out" s1 \
	ip6.src=fc00:1::2 ip6.dst=fc00:9::d1 srh.segs=fc00:9::d2,fc00:9::d1

# ---- a seg6local SID added and deleted at run time --------------------------
nsx "$GW" ip -6 route add fc00:100::4/128 encap seg6local action End.T \
	table 100 dev gw1 || fail "End.T route"
if wait_for "any(e['sid'] == 'fc00:100::4/128' and e['behavior'] == 'End.T' for e in s['sids'])"; then
	pass "an End.T route added at run time is srv6d's SID"
else
	fail "End.T route not applied"
fi
out=$(pkt_xchg --tag kt $S --segs fc00:100::4,fc00:9::c1 $IN6)
exp=$(pkt_build --tag kt $S --segs fc00:100::4,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "its packets: srv6d's End.T (table 100: sink2)" "$out" s2 "$exp"
nsx "$GW" ip -6 route del fc00:100::4/128 || fail "End.T route del"
if wait_for "not any(e['sid'] == 'fc00:100::4/128' for e in s['sids'])"; then
	pass "deleted: srv6d's SID is gone"
else
	fail "End.T SID still there after the route's deletion"
fi

# A seg6 encap route's policy lives with the route in the mirror (no
# rebuild): listed with its origin, table and counters.
rb=$(ctl_get "s['kernel_routes']['rebuilds']")
nsx "$GW" ip -6 route add fc00:9:5::/64 encap seg6 mode encap \
	segs fc00:9::a1,fc00:9::a2 dev gw1 || fail "seg6 route add"
if wait_for "any(p['prefix'] == 'fc00:9:5::/64' for p in s['policies'])"; then
	out=$(pkt_xchg --tag kp $S --dst fc00:9:5::1)
	expect_fields "the kernel route's policy encapsulates (srv6d's source)" \
		"$out" s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::a1 srh.segs=fc00:9::a2,fc00:9::a1
	expect_eq "srv6ctl policy: origin kernel, table 254, its counters" \
		"$(ctl_get "[(p['origin'], p['table'], p['kernel_table'], p['mode'], p['lists'][0]['segs'], p['packets'], p['errors']) for p in s['policies'] if p['prefix'] == 'fc00:9:5::/64']")" \
		"[('kernel', 254, 254, 'encap', ['fc00:9::a1', 'fc00:9::a2'], 1, 0)]"
	expect_eq "status kernel_routes: 1 kernel policy, no rebuild for it" \
		"$(ctl_get "(s['kernel_routes']['policies'], s['kernel_routes']['rebuilds'] - $rb)")" "(1, 0)"
else
	fail "the kernel seg6 route is not listed: $(ctl_get "s['policies']")"
fi
if "$SRV6CTL" -s "$SOCK" policy | grep 'fc00:9:5::/64' | grep -q 'kernel table 254'; then
	pass "srv6ctl policy shows the kernel route's policy and table"
else
	fail "srv6ctl policy: no 'fc00:9:5::/64 ... kernel table 254'"
	"$SRV6CTL" -s "$SOCK" policy
fi
nsx "$GW" ip -6 route del fc00:9:5::/64 || fail "seg6 route del"
if wait_for "not any(p['prefix'] == 'fc00:9:5::/64' for p in s['policies']) and s['kernel_routes']['policies'] == 0"; then
	pass "deleted: the kernel route's policy is gone"
else
	fail "the kernel route's policy is still listed"
fi

# ---- a seg6 encap route under traffic: add, replace, delete ------------------
cat >"$TMPD/send.py" <<'EOF'
# Send UDP datagrams numbered 0.. to fc00:9:5::1 for $1 seconds, one per
# $2 ms; print how many were sent.
import socket, struct, sys, time
secs, gap = float(sys.argv[1]), float(sys.argv[2]) / 1000
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
n, t0 = 0, time.monotonic()
while time.monotonic() - t0 < secs:
    s.sendto(struct.pack("!Q", n) + b"x" * 32, ("fc00:9:5::1", 5555))
    n += 1
    nxt = t0 + n * gap
    d = nxt - time.monotonic()
    if d > 0:
        time.sleep(d)
print(n)
EOF
cat >"$TMPD/read.py" <<'EOF'
# The capture, one line per datagram: time seq outer-src outer-dst
# (outer-dst "plain" when not encapsulated).
import struct, sys
from scapy.all import rdpcap, IPv6, UDP
for p in rdpcap(sys.argv[1]):
    if UDP not in p or p[UDP].dport != 5555:
        continue
    seq = struct.unpack("!Q", bytes(p[UDP].payload)[:8])[0]
    ip = p[IPv6]
    enc = isinstance(ip.payload, IPv6) or ip.nh in (41, 43)
    print("%.6f %d %s %s" % (float(p.time), seq, ip.src,
                             ip.dst if enc else "plain"))
EOF

nsx "$S1" tcpdump -i s1 -w "$TMPD/s1.pcap" -U -s 200 --time-stamp-precision=nano \
	udp port 5555 or ip6 proto 43 or ip6 proto 41 >"$TMPD/tcpdump.log" 2>&1 &
TCPDUMP_PID=$!
for _ in $(seq 1 50); do
	grep -q listening "$TMPD/tcpdump.log" && break
	sleep 0.1
done
nsx "$GEN" "$PYTHON" "$TMPD/send.py" 3 1 >"$TMPD/sent" &
SEND_PID=$!
stamp() { date +%s.%N; }
sleep 0.5
t_add=$(stamp)
nsx "$GW" ip -6 route add fc00:9:5::/64 encap seg6 mode encap \
	segs fc00:9::a1,fc00:9::a2 dev gw1 || fail "seg6 route add"
d_add=$(stamp)
sleep 0.8
t_rep=$(stamp)
nsx "$GW" ip -6 route replace fc00:9:5::/64 encap seg6 mode encap \
	segs fc00:9::b1,fc00:9::b2 dev gw1 || fail "seg6 route replace"
d_rep=$(stamp)
sleep 0.8
t_del=$(stamp)
nsx "$GW" ip -6 route del fc00:9:5::/64 || fail "seg6 route del"
d_del=$(stamp)
wait "$SEND_PID"
sleep 0.3
kill "$TCPDUMP_PID" 2>/dev/null
wait "$TCPDUMP_PID" 2>/dev/null
sent=$(cat "$TMPD/sent")
"$PYTHON" "$TMPD/read.py" "$TMPD/s1.pcap" >"$TMPD/recv" 2>"$TMPD/read.err"

# first_after T OUTER-SRC OUTER-DST: ms from T to the first datagram with
# that outer source and destination ("plain": not encapsulated).
first_after() {
	awk -v t="$1" -v src="$2" -v dst="$3" '
		$1 >= t && ($4 == dst) && (dst == "plain" || $3 == src) {
			printf "%.1f\n", ($1 - t) * 1000; exit }' "$TMPD/recv"
}
# Asserted from the ip command's return (the kernel has the change and
# has told its listeners); from before it, printed: on a loaded machine
# starting ip in the namespace alone can take 100 ms.
ms_add=$(first_after "$d_add" fc00:1::2 fc00:9::a1)
ms_rep=$(first_after "$d_rep" fc00:1::2 fc00:9::b1)
ms_del=$(first_after "$d_del" fc00:1::1 plain)
say "sent $sent datagrams; at the sink: $(awk '{ print $3 "->" $4 }' "$TMPD/recv" | sort | uniq -c | tr '\n' ';')"
say "srv6d followed, from before the ip command: add $(first_after "$t_add" fc00:1::2 fc00:9::a1) ms, replace $(first_after "$t_rep" fc00:1::2 fc00:9::b1) ms, delete $(first_after "$t_del" fc00:1::1 plain) ms"
say "srv6d followed, from the ip command's return: add ${ms_add:-never} ms, replace ${ms_rep:-never} ms, delete ${ms_del:-never} ms"
for x in "add:$ms_add" "replace:$ms_rep" "delete:$ms_del"; do
	v=${x#*:}
	if [ -n "$v" ] && awk -v v="$v" -v m="$MAX_MS" 'BEGIN { exit !(v < m) }'; then
		pass "${x%%:*} of the seg6 route in force in srv6d within $MAX_MS ms ($v ms)"
	else
		fail "${x%%:*} of the seg6 route: not in srv6d within $MAX_MS ms (${v:-never})"
	fi
done
# Until srv6d has the new route, the packets it lets through unchanged
# meet the kernel's own copy of it: the kernel encapsulates those (with
# its own source).  None after.
t_srv6d=$(awk -v t="$d_add" -v ms="${ms_add:-0}" 'BEGIN { printf "%.6f", t + ms / 1000 }')
window=$(awk -v t="$t_add" -v u="$t_srv6d" '$1 >= t && $1 < u && $3 != "fc00:1::2" && $4 != "plain"' "$TMPD/recv" | wc -l)
after=$(awk -v u="$t_srv6d" '$1 >= u && $3 != "fc00:1::2" && $4 != "plain"' "$TMPD/recv" | wc -l)
say "the kernel's copy encapsulated $window datagrams before srv6d had the route"
expect_eq "no encapsulation by the kernel's copy once srv6d has the route" \
	"$after" 0
recv=$(wc -l <"$TMPD/recv")
uniq_seq=$(awk '{ print $2 }' "$TMPD/recv" | sort -n | uniq | wc -l)
expect_eq "every datagram reached the sink once, across add, replace and delete" \
	"$recv/$uniq_seq" "$sent/$sent"
expect_eq "srv6d rebuilt with no failure" \
	"$(ctl_get "s['kernel_routes']['rebuild_failures']")" 0

# ---- srv6d down, steering with --queue-bypass: the kernel's own copy ---------
nfq_flush
for p in fc00:100::/32 fc00:9:5::/64; do
	nsx "$GW" ip6tables -t raw -A PREROUTING ! -i srv6d+ -d "$p" \
		-j NFQUEUE --queue-num 0 --queue-bypass || fail "bypass rule"
done
nsx "$GW" ip -6 route add fc00:9:5::/64 encap seg6 mode encap \
	segs fc00:9::a1,fc00:9::a2 dev gw1 || fail "seg6 route add"
srv6d_stop || fail "srv6d stop"
out=$(pkt_xchg --tag down6 $S --dst fc00:9:5::1)
expect_fields "srv6d down: the kernel's seg6 route encapsulates (its own source)" \
	"$out" s1 ip6.src=fc00:2::1 ip6.dst=fc00:9::a1 srh.segs=fc00:9::a2,fc00:9::a1
out=$(pkt_xchg --tag kx $S --segs fc00:100::3,fc00:9::c1 $IN6)
exp=$(pkt_build --tag kx $S --segs fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "srv6d down: the kernel's End.X, the same bytes as srv6d's" "$out" s2 "$exp"
out=$(pkt_xchg --tag kxsl0 $S --segs fc00:9::c1,fc00:100::3 --sl 0)
expect_none "srv6d down: End.X at SL 0 dropped silently by the kernel (no Parameter Problem)" "$out"

ns_finish
