#!/bin/bash
# steer.sh - srv6d's own steering (`steering auto`, the default): the
# L3VPN of l3vpn.sh (two PEs, tenants A and B, End.DT4/End.DT6, H.Encaps
# policies per tenant table) plus an End SID on PE1, and no firewall rule
# written by the test.
#
#  1. Every kind is forwarded: both tenants over IPv4 and IPv6 (H.Encaps
#     and End.DT4/DT6 in both PEs), and an SRv6 packet through PE1's End.
#  2. An operator's own `ip6tables -j NFQUEUE` rule for the same prefix
#     does not make a packet go through srv6d twice (the policy's counter
#     rises by the packets sent).  The rules follow the in-interfaces: a
#     packet from tenant B's interface to tenant A's prefix (no policy in
#     B's table) is not queued, and with an operator's rule for it queued
#     once (the queues' id_sequence).
#  3. `nft flush ruleset` under traffic: the tables are back within 1 s
#     (the time is measured and printed).
#  4. One transaction per reload: none when the rules did not change, one
#     when they did (srv6ctl status's batch counter).
#  5. Fail closed.  PE1 is made fail-open as the issue found it: a default
#     route toward PE2 in main and no `iif ta unreachable` rule, so a
#     tenant's packet that srv6d does not take is forwarded natively over
#     the core, and a SID packet goes back to PE2, which routes it to PE1
#     again (a loop until its hop limit).  A capture on PE2's side of the
#     core counts, from PE1, tenant packets unencapsulated (outer source
#     fd01:1::2) and SID packets (to fc00:1::a6) coming back: 0 with
#     srv6d frozen (SIGSTOP), killed -9 and during 10 reloads; and more
#     than 0 with srv6d killed and no rule of its own (the old state), so
#     that this test can fail.
#     A restart done as systemd does it: the unit's RestartKillSignal=
#     (systemd/srv6d.service.in: SIGUSR2; SIGTERM without one, or
#     RESTART_SIGNAL=TERM to see this check fail), then a start 0.5 s
#     later: 0 and 0 too, and srv6d forwards again after it.
#  6. After a clean stop there is no table srv6d left and `nft list
#     ruleset` is what it was before the start.
T=${T:-steer}
L3VPN_LIB=1
# shellcheck source=tests/ns/l3vpn.sh
. "$(dirname "${BASH_SOURCE[0]}")/l3vpn.sh"
STEERING=auto

ns_init 240
need_srv6d
need_tools nft tcpdump

ping_ok() {	# DESC NS "[OPTIONS] DST"
	# shellcheck disable=SC2086 # options and destination, split on purpose
	if nsx "$2" ping -c 3 -i 0.2 -W 2 $3 >"$TMPD/ping.out" 2>&1; then
		pass "$1"
	else
		fail "$1"
		sed 's/^/     /' "$TMPD/ping.out"
	fi
}

status() {	# PE_NUM PYTHON-EXPRESSION over the status document s
	timeout 5 "$SRV6CTL" -s "$TMPD/pe$1.sock" -j status |
		"$PYTHON" -c "import json,sys
s = json.load(sys.stdin)
print($2)"
}

pe_conf() {	# PE_NUM: l3vpn.sh's config and an End SID
	l3vpn_srv6d_conf "$1"
	echo "sid fc00:$1::e/128 action End"
}

