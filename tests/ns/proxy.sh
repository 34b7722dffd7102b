#!/bin/bash
# proxy.sh - the SR proxies End.AS, End.AD and End.AM (draft-ietf-spring-
# sr-service-programming-10 6.1, 6.2, 6.4) with a real SR-unaware service
# in its own namespace, TCP (iperf3) through the chain both ways.
#
#   gen g0 ---- gw0 gw gw1 ---- s1 sink
#                   pa  pb
#                   |    |
#                   sa  sb
#                   svc (forwards; then a NAT or a rewriting firewall)
#
# gen (client 10.98.0.1, fc00:98::1 on lo) and sink (server 10.99.0.1,
# fc00:99::1) are SR endpoints with the kernel's seg6: gen encapsulates to
# the gateway's proxy SID fc00:a1::1, sink to fc00:a1::2, and each
# decapsulates its own End.DX4 and End.DT6 (table local) SIDs
# (fc00:5::d4 and ::d6 at gen, fc00:6::d4 and ::d6 at sink).  At the
# gateway srv6d proxies: fc00:a1::1 sends the inner packet
# to the service on pa and takes it back on pb, fc00:a1::2 the other way
# (pb out, pa back), and re-encapsulates toward the far end's SID (End.AS,
# IPv4 and IPv6 on the same interfaces: configured; End.AD: learned); End.AM
# (IPv6, H.Insert'ed TCP from gen and
# sink) shows the service the packet to its final destination and puts
# the SID back.  srv6d's own steering (steering auto) queues what the
# service sends back (its iif rules).  End.AS with lists of two segments
# through the NAT: its Packet Too Big goes back into the service, which
# translates it for the sender behind it.  Then the bad cases: a service that
# returns garbage (another family, an SRH gone) or nothing: counted drops,
# srv6d alive.
T=proxy
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 300
need_srv6d
need_tools iperf3

SVC="$PFX-svc"
export STEERING=auto

