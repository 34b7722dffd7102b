#!/bin/bash
# l3vpn-overlap.sh - two tenants with the same addresses across two srv6d
# PEs: l3vpn.sh's topology, but tenants A and B both use 10.1.x.0/24 and
# fd01:x::/64, with the same host addresses (a1 and b1 are both 10.1.1.2
# and fd01:1::2, a2 and b2 both 10.1.2.2 and fd01:2::2).
#
#   a1 --ta--+              +--ta-- a2     tenant A: table 101 on both PEs
#            PE1 ==c0===c0== PE2
#   b1 --tb--+   fc00:12::/64 +--tb-- b2    tenant B: table 102
#
# The PEs separate the tenants by interface: `ip rule iif ta lookup 101`,
# `iif tb lookup 102` (no VRF device).  Each tenant has policies for the
# far site's prefixes in its table, identical prefixes towards each
# tenant's End.DT4/End.DT6 SID at the far PE; srv6d finds a packet's table
# from its in-interface and the rules it mirrors.  ping and an iperf3 TCP
# transfer within each tenant must work, and a capture at the other
# tenant's hosts (which have the same addresses, and would answer) must
# see nothing of it.
#
# Twice, on the same topology:
#  - file: the policies and SIDs in srv6d.conf (`route P table T ...`);
#  - kernel: srv6d.conf has `kernel-routes yes` and no policy; the same
#    policies are the kernel's seg6 routes (`ip route add P encap seg6
#    mode encap segs SID dev c0 table T`), the End.DT6 SIDs its seg6local
#    routes (End.DT4 stays in srv6d.conf: the kernel's needs a VRF device,
#    which this kernel lacks).  srv6d must apply them, not the kernel: the
#    kernel's own encapsulations would have the outer source `ip sr tunsrc`
#    fc00:99::N, and a capture on the core link must see none.
# L3VPN_OVERLAP_SWAP=1 writes tenant A's kernel routes into table 102 and
# B's into 101: the tests of the kernel part must then fail (the proof
# that they can).
T=${T:-l3vpn-overlap}
L3VPN_LIB=1
L3VPN_SAME_ADDRS=1	# l3vpn.sh's topology, every tenant 10.1.x and fd01:x
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "${BASH_SOURCE[0]}")/l3vpn.sh"

# l3vpn_srv6d_conf PE_NUM (overridden): the same prefixes in both tenants'
# tables, each to its own SID at the far PE.  MODE=kernel: only the End.DT4
# SIDs and kernel-routes yes (the rest: overlap_kernel_routes).
MODE='file'
l3vpn_srv6d_conf() {
	local me=$1 far=$((3 - $1))
	cat <<EOF
queue 0
encap-source fc00:12::$me
# egress: this PE's service SIDs
sid fc00:$me::a4/128 action End.DT4 table 101
sid fc00:$me::b4/128 action End.DT4 table 102
EOF
	if [ "$MODE" = kernel ]; then
		echo "# the rest are the kernel's seg6 and seg6local routes"
		echo "kernel-routes yes"
		return
	fi
	cat <<EOF
sid fc00:$me::a6/128 action End.DT6 table 101
sid fc00:$me::b6/128 action End.DT6 table 102
# ingress: the far site, one policy per tenant's table
route 10.1.$far.0/24 table 101 encap seg6 mode encap segs fc00:$far::a4
route fd01:$far::/64 table 101 encap seg6 mode encap segs fc00:$far::a6
route 10.1.$far.0/24 table 102 encap seg6 mode encap segs fc00:$far::b4
route fd01:$far::/64 encap seg6 mode encap segs fc00:$far::b6 table 102
EOF
}

# overlap_kernel_routes PE PE_NUM: the file mode's policies and End.DT6
# SIDs as the kernel's routes, as a routing daemon writes them (tenant
# A's in table 101, B's in 102; swapped with L3VPN_OVERLAP_SWAP=1).
overlap_kernel_routes() {
	local pe=$1 me=$2 far=$((3 - $2)) ta=101 tb=102
	if [ -n "${L3VPN_OVERLAP_SWAP:-}" ]; then ta=102 tb=101; fi
	nsx "$pe" ip sr tunsrc set "fc00:99::$me" &&
	ip -n "$pe" -6 route add "fc00:$me::a6/128" encap seg6local \
		action End.DT6 table 101 dev ta &&
	ip -n "$pe" -6 route add "fc00:$me::b6/128" encap seg6local \
		action End.DT6 table 102 dev tb &&
	ip -n "$pe" route add "10.1.$far.0/24" encap seg6 mode encap \
		segs "fc00:$far::a4" dev c0 table "$ta" &&
	ip -n "$pe" -6 route add "fd01:$far::/64" encap seg6 mode encap \
		segs "fc00:$far::a6" dev c0 table "$ta" &&
	ip -n "$pe" route add "10.1.$far.0/24" encap seg6 mode encap \
		segs "fc00:$far::b4" dev c0 table "$tb" &&
	ip -n "$pe" -6 route add "fd01:$far::/64" encap seg6 mode encap \
		segs "fc00:$far::b6" dev c0 table "$tb"
}