PE1_PID=
pe1_start() {	# srv6d of PE1 with $TMPD/pe1.conf
	local sock="$TMPD/pe1.sock" _
	rm -f "$sock"
	ip netns exec "$PE1" "$SRV6D" -c "$TMPD/pe1.conf" -s "$sock" -d \
		>>"$TMPD/pe1.log" 2>&1 &
	PE1_PID=$!
	for _ in $(seq 1 100); do
		kill -0 "$PE1_PID" 2>/dev/null || { cat "$TMPD/pe1.log"; return 1; }
		[ -S "$sock" ] && timeout 2 "$SRV6CTL" -s "$sock" status \
			>/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

pe1_kill9() {
	kill -KILL "$PE1_PID" 2>/dev/null
	wait "$PE1_PID" 2>/dev/null
	PE1_PID=
}

ruleset() { nsx "$PE1" nft list ruleset 2>/dev/null; }

# an operator's own table, which srv6d must leave as it is
operator_table() {
	nsx "$PE1" nft -f - <<'EOF'
table inet operator {
	chain input {
		type filter hook input priority 0; policy accept;
		tcp dport 22 accept
	}
}
EOF
}

l3vpn_setup || { fail "topology setup"; ns_finish; }
operator_table || fail "the operator's table"
before=$(ruleset)
pe_conf 1 >"$TMPD/pe1.conf"
pe_conf 2 >"$TMPD/pe2.conf"
pe1_start || { fail "srv6d start on PE1"; ns_finish; }
ip netns exec "$PE2" "$SRV6D" -c "$TMPD/pe2.conf" -s "$TMPD/pe2.sock" -d \
	>"$TMPD/pe2.log" 2>&1 &
PE2_PID=$!
for _ in $(seq 1 100); do
	[ -S "$TMPD/pe2.sock" ] && break
	sleep 0.1
done
sleep 0.3

# ---- 1. every kind, with srv6d's rules only ----------------------------------
expect_eq "PE1's steering installed" "$(status 1 's["steering"]["state"]')" \
	installed
say "PE1's steering: $(timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" status | grep '^steering')"
say "PE1's rules (srv6d -p):"
nsx "$PE1" "$SRV6D" -p -c "$TMPD/pe1.conf" | sed -n '1,/^}/p' | sed 's/^/    /'
ping_ok "tenant A: a1 -> a2 over IPv4 (H.Encaps, End.DT4)" "$A1" 10.1.2.2
ping_ok "tenant A: a1 -> a2 over IPv6 (H.Encaps, End.DT6)" "$A1" fd01:2::2
ping_ok "tenant B: b2 -> b1 over IPv4" "$B2" 10.2.1.2
ping_ok "tenant B: b2 -> b1 over IPv6" "$B2" fd02:1::2
# PE2's kernel encapsulates towards PE1's End, then PE2's End.DT6 of
# tenant A: the echo reaches a2 through PE1's End.
ip -n "$PE2" -6 route add fd01:2::2/128 encap seg6 mode encap \
	segs fc00:1::e,fc00:2::a6 dev c0 table 200 &&
ip -n "$PE2" -6 rule add pref 100 from fc00:12::2 to fd01:2::2 lookup 200 ||
	fail "PE2's seg6 route through PE1's End"
sid() { status "$1" "[x['packets'] for x in s['sids'] if x['sid'] == '$2'][0]"; }
e0=$(sid 1 fc00:1::e/128) d0=$(sid 2 fc00:2::a6/128)
nsx "$PE2" ping -c 3 -i 0.2 -W 1 -I fc00:12::2 fd01:2::2 >/dev/null 2>&1
e1=$(sid 1 fc00:1::e/128) d1=$(sid 2 fc00:2::a6/128)
expect_eq "3 SRv6 echoes from PE2 through PE1's End, then PE2's End.DT6 (End, DT6 packets)" \
	"$((e1 - e0)) $((d1 - d0))" "3 3"
ip -n "$PE2" -6 rule del pref 100

# ---- 2. an operator's own rule for the same prefix --------------------------
pol() { status 1 '[x["packets"] for x in s["policies"] if x["prefix"] == "fd01:2::/64"][0]'; }
nsx "$PE1" ip6tables -t raw -A PREROUTING -i ta -d fd01:2::/64 \
	-j NFQUEUE --queue-num 0 || fail "the operator's rule"
p0=$(pol)
nsx "$A1" ping -c 5 -i 0.1 -W 2 fd01:2::2 >/dev/null 2>&1 ||
	fail "a1 -> a2 with the operator's rule too"
p1=$(pol)
expect_eq "an operator's NFQUEUE rule for fd01:2::/64 as well: srv6d sees each of 5 packets once" \
	"$((p1 - p0))" 5
nsx "$PE1" ip6tables -t raw -F PREROUTING
# a packet whose table has no policy for it: tenant B's (tb, table 102)
# to tenant A's fd01:2::/64 (a policy of table 101 only) is not queued
# (what srv6d received, less its own mark probes, 5 a second, which its
# rules queue from srv6d0: src/io/markprobe.h; one status document, so
# no probe falls between two readings), and with an operator's rule for
# it once
qseq() { status 1 "s['totals']['rx_packets'] - s['totals']['mark_probes']"; }
q0=$(qseq)
nsx "$B1" ping -c 5 -i 0.1 -W 1 fd01:2::2 >/dev/null 2>&1
q1=$(qseq)
expect_eq "5 packets from tenant B to tenant A's prefix (no policy in B's table): queued by srv6d's rules" \
	"$((q1 - q0))" 0
nsx "$PE1" ip6tables -t raw -A PREROUTING -i tb -d fd01:2::/64 \
	-j NFQUEUE --queue-num 0 || fail "the operator's rule"
q0=$(qseq)
nsx "$B1" ping -c 5 -i 0.1 -W 1 fd01:2::2 >/dev/null 2>&1
q1=$(qseq)
expect_eq "the same with an operator's NFQUEUE rule for it: each queued once" \
	"$((q1 - q0))" 5