# ---- topology -----------------------------------------------------------------
topo() {
	local ns
	for ns in "$GEN" "$GW" "$S1" "$SVC"; do
		ip netns add "$ns" || return 1
		NS_LIST+=("$ns")
		ip -n "$ns" link set lo up
		_sysctls "$ns" net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.all.accept_ra=0 \
			net.ipv6.conf.default.accept_ra=0 \
			net.ipv6.conf.all.seg6_enabled=1 \
			net.ipv6.conf.default.seg6_enabled=1 \
			net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 || return 1
	done
	_sysctls "$GW" net.ipv6.conf.all.forwarding=1 net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.send_redirects=0 \
		net.ipv4.conf.default.send_redirects=0 || return 1
	_sysctls "$SVC" net.ipv6.conf.all.forwarding=1 net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.send_redirects=0 \
		net.ipv4.conf.default.send_redirects=0 || return 1
	_link "$GEN" g0 02:00:00:00:01:01 "$GW" gw0 02:00:00:00:01:02 &&
	_link "$GW" gw1 02:00:00:00:02:01 "$S1" s1 02:00:00:00:02:02 &&
	_link "$GW" pa 02:00:00:00:0a:01 "$SVC" sa 02:00:00:00:0a:02 &&
	_link "$GW" pb 02:00:00:00:0b:01 "$SVC" sb 02:00:00:00:0b:02 || return 1
	_addr "$GEN" g0 fc00:1::1/64 192.0.2.1/24 &&
	_addr "$GW" gw0 fc00:1::2/64 192.0.2.2/24 &&
	_addr "$GW" gw1 fc00:2::1/64 198.51.100.1/24 &&
	_addr "$S1" s1 fc00:2::2/64 198.51.100.2/24 &&
	_addr "$GW" pa fc00:a::1/64 10.10.1.1/24 &&
	_addr "$SVC" sa fc00:a::2/64 10.10.1.2/24 &&
	_addr "$GW" pb fc00:b::1/64 10.10.2.1/24 &&
	_addr "$SVC" sb fc00:b::2/64 10.10.2.2/24 &&
	_addr "$GEN" lo fc00:98::1/128 10.98.0.1/32 &&
	_addr "$S1" lo fc00:99::1/128 10.99.0.1/32 || return 1
	_neigh "$GEN" g0 fc00:1::2 02:00:00:00:01:02 &&
	_neigh "$GW" gw0 fc00:1::1 02:00:00:00:01:01 &&
	_neigh "$GW" gw1 fc00:2::2 02:00:00:00:02:02 &&
	_neigh "$S1" s1 fc00:2::1 02:00:00:00:02:01 &&
	_neigh "$GW" pa fc00:a::2 02:00:00:00:0a:02 &&
	_neigh "$GW" pa 10.10.1.2 02:00:00:00:0a:02 &&
	_neigh "$SVC" sa fc00:a::1 02:00:00:00:0a:01 &&
	_neigh "$SVC" sa 10.10.1.1 02:00:00:00:0a:01 &&
	_neigh "$GW" pb fc00:b::2 02:00:00:00:0b:02 &&
	_neigh "$GW" pb 10.10.2.2 02:00:00:00:0b:02 &&
	_neigh "$SVC" sb fc00:b::1 02:00:00:00:0b:01 &&
	_neigh "$SVC" sb 10.10.2.1 02:00:00:00:0b:01 || return 1
	ip -n "$GEN" -6 route add default via fc00:1::2 &&
	ip -n "$S1" -6 route add default via fc00:2::1 &&
	ip -n "$GW" -6 route add fc00:5::/64 via fc00:1::1 dev gw0 &&
	ip -n "$GW" -6 route add fc00:98::/64 via fc00:1::1 dev gw0 &&
	ip -n "$GW" -6 route add fc00:6::/64 via fc00:2::2 dev gw1 &&
	ip -n "$GW" -6 route add fc00:99::/64 via fc00:2::2 dev gw1 || return 1
	# the service: the client's side on sa, the server's on sb
	ip -n "$SVC" route add 10.98.0.0/24 via 10.10.1.1 dev sa &&
	ip -n "$SVC" route add 10.99.0.0/24 via 10.10.2.1 dev sb &&
	ip -n "$SVC" -6 route add fc00:98::/64 via fc00:a::1 dev sa &&
	ip -n "$SVC" -6 route add fc00:99::/64 via fc00:b::1 dev sb || return 1
	# the far ends decapsulate their End.DX4 SIDs to themselves
	ip -n "$GEN" -6 route add fc00:5::d4/128 encap seg6local action \
		End.DX4 nh4 10.98.0.1 dev g0 &&
	ip -n "$S1" -6 route add fc00:6::d4/128 encap seg6local action \
		End.DX4 nh4 10.99.0.1 dev s1 &&
	ip -n "$GEN" -6 route add fc00:5::d6/128 encap seg6local action \
		End.DT6 table local dev g0 &&
	ip -n "$S1" -6 route add fc00:6::d6/128 encap seg6local action \
		End.DT6 table local dev s1 || return 1
	_wait_up "$GEN" g0 && _wait_up "$GW" gw0 && _wait_up "$GW" gw1 &&
	_wait_up "$S1" s1 && _wait_up "$GW" pa && _wait_up "$GW" pb &&
	_wait_up "$SVC" sa && _wait_up "$SVC" sb
}

# tunnels4 SEGS_TO_SERVER SEGS_TO_CLIENT: the far ends' IPv4 seg6 routes
# (the NAT's address 10.10.2.2 goes the client's way too).
tunnels4() {
	ip -n "$GEN" route replace 10.99.0.0/24 encap seg6 mode encap \
		segs "$1" dev g0 &&
	ip -n "$S1" route replace 10.98.0.0/24 encap seg6 mode encap \
		segs "$2" dev s1 &&
	ip -n "$S1" route replace 10.10.2.0/24 encap seg6 mode encap \
		segs "$2" dev s1
}

# tunnels6 SEGS_TO_SERVER SEGS_TO_CLIENT: the same for IPv6 (the NAT's
# fc00:b::2 the client's way too).
tunnels6() {
	ip -n "$GEN" -6 route replace fc00:99::/64 encap seg6 mode encap \
		segs "$1" via fc00:1::2 dev g0 &&
	ip -n "$S1" -6 route replace fc00:98::/64 encap seg6 mode encap \
		segs "$2" via fc00:2::1 dev s1 &&
	ip -n "$S1" -6 route replace fc00:b::/64 encap seg6 mode encap \
		segs "$2" via fc00:2::1 dev s1
}