# l3vpn_steer PE PE_NUM (overridden): both tenants' traffic to the far
# site, by in-interface and destination.
l3vpn_steer() {
	local pe=$1 me=$2 far=$((3 - $2)) dev
	nsx "$pe" ip6tables -t raw -A PREROUTING -i c0 -d "fc00:$me::/48" \
		-j NFQUEUE --queue-num 0 || return 1
	for dev in ta tb; do
		nsx "$pe" iptables -t raw -A PREROUTING -i "$dev" \
			-d "10.1.$far.0/24" -j NFQUEUE --queue-num 0 &&
		nsx "$pe" ip6tables -t raw -A PREROUTING -i "$dev" \
			-d "fd01:$far::/64" -j NFQUEUE --queue-num 0 || return 1
	done
}

ns_init 420
need_srv6d
command -v iperf3 >/dev/null || skip_test "iperf3 not found"
command -v tcpdump >/dev/null || skip_test "tcpdump not found"

ping_ok() {	# DESC NS DST
	if nsx "$2" ping -c 3 -i 0.2 -W 2 "$3" >"$TMPD/ping.out" 2>&1; then
		pass "$1"
	else
		fail "$1"
		sed 's/^/     /' "$TMPD/ping.out"
	fi
}

# The packets a tenant's traffic is made of: echo requests and replies,
# and the iperf3 port.
CAP_FILTER='tcp port 5201 or (icmp and (icmp[0] = 8 or icmp[0] = 0)) or
	(icmp6 and (ip6[40] = 128 or ip6[40] = 129))'
CAP_PIDS=()

# cap_start NS NAME: capture CAP_FILTER on NS's e0 into $TMPD/NAME.pcap.
cap_start() {
	ip netns exec "$1" tcpdump -i e0 -n -U -s 128 -w "$TMPD/$2.pcap" \
		"$CAP_FILTER" >"$TMPD/$2.cap.log" 2>&1 &
	CAP_PIDS+=("$!")
}

cap_stop() {
	local pid
	sleep 0.5
	for pid in "${CAP_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	CAP_PIDS=()
}

cap_count() {	# NAME: packets captured
	tcpdump -r "$TMPD/$1.pcap" -n 2>/dev/null | wc -l
}

# tenant_traffic TENANT H1 H2: ping both ways over both families, and an
# iperf3 TCP transfer over each family H1 -> H2, within the tenant.
tenant_traffic() {
	local t=$1 h1=$2 h2=$3 v dst rate
	ping_ok "$MODE: tenant $t: ${h1##*-} -> ${h2##*-} over IPv4" "$h1" 10.1.2.2
	ping_ok "$MODE: tenant $t: ${h1##*-} -> ${h2##*-} over IPv6" "$h1" fd01:2::2
	ping_ok "$MODE: tenant $t: ${h2##*-} -> ${h1##*-} over IPv4" "$h2" 10.1.1.2
	ping_ok "$MODE: tenant $t: ${h2##*-} -> ${h1##*-} over IPv6" "$h2" fd01:1::2
	for v in 4 6; do
		if [ $v = 4 ]; then dst=10.1.2.2; else dst=fd01:2::2; fi
		rate=$(l3vpn_iperf "$h2" "$dst" "$h1" 2)
		if [ -n "$rate" ] && [ "$rate" -gt 1000000 ]; then
			pass "$MODE: tenant $t: iperf3 TCP over IPv$v for 2 s: $((rate / 1000000)) Mbit/s"
		else
			fail "$MODE: tenant $t: iperf3 TCP over IPv$v (${rate:-no result})"
		fi
	done
}

