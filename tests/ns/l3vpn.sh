#!/bin/bash
# l3vpn.sh - an L3VPN over SRv6 across two srv6d gateways, with real
# clients: tenants A and B each have a host behind PE1 and one behind PE2.
# At the ingress, srv6d's `route` policies of the tenant's table
# encapsulate a tenant's traffic (H.Encaps) towards the far PE's
# End.DT4/End.DT6 SID of that tenant; at the
# egress, End.DT4/End.DT6 decapsulate it into the tenant's table.  ping and
# an iperf3 TCP transfer between a tenant's hosts must work; traffic
# between different tenants must not.
#
#   a1 --ta--+              +--ta-- a2     tenant A: 10.1.x.0/24 fd01:x::/64
#            PE1 ==c0===c0== PE2            (table 101 on both PEs)
#   b1 --tb--+   fc00:12::/64 +--tb-- b2    tenant B: 10.2.x.0/24 fd02:x::/64
#                                           (table 102)
# PE1's SIDs live in fc00:1::/48, PE2's in fc00:2::/48.
#
# The PEs separate the tenants without VRF devices: `ip rule iif ta lookup
# 101` then `iif ta unreachable` (and the same for tb and 102); underlay
# destinations (fc00::/16) from a tenant interface use the main table (the
# encapsulated packet).  The NFQUEUE rules steer a tenant's packets to
# srv6d by their in-interface and destination.
#
# MTU: H.Encaps adds 64 bytes (IPv6 header + an SRH of one segment) and the
# core links have MTU 1500; the hosts' links have MTU 1400 (HOST_MTU) at
# both ends, so TCP's MSS and every packet fit once encapsulated (Packet
# Too Big / Fragmentation Needed for oversized packets is another issue's
# work).  Both ends alike: with `offload yes` (the default) srv6d cuts a
# super-packet to the in-interface's MTU (NFQUEUE never tells the
# sender's segment size), so PE ends at 1500 facing hosts at 1400 would
# give a2 1436-byte packets (at a core of 1500), which its veth drops.
#
# bench/l3vpn-tcp.sh sources this file with L3VPN_LIB=1 for the
# topology functions only.
T=${T:-l3vpn}
# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PE1="$PFX-pe1" PE2="$PFX-pe2"
A1="$PFX-a1" A2="$PFX-a2" B1="$PFX-b1" B2="$PFX-b2"
HOST_MTU=${HOST_MTU:-1400}
SRV6D_PIDS=()

# l3vpn_setup: namespaces, links, addresses, the tenants' tables and rules.
l3vpn_setup() {
	local ns
	for ns in "$PE1" "$PE2" "$A1" "$A2" "$B1" "$B2"; do
		ip netns add "$ns" || return 1
		NS_LIST+=("$ns")
		ip -n "$ns" link set lo up
		_sysctls "$ns" net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.all.accept_ra=0 \
			net.ipv6.conf.default.accept_ra=0 || return 1
	done
	for ns in "$PE1" "$PE2"; do
		_sysctls "$ns" net.ipv6.conf.all.forwarding=1 \
			net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 \
			net.ipv6.conf.all.seg6_enabled=1 \
			net.ipv6.conf.default.seg6_enabled=1 || return 1
	done
	ip -n "$PE1" link add c0 type veth peer name c0 netns "$PE2" || return 1
	ip -n "$PE1" link set c0 up && ip -n "$PE2" link set c0 up || return 1
	ip -n "$PE1" -6 addr add fc00:12::1/64 dev c0 nodad &&
	ip -n "$PE2" -6 addr add fc00:12::2/64 dev c0 nodad || return 1
	ip -n "$PE1" -6 route add fc00:2::/48 via fc00:12::2 dev c0 &&
	ip -n "$PE2" -6 route add fc00:1::/48 via fc00:12::1 dev c0 || return 1
	_l3vpn_site "$PE1" "$A1" ta 1 1 101 &&
	_l3vpn_site "$PE1" "$B1" tb 2 1 102 &&
	_l3vpn_site "$PE2" "$A2" ta 1 2 101 &&
	_l3vpn_site "$PE2" "$B2" tb 2 2 102 || return 1
	_wait_up "$PE1" c0 && _wait_up "$PE2" c0
}