# iperf_both ARGS...: a 2 s transfer gen -> sink, then sink -> gen (-R);
# prints "BYTES BYTES_R".
iperf_both() {
	local a b
	a=$(nsx "$GEN" timeout 15 iperf3 "$@" -t 2 -J 2>/dev/null |
		"$PYTHON" -c 'import json,sys
try: print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))
except Exception: print(0)')
	b=$(nsx "$GEN" timeout 15 iperf3 "$@" -t 2 -R -J 2>/dev/null |
		"$PYTHON" -c 'import json,sys
try: print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))
except Exception: print(0)')
	echo "$a $b"
}

# sid_field SID EXPR: EXPR over the SID's status entry `e`.
sid_field() {
	ctl_get "(lambda e: $2)(sid('$1'))"
}

# check_tcp WHAT ARGS...: iperf3 both ways, more than 1 MB each.
check_tcp() {
	local what=$1 r
	shift
	r=$(iperf_both "$@")
	say "$what: ${r% *} bytes to the server, ${r#* } back"
	if [ "${r% *}" -gt 1000000 ] && [ "${r#* }" -gt 1000000 ]; then
		pass "$what: TCP through the service both ways"
	else
		fail "$what: TCP both ways ($r bytes)"
	fi
}

# no_errors WHAT SID...: the SIDs processed packets and dropped none.
no_errors() {
	local what=$1 s p e
	shift
	for s in "$@"; do
		p=$(sid_field "$s" "e['packets']")
		e=$(sid_field "$s" "e['errors']")
		if [ "$p" -gt 100 ] && [ "$e" -eq 0 ]; then
			pass "$what: $s: $p packets, no drop"
		else
			fail "$what: $s: $p packets, $e dropped: $(sid_field "$s" "e['drops']")"
		fi
	done
}

svc_nat4() {
	nsx "$SVC" iptables -t nat -A POSTROUTING -o sb -j MASQUERADE
}

svc_nat6() {
	nsx "$SVC" ip6tables -t nat -A POSTROUTING -o sb -j MASQUERADE
}

svc_plain() {
	nsx "$SVC" iptables -t nat -F
	nsx "$SVC" ip6tables -t nat -F
	nsx "$SVC" ip6tables -t mangle -F
	nsx "$SVC" ip6tables -F
}

# drop_seen WHAT SID REASON BEFORE: the SID's count of REASON went up.
drop_seen() {
	local n
	n=$(sid_field "$2" "e['drops'].get('$3', 0)")
	if [ "$n" -gt "$4" ]; then
		pass "$1: counted as $3 ($n)"
	else
		fail "$1: not counted as $3 ($n, before $4)"
	fi
}

alive() {
	if kill -0 "$SRV6D_PID" 2>/dev/null && ctl_json >/dev/null; then
		pass "$1: srv6d alive and answering"
	else
		fail "$1: srv6d died"
	fi
}

# send_from_svc IFACE SCAPY-PACKET: one packet out of the service's IFACE.
send_from_svc() {
	nsx "$SVC" "$PYTHON" -c "
from scapy.all import *
conf.verb = 0
sendp(Ether(src=get_if_hwaddr('$1'), dst='02:00:00:00:0${1#s}:01')/$2, iface='$1', count=3)" 2>/dev/null
}

topo || { fail "topology setup"; ns_finish; }
nsx "$S1" iperf3 -s -D -B 10.99.0.1 >/dev/null 2>&1 &&
	nsx "$S1" iperf3 -s -D -B fc00:99::1 -p 5202 >/dev/null 2>&1 ||
	{ fail "iperf3 servers"; ns_finish; }