# tenant_isolated TENANT H1 H2 OTHER1 OTHER2: TENANT's traffic, captured
# at its own hosts (the capture works) and at the other tenant's (nothing).
tenant_isolated() {
	local t=$1 n
	cap_start "$2" own1 && cap_start "$3" own2 &&
	cap_start "$4" other1 && cap_start "$5" other2
	sleep 1
	tenant_traffic "$t" "$2" "$3"
	cap_stop
	n=$(cap_count own2)
	if [ "$n" -gt 100 ]; then
		pass "$MODE: tenant $t: the capture at ${3##*-} sees its traffic ($n packets)"
	else
		fail "$MODE: tenant $t: the capture at ${3##*-} saw only $n packets"
	fi
	expect_eq "$MODE: tenant $t: nothing of it at the other tenant's ${4##*-}" \
		"$(cap_count other1)" 0
	expect_eq "$MODE: tenant $t: nothing of it at the other tenant's ${5##*-}" \
		"$(cap_count other2)" 0
}

# core_cap_start / core_cap_count SRC_NET: the encapsulated packets on the
# core link (PE1's c0), by outer source: srv6d's (fc00:12::/64) or the
# kernel's own (fc00:99::/32, its tunsrc).
core_cap_start() {
	ip netns exec "$PE1" tcpdump -i c0 -n -U -s 128 -w "$TMPD/core.pcap" \
		ip6 >"$TMPD/core.cap.log" 2>&1 &
	CORE_PID=$!
}

core_cap_stop() {
	sleep 0.3
	kill -INT "$CORE_PID" 2>/dev/null
	wait "$CORE_PID" 2>/dev/null
}

core_cap_count() {
	tcpdump -r "$TMPD/core.pcap" -n "ip6 and src net $1" 2>/dev/null | wc -l
}

# check_counters MODE: each tenant's traffic went through its own policies
# and SIDs (and, MODE kernel, they are the kernel's routes).
check_counters() {
	local n far s got want
	for n in 1 2; do
		far=$((3 - n))
		s=$(timeout 5 "$SRV6CTL" -s "$TMPD/pe$n.sock" -j status)
		got=$("$PYTHON" -c 'import json,sys
s = json.load(sys.stdin)
sids = {e["sid"]: e["packets"] for e in s["sids"]}
pols = sorted((e["table"], e["prefix"], e["packets"] > 0, e["origin"],
	       e.get("kernel_table", 0)) for e in s["policies"])
print(all(v > 0 for v in sids.values()), len(sids), pols)' <<<"$s")
		if [ "$1" = kernel ]; then
			want="True 4 [(101, '10.1.$far.0/24', True, 'kernel', 101), (101, 'fd01:$far::/64', True, 'kernel', 101), (102, '10.1.$far.0/24', True, 'kernel', 102), (102, 'fd01:$far::/64', True, 'kernel', 102)]"
		else
			want="True 4 [(101, '10.1.$far.0/24', True, 'file', 0), (101, 'fd01:$far::/64', True, 'file', 0), (102, '10.1.$far.0/24', True, 'file', 0), (102, 'fd01:$far::/64', True, 'file', 0)]"
		fi
		expect_eq "$1: PE$n: every tenant SID and every policy counted packets" \
			"$got" "$want"
	done
}

# wait_kernel_routes PE_NUM: until PE's srv6d applies its 6 kernel routes
# (2 seg6local End.DT6 merged as SIDs, 4 seg6 in the tenants' tables as
# policies attached to their routes; 5 s at most).
wait_kernel_routes() {
	local _ got
	for _ in $(seq 1 50); do
		got=$(timeout 5 "$SRV6CTL" -s "$TMPD/pe$1.sock" -j status |
			"$PYTHON" -c 'import json,sys
k = json.load(sys.stdin)["kernel_routes"]
print(k["routes"], k["applied"], k["shadowed"], k["refused"], k["other_table"], k["policies"], k["policies_unsupported"])')
		[ "$got" = "2 2 0 0 0 4 0" ] && break
		sleep 0.1
	done
	echo "$got"
}

l3vpn_setup || { fail "topology setup"; ns_finish; }
if ! l3vpn_steer "$PE1" 1 || ! l3vpn_steer "$PE2" 2; then
	fail "NFQUEUE rules"
fi

# ---- file: the policies in srv6d.conf ----------------------------------------
if [ -z "${L3VPN_OVERLAP_SWAP:-}" ]; then
l3vpn_srv6d_start "$PE1" 1 || { fail "srv6d start on PE1"; ns_finish; }
l3vpn_srv6d_start "$PE2" 2 || { fail "srv6d start on PE2"; ns_finish; }
say "file: PE1's srv6d config:"
sed 's/^/    /' "$TMPD/pe1.conf"

tenant_isolated A "$A1" "$A2" "$B1" "$B2"
tenant_isolated B "$B1" "$B2" "$A1" "$A2"
check_counters file
timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" policy >"$TMPD/policy.txt"
got=$(awk '$1 == "10.1.2.0/24" { print $2 }' "$TMPD/policy.txt" | sort | tr '\n' ' ')
expect_eq "srv6ctl policy shows each policy's table" "$got" "101 102 "
got=$(awk '$1 == "ta" || $1 == "tb" { print $1, $3, $4 }' "$TMPD/policy.txt" |
	sort | tr '\n' ' ')
expect_eq "srv6ctl policy shows the interfaces' tables" "$got" "ta 101 101 tb 102 102 "

# iif_tables: PE1's interfaces and their tables, as srv6ctl -j policy has
# them ("ta:101/101 tb:102/102"), srv6d's own veth pairs left out.
iif_tables() {
	timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" -j policy | "$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted("%s:%d/%d" % (i["interface"], i["ipv4"], i["ipv6"])
		      for i in d["interfaces"]
		      if not i["interface"].startswith("srv6d"))))'
}