nsx "$PE1" ip6tables -t raw -F PREROUTING
say "PE1's table ip6 srv6d:"
nsx "$PE1" nft list table ip6 srv6d 2>/dev/null | grep -v Warning | sed 's/^/    /'

# ---- 3. nft flush ruleset under traffic -------------------------------------
nsx "$A1" ping -i 0.01 -c 300 -W 1 fd01:2::2 >/dev/null 2>&1 &
pinger=$!
sleep 0.5
r0=$(status 1 's["steering"]["repairs"]')
t0=$(date +%s%N)
nsx "$PE1" nft flush ruleset
back=
for _ in $(seq 1 200); do
	if nsx "$PE1" nft list table ip6 srv6d 2>/dev/null | grep -q "fd01:2::/64" &&
	   nsx "$PE1" nft list table ip srv6d >/dev/null 2>&1; then
		back=$((($(date +%s%N) - t0) / 1000000))
		break
	fi
	sleep 0.005
done
wait "$pinger"
r1=$(status 1 's["steering"]["repairs"]')
if [ -n "$back" ] && [ "$back" -lt 1000 ]; then
	pass "nft flush ruleset under traffic: srv6d's tables back in ${back} ms"
else
	fail "nft flush ruleset: tables not back within 1 s (${back:-never})"
fi
expect_eq "the repair counted" "$((r1 - r0))" 1
operator_table	# the operator's firewall is back too

# ---- 4. one transaction per reload ------------------------------------------
b0=$(status 1 's["steering"]["batches"]')
timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null || fail "reload"
b1=$(status 1 's["steering"]["batches"]')
expect_eq "a reload that changes no rule sends no transaction" "$((b1 - b0))" 0
echo "route fd01:7::/64 table 101 encap seg6 mode encap segs fc00:2::a6" \
	>>"$TMPD/pe1.conf"
timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null || fail "reload"
b2=$(status 1 's["steering"]["batches"]')
expect_eq "a reload that adds a policy: one transaction" "$((b2 - b1))" 1
if nsx "$PE1" nft list table ip6 srv6d 2>/dev/null | grep -q "fd01:7::/64"; then
	pass "the new policy's prefix is steered"
else
	fail "the new policy's prefix is not in table ip6 srv6d"
fi

# ---- 5. fail closed ---------------------------------------------------------
# PE1 fail-open as the issue found it (see the top).
ip -n "$PE1" -6 route add default via fc00:12::2 dev c0 &&
ip -n "$PE1" -6 rule del pref 2001 iif ta unreachable || fail "fail-open PE1"

# leak_count SECONDS ACTION...: traffic (a1 -> a2 and PE2 -> PE1's SID)
# for SECONDS while ACTION runs (in this shell); $TMPD/leak is then
# "TENANT SID", the packets from PE1
# seen on PE2's side of the core: tenant packets unencapsulated, SID
# packets come back.
leak_count() {
	local secs=$1 cap="$TMPD/cap.pcap" pa pb tp
	shift
	rm -f "$cap"
	# not through nsx: $! must be tcpdump itself
	ip netns exec "$PE2" tcpdump -Q in -i c0 -w "$cap" -U -n \
		"ip6 src fd01:1::2 or ip6 dst fc00:1::a6" >/dev/null 2>&1 &
	tp=$!
	sleep 0.5
	ip netns exec "$A1" ping -i 0.05 -w "$secs" -W 1 fd01:2::2 \
		>/dev/null 2>&1 &
	pa=$!
	ip netns exec "$PE2" ping -i 0.05 -w "$secs" -W 1 fc00:1::a6 \
		>/dev/null 2>&1 &
	pb=$!
	"$@"
	wait "$pa" "$pb"
	sleep 0.3
	kill -INT "$tp"
	wait "$tp" 2>/dev/null
	echo "$(tcpdump -r "$cap" -n "ip6 src fd01:1::2" 2>/dev/null | wc -l)" \
	     "$(tcpdump -r "$cap" -n "ip6 dst fc00:1::a6" 2>/dev/null | wc -l)" \
		>"$TMPD/leak"
}

frozen() { sleep 0.5; kill -STOP "$PE1_PID"; sleep 2; kill -CONT "$PE1_PID"; }
killed() { sleep 0.5; pe1_kill9; sleep 2; }
reloads() {
	local i
	for i in $(seq 1 10); do
		# every other reload changes the rules (a transaction each)
		if [ $((i % 2)) = 1 ]; then
			echo "route fd01:8::/64 table 101 encap seg6 mode encap segs fc00:2::a6" \
				>>"$TMPD/pe1.conf"
		else
			sed -i '/^route fd01:8::/d' "$TMPD/pe1.conf"
		fi
		timeout 5 "$SRV6CTL" -s "$TMPD/pe1.sock" reload >/dev/null ||
			echo "reload $i failed" >>"$TMPD/reload.err"
		sleep 0.1
	done
}