# ---- End.AS ---------------------------------------------------------------------
# One source for all (encap-source, the kernel's tunsrc): the way back of
# a TCP super-packet is the kernel's seg6 encapsulation of the list, which
# only srv6d's own source may take (kernel-encap, design.md).
cat >"$TMPD/as.conf" <<EOF
queue 0
steering auto
encap-source fc00:1::2
sid fc00:a1::1/128 action End.AS nh4 10.10.1.2 oif pa iif pb source fc00:1::2 segs fc00:6::d4
sid fc00:a1::2/128 action End.AS nh4 10.10.2.2 oif pb iif pa source fc00:1::2 segs fc00:5::d4
sid fc00:a1::3/128 action End.AS nh6 fc00:a::2 oif pa iif pb source fc00:1::2 segs fc00:6::d6
sid fc00:a1::4/128 action End.AS nh6 fc00:b::2 oif pb iif pa source fc00:1::2 segs fc00:5::d6
EOF
tunnels4 fc00:a1::1 fc00:a1::2 && tunnels6 fc00:a1::3 fc00:a1::4 ||
	fail "seg6 routes"
srv6d_start "$TMPD/as.conf" || { fail "srv6d start (End.AS)"; ns_finish; }
if nsx "$GW" "$SRV6D" -p -c "$TMPD/as.conf" | grep -q 'iifname "pb" queue'; then
	pass "srv6d -p shows the iif rule of the service's way back"
else
	fail "srv6d -p: no iif rule"
fi
if timeout 5 "$SRV6CTL" -s "$SOCK" sid show fc00:a1::1/128 2>&1 |
	grep -q 'iif pb source fc00:1::2 segs fc00:6::d4'; then
	pass "srv6ctl sid shows End.AS's iif, source and segs"
else
	fail "srv6ctl sid: $(timeout 5 "$SRV6CTL" -s "$SOCK" sid show fc00:a1::1/128 2>&1)"
fi
read -r k0 c0 v0 <<<"$(ctl_get "'%d %d %d' % (s['totals']['kencap'], s['totals']['gso_segments'], s['totals']['gso_vnet'])")"
check_tcp "End.AS, forwarding service" -c 10.99.0.1 -B 10.98.0.1
check_tcp "End.AS (IPv6), forwarding service" -6 -c fc00:99::1 -B fc00:98::1 -p 5202
# The way back keeps TCP super-packets whole (issue 22): the kernel's seg6
# encapsulates End.AS's list (kencap, gso_vnet), none cut by srv6d.
read -r k1 c1 v1 <<<"$(ctl_get "'%d %d %d' % (s['totals']['kencap'], s['totals']['gso_segments'], s['totals']['gso_vnet'])")"
say "End.AS way back: kencap +$((k1 - k0)), gso_vnet +$((v1 - v0)), gso_segments +$((c1 - c0))"
if [ $((k1 - k0)) -gt 100 ] && [ "$c1" -eq "$c0" ]; then
	pass "End.AS: super-packets back whole by the kernel's encapsulation ($((k1 - k0))), none cut"
else
	fail "End.AS: super-packets back: kencap +$((k1 - k0)), cut into $((c1 - c0)) segments"
fi
svc_nat4
svc_nat6
check_tcp "End.AS, NAT service (masquerade)" -c 10.99.0.1 -B 10.98.0.1
check_tcp "End.AS (IPv6), NAT service (masquerade)" -6 -c fc00:99::1 -B fc00:98::1 -p 5202
svc_plain
no_errors "End.AS" fc00:a1::1/128 fc00:a1::2/128 fc00:a1::3/128 fc00:a1::4/128
# garbage back: no hop left (pb's IPv6 proxy takes it)
before=$(sid_field fc00:a1::3/128 "e['drops'].get('hop_limit', 0)")
send_from_svc sb "IPv6(src='fc00:98::1', dst='fc00:99::1', hlim=1)/UDP(dport=9)/Raw(b'x'*20)"
sleep 0.5
drop_seen "End.AS: hop limit 1 back" fc00:a1::3/128 hop_limit "$before"
# nothing back: the service stops forwarding
_sysctls "$SVC" net.ipv4.ip_forward=0
p0=$(sid_field fc00:a1::1/128 "e['packets']")
nsx "$GEN" ping -c 5 -i 0.05 -W 1 -I 10.98.0.1 10.99.0.1 >/dev/null 2>&1
p1=$(sid_field fc00:a1::1/128 "e['packets']")
if [ "$p1" -ge $((p0 + 5)) ]; then
	pass "End.AS: a silent service: the packets to it counted ($((p1 - p0))), none back"