# _l3vpn_site PE HOST IF TENANT SITE TABLE: the host's link (HOST_MTU at
# both ends), its addresses
# 10.TENANT.SITE.2 and fdTENANT:SITE::2 (the PE has .1 and ::1), the
# tenant's table on the PE and the rules that confine IF to it.
# L3VPN_SAME_ADDRS=1 (l3vpn-overlap.sh): every tenant has 10.1.SITE.0/24
# and fd01:SITE::/64, the PE's addresses without a prefix route in main.
_l3vpn_site() {
	local pe=$1 h=$2 dev=$3 t=$4 s=$5 tab=$6 f npr=
	if [ -n "${L3VPN_SAME_ADDRS:-}" ]; then t=1 npr=noprefixroute; fi
	ip -n "$pe" link add "$dev" type veth peer name e0 netns "$h" || return 1
	ip -n "$h" link set e0 mtu "$HOST_MTU" up &&
	ip -n "$pe" link set "$dev" mtu "$HOST_MTU" up || return 1
	# shellcheck disable=SC2086 # $npr: nothing or one word
	ip -n "$pe" addr add "10.$t.$s.1/24" dev "$dev" $npr &&
	ip -n "$pe" -6 addr add "fd0$t:$s::1/64" dev "$dev" nodad $npr &&
	ip -n "$h" addr add "10.$t.$s.2/24" dev e0 &&
	ip -n "$h" -6 addr add "fd0$t:$s::2/64" dev e0 nodad || return 1
	ip -n "$h" route add default via "10.$t.$s.1" &&
	ip -n "$h" -6 route add default via "fd0$t:$s::1" || return 1
	ip -n "$pe" route add "10.$t.$s.0/24" dev "$dev" table "$tab" &&
	ip -n "$pe" -6 route add "fd0$t:$s::/64" dev "$dev" table "$tab" ||
		return 1
	for f in -4 -6; do
		ip -n "$pe" $f rule add pref 2000 iif "$dev" lookup "$tab" &&
		ip -n "$pe" $f rule add pref 2001 iif "$dev" unreachable || return 1
	done
	ip -n "$pe" -6 rule add pref 1500 iif "$dev" to fc00::/16 lookup main &&
	_wait_up "$pe" "$dev" && _wait_up "$h" e0
}

# l3vpn_srv6d_conf PE_NUM: srv6d's config for PE 1 or 2.
l3vpn_srv6d_conf() {
	local me=$1 far=$((3 - $1))
	cat <<EOF
queue 0
encap-source fc00:12::$me
# egress: this PE's service SIDs
sid fc00:$me::a4/128 action End.DT4 table 101
sid fc00:$me::a6/128 action End.DT6 table 101
sid fc00:$me::b4/128 action End.DT4 table 102
sid fc00:$me::b6/128 action End.DT6 table 102
# ingress: each tenant's remote site, to the far PE's SID of the tenant,
# in the tenant's table (the one its interface's ip rule looks up)
route 10.1.$far.0/24 table 101 encap seg6 mode encap segs fc00:$far::a4
route fd01:$far::/64 table 101 encap seg6 mode encap segs fc00:$far::a6
route 10.2.$far.0/24 table 102 encap seg6 mode encap segs fc00:$far::b4
route fd02:$far::/64 table 102 encap seg6 mode encap segs fc00:$far::b6
EOF
}