# wait_iif_tables WANT: poll (2 s at most) until iif_tables prints WANT.
wait_iif_tables() {
	local _ got
	for _ in $(seq 1 20); do
		got=$(iif_tables)
		[ "$got" = "$1" ] && break
		sleep 0.1
	done
	echo "$got"
}

# Rules and links change under srv6d: a rule names an interface, so a
# rename takes the table away from it and the old name brings it back (as
# the kernel's rules do), and a removed interface has none.
base="ta:101/101 tb:102/102"
ip -n "$PE1" link add tq type veth peer name tq2
ip -n "$PE1" rule add pref 1900 iif tq lookup 104
expect_eq "a new rule iif tq lookup 104 (IPv4 only)" \
	"$(wait_iif_tables "$base tq:104/254")" "$base tq:104/254"
ip -n "$PE1" link set tq name tr
expect_eq "tq renamed tr: no table" "$(wait_iif_tables "$base")" "$base"
ip -n "$PE1" link set tr name tq
expect_eq "renamed back to tq: table 104" \
	"$(wait_iif_tables "$base tq:104/254")" "$base tq:104/254"
ip -n "$PE1" -6 rule add pref 1900 iif tq lookup 105
expect_eq "ip -6 rule iif tq lookup 105" \
	"$(wait_iif_tables "$base tq:104/105")" "$base tq:104/105"
ip -n "$PE1" link del tq
expect_eq "tq removed: no table" "$(wait_iif_tables "$base")" "$base"
ip -n "$PE1" rule del pref 1900 iif tq lookup 104
ip -n "$PE1" -6 rule del pref 1900 iif tq lookup 105
ping_ok "tenant A still steered: a1 -> a2 over IPv4" "$A1" 10.1.2.2
if l3vpn_srv6d_stop; then pass "file: both srv6d exit 0"; else fail "file: srv6d exit status"; fi
fi

# ---- kernel: the same policies as the kernel's routes -------------------------
MODE='kernel'
l3vpn_srv6d_start "$PE1" 1 || { fail "kernel: srv6d start on PE1"; ns_finish; }
l3vpn_srv6d_start "$PE2" 2 || { fail "kernel: srv6d start on PE2"; ns_finish; }
say "kernel: PE1's srv6d config:"
sed 's/^/    /' "$TMPD/pe1.conf"
# written while srv6d runs: it follows them
overlap_kernel_routes "$PE1" 1 && overlap_kernel_routes "$PE2" 2 ||
	fail "kernel: the seg6 and seg6local routes"
say "kernel: PE1's SRv6 routes:"
ip -n "$PE1" -4 route show table all | grep seg6 | sed 's/^/    /'
ip -n "$PE1" -6 route show table all | grep seg6 | sed 's/^/    /'
for n in 1 2; do
	expect_eq "kernel: PE$n's srv6d applies its 6 kernel routes (seg6local: routes applied shadowed refused other_table; seg6: policies unsupported)" \
		"$(wait_kernel_routes "$n")" "2 2 0 0 0 4 0"
done
core_cap_start
sleep 1
tenant_isolated A "$A1" "$A2" "$B1" "$B2"
tenant_isolated B "$B1" "$B2" "$A1" "$A2"
core_cap_stop
check_counters kernel
n=$(core_cap_count fc00:12::/64)
if [ "$n" -gt 100 ]; then
	pass "kernel: srv6d's encapsulations on the core link ($n packets)"
else
	fail "kernel: only $n packets of srv6d's on the core link"
fi
expect_eq "kernel: none by the kernel's own seg6 routes (outer source its tunsrc)" \
	"$(core_cap_count fc00:99::/32)" 0
if l3vpn_srv6d_stop; then pass "kernel: both srv6d exit 0"; else fail "kernel: srv6d exit status"; fi
ns_finish