else
	fail "End.AS: a silent service: $((p1 - p0)) counted"
fi
alive "End.AS after garbage and silence"
_sysctls "$SVC" net.ipv4.ip_forward=1
srv6d_stop || fail "srv6d stop (End.AS)"

# ---- End.AS with an SRH, through a NAT: the Packet Too Big goes back --------
# Lists of two segments (an End at the far end, then its End.DX4 /
# End.DT6): End.AS pushes 80 bytes, 16 more than the far ends' seg6
# routes of one segment left room for, so the full-size segments the
# sender behind the NAT sends back (iperf3 -R: the sink sends) do not
# fit the gateway's 1500 bytes.  srv6d answers Packet Too Big /
# Fragmentation Needed; sent by routing, it would go to the sender as
# an error about a packet to the client's own address, which the sender
# (whose peer is the NAT's address) ignores: the transfer stalls.  Sent
# back into the service (REINJECT_SERVICE), the NAT translates it, and
# the sender learns the path MTU.
cat >"$TMPD/as-srh.conf" <<EOF
queue 0
steering auto
encap-source fc00:1::2
sid fc00:a1::1/128 action End.AS nh4 10.10.1.2 oif pa iif pb source fc00:1::2 segs fc00:6::e,fc00:6::d4
sid fc00:a1::2/128 action End.AS nh4 10.10.2.2 oif pb iif pa source fc00:1::2 segs fc00:5::e,fc00:5::d4
sid fc00:a1::3/128 action End.AS nh6 fc00:a::2 oif pa iif pb source fc00:1::2 segs fc00:6::e,fc00:6::d6
sid fc00:a1::4/128 action End.AS nh6 fc00:b::2 oif pb iif pa source fc00:1::2 segs fc00:5::e,fc00:5::d6
EOF
ip -n "$GEN" -6 route replace fc00:5::e/128 encap seg6local action End \
	dev g0 &&
	ip -n "$S1" -6 route replace fc00:6::e/128 encap seg6local action End \
		dev s1 || fail "End routes at the far ends"
tunnels4 fc00:a1::1 fc00:a1::2 && tunnels6 fc00:a1::3 fc00:a1::4 ||
	fail "seg6 routes"
# The sink sends single segments (no TSO, no GSO): each full-size one
# meets the MTU (super-packets are cut to fit it, design.md).
nsx "$S1" ethtool -K s1 tso off gso off >/dev/null 2>&1 ||
	fail "ethtool -K s1 tso off gso off"
svc_nat4
svc_nat6
srv6d_start "$TMPD/as-srh.conf" || { fail "srv6d start (End.AS, SRH)"; ns_finish; }

# reverse_tcp WHAT PCAP ARGS...: iperf3 -R for 3 s (the sink sends),
# what comes in at the sink larger than its ACKs (the errors) captured
# in PCAP; prints the bytes received.
reverse_tcp() {
	local what=$1 pcap=$2 cap b
	shift 2
	nsx "$S1" timeout 12 tcpdump -i s1 -Q in -s 0 -U -c 200 -w "$pcap" \
		'ip6 and greater 500' >/dev/null 2>&1 &
	cap=$!
	sleep 0.5
	b=$(nsx "$GEN" timeout 15 iperf3 "$@" -t 3 -R -J 2>/dev/null |
		"$PYTHON" -c 'import json,sys
try: print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))
except Exception: print(0)')
	sleep 0.3
	kill "$cap" 2>/dev/null
	wait "$cap" 2>/dev/null
	echo "$b"
}

