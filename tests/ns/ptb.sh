#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# ptb.sh - the route mirror on the packet path, on a real kernel:
#  - H.Encaps past the egress MTU: the sender gets ICMPv6 Packet Too Big /
#    ICMP Fragmentation Needed with the MTU left for it (egress MTU minus
#    the encapsulation), from the gateway's own address on the ingress link
#    (RFC 4443 2.2, RFC 1812 4.3.2.4; not the steered packet's remote
#    destination), accepted by the gateway's kernel with strict rp_filter
#    on that link, and the sender's kernel learns that path MTU;
#  - iperf3 TCP through the tunnel with 1500-byte MTUs everywhere completes
#    (path MTU discovery works: without the errors it would stall);
#  - End.X whose next hop has lost its carrier: counted drop, ICMPv6
#    Destination Unreachable (address unreachable);
#  - End.T with a table that does not exist: counted drop, nothing sent.
# The tunnel: gen -> gw (srv6d, H.Encaps to fc00:9::d6) -> sink1, whose
# kernel decapsulates (seg6local End.DT6 in its local table: the legacy
# End.DT6 looks in that one table only) and holds the iperf3 server on
# fc00:99::1; the replies come back by plain routing.
T=ptb
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 180
need_srv6d
command -v iperf3 >/dev/null 2>&1 || skip_test "iperf3 not found"

cat >"$TMPD/srv6d.conf" <<EOF2
queue 0
route fc00:99::/64 encap seg6 mode encap segs fc00:9::d6
route 10.99.0.0/24 encap seg6 mode encap segs fc00:9::d6
sid fc00:9:f0::5 action End.X nh6 fc00:3::2 oif gw2
sid fc00:9:f0::7 action End.T table 4242
EOF2

ns_setup || { fail "topology setup"; ns_finish; }
# sink1: the decapsulating SID and the server's addresses.
if ! ip -n "$S1" -6 route add fc00:9::d6/128 encap seg6local action End.DT6 \
	table 255 dev s1 ||
	! ip -n "$S1" addr add fc00:99::1/128 dev lo ||
	! ip -n "$S1" addr add 10.99.0.1/32 dev lo; then
	fail "sink1 setup"
	ns_finish
fi
# Strict reverse path filtering on the ingress: an error from the steered
# packet's destination (10.99.0.1, not routed via gw0) would be a martian.
# The error's source is gw0's own 192.0.2.2: srv6d sends it as the
# gateway's own packet (raw socket), not as the verdict, so no
# accept_local is needed (docs/design.md "ICMP errors").
if ! nsx "$GW" sysctl -q -w net.ipv4.conf.gw0.rp_filter=1 \
	net.ipv4.conf.gw0.accept_local=0 >/dev/null; then
	fail "rp_filter=1 on gw0"
fi
# The gateway's own global address for the outer source: gw1's fc00:2::1.
if ! nfq_steer6 fc00:99::/64 fc00:9:f0::/48 || ! nfq_steer4 10.99.0.0/24; then
	fail "NFQUEUE rules"
fi
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# ---- the mirror, as srv6ctl shows it ------------------------------------------
out=$(nsx "$GW" "$SRV6CTL" -s "$SOCK" route get fc00:9::d6 2>&1)
if [[ "$out" == *"via fc00:2::2 dev ${PFX}"* || "$out" == *"via fc00:2::2 dev gw1"* ]] &&
	[[ "$out" == *"src fc00:2::1"* && "$out" == *"mtu 1500"* ]]; then
	pass "srv6ctl route get fc00:9::d6: via fc00:2::2 dev gw1 src fc00:2::1 mtu 1500"
else
	fail "srv6ctl route get fc00:9::d6: $out"
fi
synced=$(ctl_get "s['mirror']['synced']")
expect_eq "srv6ctl status: the mirror is synced" "$synced" True

# ---- Packet Too Big / Fragmentation Needed, byte level ---------------------------
# 1460 + 40 + 8 + 16 (one segment) = 1524 > 1500: MTU 1500 - 64 = 1436.
out=$(pkt_xchg --tag ptb --src fc00:1::1 --dst fc00:99::1 --pad 1402)
expect_fields "1460-byte IPv6 packet, H.Encaps past MTU 1500: Packet Too Big, MTU 1436, from gw0's fc00:1::2" \
	"$out" gen icmp6.type=2 icmp6.code=0 icmp6.mtu=1436 ip6.src=fc00:1::2 \
	ip6.dst=fc00:1::1
out=$(pkt_xchg --tag ptb4 --v4 --src 192.0.2.1 --dst 10.99.0.1 --pad 1421)
expect_fields "1460-byte IPv4 DF packet, H.Encaps past MTU 1500, rp_filter=1: Fragmentation Needed, MTU 1436, from gw0's 192.0.2.2" \
	"$out" gen icmp.type=3 icmp.code=4 icmp.mtu=1436 ip4.src=192.0.2.2 \
	ip4.dst=192.0.2.1