b0=$(status 1 's["steering"]["batches"]')
leak_count 3 frozen
expect_eq "srv6d frozen (SIGSTOP) 2 s: tenant packets unencapsulated, SID packets looping" \
	"$(cat "$TMPD/leak")" "0 0"
leak_count 3 reloads
expect_eq "10 reloads under traffic: tenant packets unencapsulated, SID packets looping" \
	"$(cat "$TMPD/leak")" "0 0"
[ -s "$TMPD/reload.err" ] && fail "$(cat "$TMPD/reload.err")"
b1=$(status 1 's["steering"]["batches"]')
expect_eq "10 reloads, 10 rule changes: one transaction each" "$((b1 - b0))" 10
leak_count 3 killed
expect_eq "srv6d killed -9: tenant packets unencapsulated, SID packets looping" \
	"$(cat "$TMPD/leak")" "0 0"
if nsx "$PE1" nft list table ip6 srv6d >/dev/null 2>&1; then
	pass "srv6d killed -9: its tables stay"
else
	fail "srv6d killed -9: its tables are gone"
fi
# the old fail-open state: srv6d dead and no rule of its own (its
# tenants' catch rules, left after kill -9, would still have the kernel
# encapsulate what comes unmarked: they go too, priorities P+1 to P+4)
nsx "$PE1" nft delete table ip6 srv6d
nsx "$PE1" nft delete table ip srv6d
for f in -6 -4; do
	nsx "$PE1" ip "$f" rule show | awk '/proto (srv6d|93)/ && !/fwmark/ {
		sub(":", "", $1); print $1 }' | sort -u | while read -r p; do
		while nsx "$PE1" ip "$f" rule del priority "$p" protocol 93 2>/dev/null; do :; done
	done
done
leak_count 2 true
got=$(cat "$TMPD/leak")
# (the SID packets may no longer loop even so: the blackhole behind each
# kernel-end SID, left after kill -9 as the rules were, drops them; the
# tenant packets show that the capture sees leaks)
if [ "${got% *}" -gt 0 ]; then
	pass "without srv6d's rules the capture sees the tenant leaks (tenant, SID: $got)"
else
	fail "without srv6d's rules the capture should see tenant leaks: got '$got'"
fi
pe1_start || fail "srv6d start on PE1 again"
ping_ok "after a restart a1 -> a2 over IPv6 again" "$A1" fd01:2::2
# a restart the way systemd does it: the unit's RestartKillSignal= (the
# default SIGTERM without one), then a start (0.5 s later: a slow one)
sig=${RESTART_SIGNAL:-$(sed -n 's/^RestartKillSignal=SIG//p' "$top_srcdir/systemd/srv6d.service.in")}
sig=${sig:-TERM}
restarted() {
	sleep 0.5
	kill -"$sig" "$PE1_PID"
	wait "$PE1_PID"
	PE1_PID=
	sleep 0.5
	pe1_start || echo "the start after SIG$sig failed" >>"$TMPD/restart.err"
	sleep 1
}
leak_count 4 restarted
expect_eq "a restart as systemd does it (SIG$sig, a start 0.5 s later) under traffic: tenant packets unencapsulated, SID packets looping" \
	"$(cat "$TMPD/leak")" "0 0"
[ -s "$TMPD/restart.err" ] && fail "$(cat "$TMPD/restart.err")"
ping_ok "after the restart a1 -> a2 over IPv6 again" "$A1" fd01:2::2
# restore PE1 for the ruleset comparison below
ip -n "$PE1" -6 route del default via fc00:12::2 dev c0
ip -n "$PE1" -6 rule add pref 2001 iif ta unreachable

# ---- 6. a clean stop --------------------------------------------------------
kill -TERM "$PE1_PID"
if wait "$PE1_PID"; then pass "PE1's srv6d exits 0"; else fail "PE1's srv6d exit status"; fi
PE1_PID=
if nsx "$PE1" nft list tables | grep -q srv6d; then
	fail "a table srv6d is left after the stop"
else
	pass "no table srv6d left after the stop"
fi
after=$(ruleset)
if [ "$after" = "$before" ]; then
	pass "nft list ruleset after the stop is the one before the start ($(echo "$after" | wc -l) lines: the operator's table)"
else
	fail "nft list ruleset changed:"
	diff <(echo "$before") <(echo "$after") | sed 's/^/     /'
fi
kill -TERM "$PE2_PID"
wait "$PE2_PID"
ns_finish