# errors4 PCAP / errors6 PCAP: "MTU SRC DST" of each Fragmentation
# Needed / Packet Too Big the sink got, SRC DST the quoted packet's
# (tshark lists every IP header of a field; the quoted one is the last).
errors4() {
	tshark -r "$1" -Y 'icmp.type == 3 && icmp.code == 4' -T fields \
		-e icmp.mtu -e ip.src -e ip.dst 2>/dev/null |
		awk -F'\t' '{ n = split($2, s, ","); split($3, d, ",");
			print $1, s[n], d[n] }'
}
errors6() {
	tshark -r "$1" -Y 'icmpv6.type == 2' -T fields \
		-e icmpv6.mtu -e ipv6.src -e ipv6.dst 2>/dev/null |
		awk -F'\t' '{ n = split($2, s, ","); split($3, d, ",");
			print $1, s[n], d[n] }'
}

# expect_reverse WHAT BYTES ERRORS QUOTED: more than 20 MB back (the
# stalled transfer moved less than 1 MB), and among ERRORS one about
# the sender's own packet, QUOTED ("SRC DST": to the NAT's address),
# with the room End.AS leaves (1500 - 80).
expect_reverse() {
	if [ "$2" -gt 20000000 ]; then
		pass "$1: TCP back through the NAT at MTU 1500: $2 bytes in 3 s"
	else
		fail "$1: TCP back through the NAT stalled: $2 bytes in 3 s"
	fi
	if grep -qx "1420 $4" <<<"$3"; then
		pass "$1: the sender got the error about its own packet ($4), MTU 1420"
	else
		fail "$1: no error about $4 at the sender: '$(head -3 <<<"$3" | tr '\n' ';')'"
	fi
}

# learned_mtu WHAT PEER: the sink's route to PEER (the NAT's address)
# has the path MTU the error told (an exception: "mtu 1420").
learned_mtu() {
	local r
	r=$(nsx "$S1" ip route get "$2" 2>&1 | tr '\n' ' ')
	if grep -q " mtu 1420 " <<<"$r "; then
		pass "$1: the sender learned the path MTU to $2 (1420)"
	else
		fail "$1: no path MTU learned to $2: $r"
	fi
}

t0=$(sid_field fc00:a1::2/128 "e['drops'].get('too_big', 0)")
b=$(reverse_tcp "End.AS (SRH), NAT" "$TMPD/rev4.pcap" -c 10.99.0.1 -B 10.98.0.1)
t1=$(sid_field fc00:a1::2/128 "e['drops'].get('too_big', 0)")
e=$(errors4 "$TMPD/rev4.pcap")
say "End.AS (SRH), NAT: $b bytes back, too_big +$((t1 - t0)), errors at the sender: $(grep -c . <<<"$e")"
expect_reverse "End.AS (SRH), NAT" "$b" "$e" "10.99.0.1 10.10.2.2"
learned_mtu "End.AS (SRH), NAT" 10.10.2.2
t0=$(sid_field fc00:a1::4/128 "e['drops'].get('too_big', 0)")
b=$(reverse_tcp "End.AS (SRH, IPv6), NAT" "$TMPD/rev6.pcap" -6 -c fc00:99::1 \
	-B fc00:98::1 -p 5202)
t1=$(sid_field fc00:a1::4/128 "e['drops'].get('too_big', 0)")
e=$(errors6 "$TMPD/rev6.pcap")
say "End.AS (SRH, IPv6), NAT: $b bytes back, too_big +$((t1 - t0)), errors at the sender: $(grep -c . <<<"$e")"
expect_reverse "End.AS (SRH, IPv6), NAT" "$b" "$e" "fc00:99::1 fc00:b::2"
learned_mtu "End.AS (SRH, IPv6), NAT" fc00:b::2
say "End.AS (SRH), NAT: icmp_sent, icmp_send_errors: $(ctl_get "'%d %d' % (s['totals']['icmp_sent'], s['totals']['icmp_send_errors'])")"
svc_plain
nsx "$S1" ethtool -K s1 tso on gso on >/dev/null 2>&1
alive "End.AS (SRH) through the NAT"
srv6d_stop || fail "srv6d stop (End.AS, SRH)"