# (sink1's Port Unreachable for the UDP packet comes back to gen too.)
out=$(pkt_xchg --tag fit --src fc00:1::1 --dst fc00:99::1 --pad 1378 | grep '^s1 ')
expect_fields "1436-byte IPv6 packet: encapsulated (1500 bytes), source fc00:2::1 (no encap-source)" \
	"$out" s1 ip6.src=fc00:2::1 ip6.dst=fc00:9::d6
expect_eq "policy fc00:99::/64 counted 1 too_big" \
	"$(ctl_get "drop(pol('fc00:99::/64'), 'too_big')")" 1

# ---- the sender's kernel learns the path MTU --------------------------------------
nsx "$GEN" ping -6 -c 1 -W 1 -M "do" -s 1452 fc00:99::1 >/dev/null 2>&1
if nsx "$GEN" ip -6 route get fc00:99::1 | grep -q "mtu 1436"; then
	pass "ping -M do 1500 bytes: gen's kernel caches path MTU 1436 to fc00:99::1"
else
	fail "gen's route to fc00:99::1 has no mtu 1436: $(nsx "$GEN" ip -6 route get fc00:99::1)"
fi
nsx "$GEN" ping -c 1 -W 1 -M "do" -s 1472 10.99.0.1 >/dev/null 2>&1
if nsx "$GEN" ip route get 10.99.0.1 | grep -q "mtu 1436"; then
	pass "IPv4 ping -M do 1500 bytes: gen's kernel caches path MTU 1436 to 10.99.0.1"
else
	fail "gen's route to 10.99.0.1 has no mtu 1436: $(nsx "$GEN" ip route get 10.99.0.1)"
fi
if nsx "$GEN" ping -6 -c 2 -W 2 -s 1300 fc00:99::1 >/dev/null 2>&1; then
	pass "ping through the tunnel (1348 bytes) gets its replies"
else
	fail "ping through the tunnel: no reply"
fi

# ---- iperf3 TCP through the tunnel -----------------------------------------------
nsx "$S1" iperf3 -s -1 -B fc00:99::1 -p 5299 >"$TMPD/iperf-s.log" 2>&1 &
sleep 0.5
nsx "$GEN" ip -6 route flush cache >/dev/null 2>&1
if nsx "$GEN" timeout 30 iperf3 -c fc00:99::1 -p 5299 -t 3 -J >"$TMPD/iperf.json" 2>&1; then
	bytes=$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(d["end"]["sum_received"]["bytes"]))' "$TMPD/iperf.json" 2>/dev/null)
	mss=$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["start"]["tcp_mss_default"])' "$TMPD/iperf.json" 2>/dev/null)
	say "iperf3: ${bytes:-?} bytes received in 3 s (initial MSS ${mss:-?})"
	if [ -n "$bytes" ] && [ "$bytes" -gt 1000000 ]; then
		pass "iperf3 TCP, 1500-byte MTUs, through H.Encaps: ${bytes} bytes in 3 s"
	else
		fail "iperf3 TCP through the tunnel moved ${bytes:-no} bytes"
	fi
else
	fail "iperf3 TCP through the tunnel did not complete"
	sed 's/^/    /' "$TMPD/iperf.json" | tail -5
fi

# ---- End.X: its oif down ------------------------------------------------------------
out=$(pkt_xchg --tag endxup --src fc00:1::1 --segs fc00:9:f0::5,fc00:9::c1)
expect_fields "End.X, oif gw2 up: to sink2" "$out" s2 ip6.dst=fc00:9::c1
ip -n "$GW" link set gw2 down
sleep 0.3	# the mirror applies the event
out=$(pkt_xchg --tag endxdown --src fc00:1::1 --segs fc00:9:f0::5,fc00:9::c1)
expect_fields "End.X, oif gw2 down: ICMPv6 Destination Unreachable, code 3 (address unreachable)" \
	"$out" gen icmp6.type=1 icmp6.code=3 ip6.dst=fc00:1::1 in1.ip6.dst=fc00:9:f0::5
expect_eq "End.X counted 1 nexthop_unreachable" \
	"$(ctl_get "drop(sid('fc00:9:f0::5/128'), 'nexthop_unreachable')")" 1

# ---- End.T: the table does not exist --------------------------------------------------
out=$(pkt_xchg --tag endtnotable --src fc00:1::1 --segs fc00:9:f0::7,fc00:9::c1)
expect_none "End.T with table 4242 that does not exist: dropped, nothing sent" "$out"
expect_eq "End.T counted 1 no_table" \
	"$(ctl_get "drop(sid('fc00:9:f0::7/128'), 'no_table')")" 1

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