# l3vpn_steer PE PE_NUM: the NFQUEUE rules of a PE.
l3vpn_steer() {
	local pe=$1 me=$2 far=$((3 - $2))
	nsx "$pe" ip6tables -t raw -A PREROUTING -i c0 -d "fc00:$me::/48" \
		-j NFQUEUE --queue-num 0 &&
	nsx "$pe" iptables -t raw -A PREROUTING -i ta -d "10.1.$far.0/24" \
		-j NFQUEUE --queue-num 0 &&
	nsx "$pe" ip6tables -t raw -A PREROUTING -i ta -d "fd01:$far::/64" \
		-j NFQUEUE --queue-num 0 &&
	nsx "$pe" iptables -t raw -A PREROUTING -i tb -d "10.2.$far.0/24" \
		-j NFQUEUE --queue-num 0 &&
	nsx "$pe" ip6tables -t raw -A PREROUTING -i tb -d "fd02:$far::/64" \
		-j NFQUEUE --queue-num 0
}

# l3vpn_srv6d_start PE PE_NUM: run srv6d in PE, wait for its socket.
l3vpn_srv6d_start() {
	local pe=$1 n=$2 sock="$TMPD/pe$2.sock" pid _
	l3vpn_srv6d_conf "$n" >"$TMPD/pe$n.conf"
	steering_no "$TMPD/pe$n.conf"
	ip netns exec "$pe" "$SRV6D" -c "$TMPD/pe$n.conf" -s "$sock" -d \
		>"$TMPD/pe$n.log" 2>&1 &
	pid=$!
	SRV6D_PIDS+=("$pid")
	for _ in $(seq 1 100); do
		if ! kill -0 "$pid" 2>/dev/null; then
			say "srv6d of PE$n exited at start:"
			cat "$TMPD/pe$n.log"
			return 1
		fi
		[ -S "$sock" ] && timeout 2 "$SRV6CTL" -s "$sock" -j status \
			>/dev/null 2>&1 && return 0
		sleep 0.1
	done
	say "srv6d of PE$n did not start"
	return 1
}

l3vpn_srv6d_stop() {
	local pid rc=0
	for pid in "${SRV6D_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" || rc=1
	done
	SRV6D_PIDS=()
	return $rc
}

# The kernel's own seg6/seg6local in place of srv6d, for the IPv6 tenants
# (the kernel's End.DT4 needs a VRF device): l3vpn_kernel PE PE_NUM.
l3vpn_kernel() {
	local pe=$1 me=$2 far=$((3 - $2))
	nsx "$pe" ip sr tunsrc set "fc00:12::$me" &&
	ip -n "$pe" -6 route add "fc00:$me::a6/128" encap seg6local \
		action End.DT6 table 101 dev ta &&
	ip -n "$pe" -6 route add "fc00:$me::b6/128" encap seg6local \
		action End.DT6 table 102 dev tb &&
	ip -n "$pe" -6 route add "fd01:$far::/64" encap seg6 mode encap \
		segs "fc00:$far::a6" dev c0 table 101 &&
	ip -n "$pe" -6 route add "fd02:$far::/64" encap seg6 mode encap \
		segs "fc00:$far::b6" dev c0 table 102
}