# ---- End.AD ---------------------------------------------------------------------
cat >"$TMPD/ad.conf" <<EOF
queue 0
steering auto
sid fc00:a1::1/128 action End.AD nh4 10.10.1.2 oif pa iif pb
sid fc00:a1::2/128 action End.AD nh4 10.10.2.2 oif pb iif pa
EOF
tunnels4 fc00:a1::1,fc00:6::d4 fc00:a1::2,fc00:5::d4 || fail "seg6 routes"
srv6d_start "$TMPD/ad.conf" || { fail "srv6d start (End.AD)"; ns_finish; }
# before anything was learned: the service's packet back is dropped
send_from_svc sb "IP(src='10.98.0.1', dst='10.99.0.1')/UDP(dport=9)/Raw(b'x'*20)"
sleep 0.5
drop_seen "End.AD: a packet back before any was learned" fc00:a1::1/128 proxy_no_cache 0
# garbage back: IPv6 on pb, which has an IPv4 proxy only
send_from_svc sb "IPv6(src='fc00:b::2', dst='fc00:99::1')/UDP(dport=9)/Raw(b'x'*20)"
sleep 0.5
drop_seen "End.AD: IPv6 back at an IPv4 proxy" fc00:a1::1/128 proxy_return 0
check_tcp "End.AD, forwarding service" -c 10.99.0.1 -B 10.98.0.1
svc_nat4
check_tcp "End.AD, NAT service (masquerade)" -c 10.99.0.1 -B 10.98.0.1
svc_plain
e1=$(sid_field fc00:a1::1/128 "e['errors'] - e['drops'].get('proxy_no_cache', 0) - e['drops'].get('proxy_return', 0)")
e2=$(sid_field fc00:a1::2/128 "e['errors']")
if [ "$e1" -eq 0 ] && [ "$e2" -eq 0 ]; then
	pass "End.AD: no other drop"
else
	fail "End.AD: drops $(sid_field fc00:a1::1/128 "e['drops']") / $(sid_field fc00:a1::2/128 "e['drops']")"
fi
alive "End.AD"
srv6d_stop || fail "srv6d stop (End.AD)"

# ---- End.AM ---------------------------------------------------------------------
cat >"$TMPD/am.conf" <<EOF
queue 0
steering auto
sid fc00:a1::1/128 action End.AM nh6 fc00:a::2 oif pa iif pb
sid fc00:a1::2/128 action End.AM nh6 fc00:b::2 oif pb iif pa
EOF
# H.Insert at the far ends: the SRH carries the final destination
ip -n "$GEN" -6 route replace fc00:99::/64 encap seg6 mode inline \
	segs fc00:a1::1 via fc00:1::2 dev g0 &&
	ip -n "$S1" -6 route replace fc00:98::/64 encap seg6 mode inline \
		segs fc00:a1::2 via fc00:2::1 dev s1 || fail "seg6 inline routes"
srv6d_start "$TMPD/am.conf" || { fail "srv6d start (End.AM)"; ns_finish; }
check_tcp "End.AM, forwarding service" -6 -c fc00:99::1 -B fc00:98::1 -p 5202
# a firewall that rewrites what it passes: conntrack, hop limit, DSCP,
# and the MSS of the SYNs
nsx "$SVC" ip6tables -A FORWARD -m conntrack --ctstate INVALID -j DROP &&
	nsx "$SVC" ip6tables -t mangle -A FORWARD -j HL --hl-set 50 &&
	nsx "$SVC" ip6tables -t mangle -A FORWARD -j DSCP --set-dscp 10 &&
	nsx "$SVC" ip6tables -t mangle -A FORWARD -p tcp --tcp-flags SYN,RST SYN \
		-j TCPMSS --set-mss 1200 || fail "service firewall"
check_tcp "End.AM, rewriting firewall" -6 -c fc00:99::1 -B fc00:98::1 -p 5202
svc_plain
no_errors "End.AM" fc00:a1::1/128 fc00:a1::2/128
# garbage back: the service stripped the SRH
before=$(sid_field fc00:a1::1/128 "e['drops'].get('proxy_return', 0)")
send_from_svc sb "IPv6(src='fc00:98::1', dst='fc00:99::1')/UDP(dport=9)/Raw(b'x'*20)"
sleep 0.5
drop_seen "End.AM: the SRH gone on the way back" fc00:a1::1/128 proxy_return "$before"
alive "End.AM"
srv6d_stop || fail "srv6d stop (End.AM)"
ns_finish