# iperf3 DST_NS DST_ADDR SRC_NS SECONDS: prints the receiver's bit/s.
l3vpn_iperf() {
	local dns=$1 dst=$2 sns=$3 secs=$4 json rate
	nsx "$dns" iperf3 -s -1 -D -p 5201 -I "$TMPD/iperf.pid" >/dev/null 2>&1 ||
		return 1
	sleep 0.3
	json=$(nsx "$sns" timeout $((secs + 10)) iperf3 -c "$dst" -p 5201 \
		-t "$secs" -J 2>/dev/null)
	# iperf3 -1 removes its pid file itself when the test ends
	if [ -f "$TMPD/iperf.pid" ]; then
		kill "$(cat "$TMPD/iperf.pid" 2>/dev/null)" 2>/dev/null
		rm -f "$TMPD/iperf.pid"
	fi
	rate=$("$PYTHON" -c 'import json,sys
d = json.load(sys.stdin)
print(int(d["end"]["sum_received"]["bits_per_second"]))' <<<"$json" 2>/dev/null)
	[ -n "$rate" ] || return 1
	echo "$rate"
}

if [ -n "${L3VPN_LIB:-}" ]; then
	return 0
fi

# ---- the test ------------------------------------------------------------------

ns_init 240
need_srv6d
command -v iperf3 >/dev/null || skip_test "iperf3 not found"

ping_ok() {	# DESC NS "[OPTIONS] DST"
	# shellcheck disable=SC2086 # options and destination, split on purpose
	if nsx "$2" ping -c 3 -i 0.2 -W 2 $3 >"$TMPD/ping.out" 2>&1; then
		pass "$1"
	else
		fail "$1"
		sed 's/^/     /' "$TMPD/ping.out"
	fi
}

ping_fails() {	# DESC NS DST
	if nsx "$2" ping -c 2 -i 0.2 -W 1 "$3" >"$TMPD/ping.out" 2>&1; then
		fail "$1: got an answer"
		sed 's/^/     /' "$TMPD/ping.out"
	else
		pass "$1"
	fi
}

l3vpn_setup || { fail "topology setup"; ns_finish; }
if ! l3vpn_steer "$PE1" 1 || ! l3vpn_steer "$PE2" 2; then
	fail "NFQUEUE rules"
fi
l3vpn_srv6d_start "$PE1" 1 || { fail "srv6d start on PE1"; ns_finish; }
l3vpn_srv6d_start "$PE2" 2 || { fail "srv6d start on PE2"; ns_finish; }
say "PE1's srv6d config:"
sed 's/^/    /' "$TMPD/pe1.conf"

ping_ok "tenant A: a1 -> a2 over IPv4 (H.Encaps at PE1, End.DT4 at PE2)" "$A1" 10.1.2.2
ping_ok "tenant A: a1 -> a2 over IPv6 (H.Encaps at PE1, End.DT6 at PE2)" "$A1" fd01:2::2
ping_ok "tenant B: b2 -> b1 over IPv4" "$B2" 10.2.1.2
ping_ok "tenant B: b2 -> b1 over IPv6" "$B2" fd02:1::2
ping_ok "tenant A: 1372-byte IPv4 packets (MTU 1400) fit once encapsulated" \
	"$A1" "-s 1372 -M do 10.1.2.2"
ping_fails "tenant A cannot reach tenant B's remote host (IPv4)" "$A1" 10.2.2.2
ping_fails "tenant A cannot reach tenant B's remote host (IPv6)" "$A1" fd02:2::2
ping_fails "tenant A cannot reach tenant B's host on the same PE" "$A1" 10.2.1.2
ping_fails "tenant B cannot reach tenant A's remote host (IPv6)" "$B1" fd01:2::2

for v in 4 6; do
	if [ $v = 4 ]; then dst=10.1.2.2; else dst=fd01:2::2; fi
	rate=$(l3vpn_iperf "$A2" "$dst" "$A1" 3)
	if [ -n "$rate" ] && [ "$rate" -gt 1000000 ]; then
		pass "tenant A: iperf3 TCP over IPv$v a1 -> a2 for 3 s: $((rate / 1000000)) Mbit/s"
	else
		fail "tenant A: iperf3 TCP over IPv$v a1 -> a2 (${rate:-no result})"
	fi
done

s1=$(timeout 5 "$SRV6CTL" -s "$TMPD/pe2.sock" -j status)
got=$("$PYTHON" -c 'import json,sys
s = json.load(sys.stdin)
n = {e["sid"]: e["packets"] for e in s["sids"]}
print(n["fc00:2::a4/128"] > 0, n["fc00:2::a6/128"] > 0, n["fc00:2::b4/128"] > 0, n["fc00:2::b6/128"] > 0)' <<<"$s1")
expect_eq "PE2 decapsulated with every tenant SID (A4 A6 B4 B6 counters > 0)" "$got" "True True True True"
if l3vpn_srv6d_stop; then pass "both srv6d exit 0"; else fail "srv6d exit status"; fi
ns_finish
