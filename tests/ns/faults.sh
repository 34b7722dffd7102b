#!/bin/bash
# faults.sh - srv6d under the faults of issue 12, while steady streams go
# through an End, an End.X, an End.DT6 and an End.DT4 SID (the last three
# route by the daemon's own rules and tables: sink2, where the
# main table says sink1):
#   second   a second srv6d in the same network namespace, with another
#            control socket, exits 1 at once saying why, and changes
#            nothing: rules, routes and links are as before, and every
#            packet still reaches its own sink.
#   kill9    kill -9 under load, then a restart with a config without the
#            End.DT4 SID and a second End.X SID: what the dead one left
#            (rules of both families, a table's route; and a veth pair
#            and iif rule as an older srv6d left them) is swept, forwarding
#            resumes; the time from exec to the first forwarded packet is
#            printed.
#   watchdog with WATCHDOG_USEC (systemd's WatchdogSec=2) and a test hook
#            that hangs the worker (SRV6D_TEST_WORKER_HANG): keepalives
#            keep coming under load, stop once the worker hangs, and come
#            back when it runs again.  PID 1 is not always systemd, so
#            systemd's side is a datagram socket (NOTIFY_SOCKET) that
#            records every message with its time.
#   stop     SIGTERM under load, the NFQUEUE rule with --queue-bypass (as
#            the issue's probe had it): exit 0, how long it takes and how
#            many End packets neither srv6d nor the bypass forwarded; then
#            the namespace is as it was before srv6d started.
# FAULTS="second kill9" runs only those cases (stop always runs).
T=faults
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 200
need_srv6d

FAULTS=${FAULTS:-second kill9 watchdog}
RATE=${RATE:-2000}		# packets per second, over the 4 streams
WD_RATE=${WD_RATE:-10000}	# the same, while the watchdog is watched
WD_USEC=2000000			# WatchdogSec=2: a keepalive every second

CONF="$TMPD/srv6d.conf"
A="$TMPD/a.conf"
B="$TMPD/b.conf"
# offload no: the single-packet way, whose objects (End.DT4's veth pair,
# the End.X and End.DT6 rules) the sweep checks below count exactly; the
# offload objects a crashed instance leaves (kernel-end's and
# kernel-encap's rules and routes) are swept in kend.sh and kencap.sh.
cat >"$A" <<EOF
# faults test, config A
queue 0
offload no
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::6/128 action End.DT6 table 100
sid fc00:100::8/128 action End.DT4 table 100
sid fc00:100::5/128 action End.X nh6 fc00:2::2
EOF
# B: A without End.DT4 and End.X ::5 (their rules and ::5's table are then
# unwanted).
grep -v -e End.DT4 -e fc00:100::5 "$A" >"$B"

ns_setup || { fail "topology setup"; ns_finish; }
ip -n "$GW" route add 10.9.0.0/16 via 203.0.113.2 dev gw2 table 100 ||
	fail "IPv4 route in table 100"
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
# The sinks count (and drop) what arrives for each stream's destination,
# and End packets the bypass passed on unprocessed (fc00:100::1).
DSTS="fc00:9::c1 fc00:9::d1 fc00:9::d6 10.9.3.1"
# shellcheck disable=SC2086
sink_count_rules $DSTS fc00:100::1 || fail "sink counter rules"
# counts: "s1:s2" per stream.
counts() {
	local d out=
	for d in $DSTS; do
		out="$out $(sink_count "$S1" "$d"):$(sink_count "$S2" "$d")"
	done
	echo "$out"
}
# delta STREAM SINK: packets of stream STREAM (1-4, as in DSTS) that
# arrived at sinkSINK between the counts $c0 and $c1.
delta() {
	local b a
	b=$(echo "$c0" | awk -v i="$1" -v s="$2" '{ split($i, x, ":"); print x[s] }')
	a=$(echo "$c1" | awk -v i="$1" -v s="$2" '{ split($i, x, ":"); print x[s] }')
	echo $((a - b))
}

# The namespace's policy routing and links, as an operator sees them.
snapshot() {
	local c
	for c in "-4 rule" "-6 rule" "-4 route show table all" \
		"-6 route show table all" "-br link"; do
		echo "## ip $c"
		# shellcheck disable=SC2086
		ip -n "$GW" $c
	done
}
# expect_same DESC FILE1 FILE2
expect_same() {
	if diff -u "$2" "$3" >"$TMPD/diff"; then
		pass "$1"
	else
		fail "$1:"
		sed 's/^/     /' "$TMPD/diff" | head -40
	fi
}

HE=$(pkt_build --tag fe --src fc00:1::1 --segs fc00:100::1,fc00:9::c1 --ul udp)
HX=$(pkt_build --tag fx --src fc00:1::1 --segs fc00:100::3,fc00:9::d1 --ul udp)
H6=$(pkt_build --tag f6 --src fc00:1::1 --segs fc00:100::6 --sl 0 \
	--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::d6 --ul udp)
H4=$(pkt_build --tag f4 --src fc00:1::1 --segs fc00:100::8 --sl 0 \
	--inner ipv4 --inner-src 192.0.2.1 --inner-dst 10.9.3.1 --ul udp)

# sender_start OUT: RATE packets per second, the 4 streams in turn, until
# sender_stop; OUT gets "total e x d6 d4".
sender_start() {
	pkt_paced_start "$1" "$RATE" 0 "$HE" "$HX" "$H6" "$H4" ||
		fail "the sender did not start"
}
sender_stop() {
	pkt_paced_stop
	sleep 0.3	# the last packets reach the sinks
}

# systemd's side of sd_notify(), its messages timed.
notify_start || fail "the sd_notify listener did not start"
mono() { "$PYTHON" -c 'import time; print("%.3f" % time.monotonic())'; }
# keepalives FROM [TO]: WATCHDOG=1 times in [FROM, TO).
keepalives() {
	awk -v a="$1" -v b="${2:-1e12}" '$2 ~ /^WATCHDOG=1/ && $1 >= a && $1 < b { print $1 }' "$NOTES"
}
# max_gap T...: the longest interval between consecutive times.
max_gap() { awk 'NR > 1 && $1 - p > g { g = $1 - p } { p = $1 } END { printf "%.2f\n", g }'; }

snapshot >"$TMPD/pre"
cp "$A" "$CONF"
HANG="$TMPD/hang"
# The watchdog and the test hook are armed from the start (the hook costs
# one test of a pointer per batch while its file does not exist).
NOTIFY_SOCKET=$NOTIFY WATCHDOG_USEC=$WD_USEC SRV6D_TEST_WORKER_HANG=$HANG \
	srv6d_start "$CONF" || { fail "srv6d start"; ns_finish; }
pass "srv6d started (pid $SRV6D_PID)"
snapshot >"$TMPD/s0"
left=$(ip -n "$GW" -br link show | grep -c '^srv6d[0-9a-f]\{8\}')
expect_eq "no srv6dMMMMMMMM veth pair (End.DT4 goes by srv6d0 with its mark)" "$left" 0
if nsx "$GW" ip -4 rule show priority 1000 | grep -q 'fwmark .* lookup 100'; then
	pass "End.DT4's IPv4 rule is by fwmark"
else
	fail "End.DT4's IPv4 rule is by fwmark"
fi

has() { [[ " $FAULTS " == *" $1 "* ]]; }

# ---- second instance ----------------------------------------------------------
if has second; then
	c0=$(counts)
	sender_start "$TMPD/sent1"
	sleep 1
	t0=$(mono)
	rc=0
	timeout 10 ip netns exec "$GW" "$SRV6D" -c "$CONF" -s "$TMPD/second.sock" -d \
		>"$TMPD/second.log" 2>&1 || rc=$?
	t1=$(mono)
	say "second instance: exit $rc after $(awk "BEGIN { printf \"%.0f\", ($t1 - $t0) * 1000 }") ms:"
	sed 's/^/     second: /' "$TMPD/second.log" | head -5
	expect_eq "a second srv6d (another control socket) exits 1" "$rc" 1
	if awk "BEGIN { exit !($t1 - $t0 < 2) }"; then
		pass "it exits within 2 s"
	else
		fail "it took $(awk "BEGIN { print $t1 - $t0 }") s to exit"
	fi
	if grep -q "another srv6d (pid $SRV6D_PID) runs in this network namespace" \
		"$TMPD/second.log"; then
		pass "it says another srv6d (pid $SRV6D_PID) runs in this network namespace"
	else
		fail "no 'another srv6d (pid $SRV6D_PID) runs in this network namespace' message"
	fi
	[ -e "$TMPD/second.sock" ] && fail "the second instance left its socket"
	# Each of many more attempts is told the pid (the running srv6d
	# closes the connections they leave in its lock's backlog).
	named=0
	for i in $(seq 1 10); do
		ip netns exec "$GW" timeout 10 "$SRV6D" -c "$CONF" \
			-s "$TMPD/second$i.sock" >"$TMPD/second$i.log" 2>&1
		grep -q "another srv6d (pid $SRV6D_PID) runs" "$TMPD/second$i.log" &&
			named=$((named + 1))
		sleep 0.05
	done
	expect_eq "10 more attempts: each exits saying the running one's pid" "$named" 10
	# Another namespace has a lock of its own; the same control socket
	# path is still refused there.
	rc=0
	ip netns exec "$S1" timeout 10 "$SRV6D" -c "$CONF" -s "$SOCK" \
		>"$TMPD/other-ns.log" 2>&1 || rc=$?
	if [ "$rc" = 1 ] && grep -q "another srv6d is running on $SOCK" "$TMPD/other-ns.log"; then
		pass "in another namespace, the lock is free but the same socket path is refused"
	else
		fail "srv6d in another namespace on the same socket: exit $rc:"
		sed 's/^/     /' "$TMPD/other-ns.log" | head -5
	fi
	sleep 1		# traffic after the second instance's exit
	snapshot >"$TMPD/s1"
	expect_same "ip rules, routes (every table) and links unchanged by the second instance" \
		"$TMPD/s0" "$TMPD/s1"
	sender_stop
	read -r total se sx s6 s4 <"$TMPD/sent1"
	c1=$(counts)
	say "sent $total packets ($se End, $sx End.X, $s6 End.DT6, $s4 End.DT4); sinks s1:s2 before$c0 after$c1"
	expect_eq "End: every packet at sink1" "$(delta 1 1)" "$se"
	expect_eq "End.X: every packet at sink2 (its next hop)" "$(delta 2 2)" "$sx"
	expect_eq "End.X: none at sink1 (the main table)" "$(delta 2 1)" 0
	expect_eq "End.DT6: every packet at sink2 (table 100)" "$(delta 3 2)" "$s6"
	expect_eq "End.DT6: none at sink1 (the main table)" "$(delta 3 1)" 0
	expect_eq "End.DT4: every packet at sink2 (table 100, by its mark)" "$(delta 4 2)" "$s4"
	expect_eq "End.DT4: none at sink1" "$(delta 4 1)" 0
	if kill -0 "$SRV6D_PID" 2>/dev/null &&
		[ "$(ctl_get "s['pid']")" = "$SRV6D_PID" ]; then
		pass "the first srv6d still runs and answers on its socket"
	else
		fail "the first srv6d died or stopped answering"
	fi
fi

# ---- watchdog: keepalives under load, none from a hung worker ----------------------
if has watchdog; then
	RATE=$WD_RATE sender_start "$TMPD/sent2"
	tl0=$(mono)
	sleep 5
	tl1=$(mono)
	n=$(keepalives "$tl0" "$tl1" | wc -l)
	gap=$({ echo "$tl0"; keepalives "$tl0" "$tl1"; echo "$tl1"; } | max_gap)
	say "under load ($WD_RATE packets/s): $n keepalives in 5 s, longest gap $gap s (WatchdogSec=2)"
	if [ "$n" -ge 4 ] && awk "BEGIN { exit !($gap < 1.6) }"; then
		pass "a busy, healthy daemon keeps sending keepalives ($n in 5 s, longest gap $gap s)"
	else
		fail "keepalives under load: $n in 5 s, longest gap $gap s"
	fi
	: >"$HANG"
	th=$(mono)
	sleep 0.5	# the batch in hand is done: the worker hangs
	rx0=$(ctl_get "s['totals']['rx_packets']")
	sleep 5.5
	te=$(mono)
	last=$(keepalives "$th" "$te" | tail -1)
	nh=$(keepalives "$th" "$te" | wc -l)
	after=$(keepalives "$(awk "BEGIN { print $th + 3.2 }")" "$te" | wc -l)
	say "worker hung at $th: $nh keepalives after it, the last at ${last:-none}"
	expect_eq "no keepalive from 3.2 s after the worker hung (stall limit 2 s + one interval)" "$after" 0
	if [ "$(ctl_get "s['totals']['rx_packets']")" = "$rx0" ]; then
		pass "the hung worker received nothing more (the hook works)"
	else
		fail "the worker kept receiving while hung"
	fi
	if grep -q "a worker is stuck: withholding the watchdog keepalive" "$LOG"; then
		pass "the daemon logs that it withholds the keepalive"
	else
		fail "no 'a worker is stuck' in the log"
	fi
	if kill -0 "$SRV6D_PID" 2>/dev/null && ctl_json >/dev/null; then
		pass "the control socket still answers while the worker hangs"
	else
		fail "srv6d stopped answering while the worker hangs"
	fi
	rm -f "$HANG"
	tr=$(mono)
	sleep 2.5
	nr=$(keepalives "$tr" | wc -l)
	if [ "$nr" -ge 1 ]; then
		pass "keepalives resume once the worker runs again ($nr in 2.5 s)"
	else
		fail "no keepalive in 2.5 s after the worker runs again"
	fi
	sender_stop
fi

# ---- kill -9 under load, restart ---------------------------------------------------
if has kill9; then
	sender_start "$TMPD/sent3"
	sleep 1
	kill -KILL "$SRV6D_PID"
	wait "$SRV6D_PID" 2>/dev/null
	SRV6D_PID=
	rules=$(nsx "$GW" ip -6 rule show priority 1000 | wc -l)
	rules4=$(nsx "$GW" ip -4 rule show priority 1000 | wc -l)
	tables=$(ip -n "$GW" -6 route show table all | grep -c 'table 156755[5-9]')
	say "left by kill -9: $rules IPv6 and $rules4 IPv4 rules at priority 1000, $tables routes in its tables"
	if [ "$rules" -gt 0 ] && [ "$rules4" -gt 0 ]; then
		pass "kill -9 left rules of both families behind (as it must: nobody removed them)"
	else
		fail "kill -9 left nothing behind: the sweep below tests nothing"
	fi
	# What an srv6d that gave every SID with IPv4 results a veth pair
	# left too: the SID's own pair (srv6d's MAC addresses, as it made
	# them) and its iif rule (srv6d's protocol, 93); the sweep removes
	# them although this srv6d makes none.
	if ip -n "$GW" link add srv6d5d6f0004 address 02:00:5d:6f:00:04 type veth \
		peer name srv6d5d6f0004t address 06:00:5d:6f:00:04 &&
		nsx "$GW" ip -4 rule add priority 1000 iif srv6d5d6f0004 lookup 100 protocol 93; then
		pass "an older srv6d's End.DT4 veth pair and iif rule made"
	else
		fail "cannot make an older srv6d's veth pair and iif rule"
	fi
	expect_eq "kill -9 left End.X ::5's route in its table 0x5d6f0005" \
		"$(ip -n "$GW" -6 route show table 1567555589 | wc -l)" 1
	sleep 0.3
	# The first End packet at sink1 after the restart: captured on s1.
	nsx "$S1" "$PYTHON" - s1 "$TMPD/first" "$TMPD/cap.ready" <<'PY' &
import socket, sys, time
ifname, out, ready = sys.argv[1:4]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x86dd))
s.bind((ifname, 0x86dd))
s.settimeout(30)
dst = socket.inet_pton(socket.AF_INET6, "fc00:9::c1")
open(ready, "w").close()
while True:
    f = s.recv(2048)
    if f[14 + 24:14 + 40] == dst:
        break
with open(out, "w") as o:
    o.write("%.4f\n" % time.monotonic())
PY
	CAP=$!
	for _ in $(seq 1 50); do [ -e "$TMPD/cap.ready" ] && break; sleep 0.05; done
	c0=$(counts)
	cp "$B" "$CONF"
	te=$(mono)
	srv6d_start "$CONF" || { fail "srv6d restart"; sender_stop; ns_finish; }
	tready=$(mono)
	wait "$CAP"
	tf=$(cat "$TMPD/first" 2>/dev/null)
	if [ -n "$tf" ]; then
		ms=$(awk "BEGIN { printf \"%.0f\", ($tf - $te) * 1000 }")
		say "restart after kill -9: exec -> first forwarded packet $ms ms (exec -> control socket answers $(awk "BEGIN { printf \"%.0f\", ($tready - $te) * 1000 }") ms)"
		pass "forwarding resumed after the restart ($ms ms from exec)"
	else
		fail "no End packet at sink1 after the restart"
	fi
	sleep 1
	sender_stop
	c1=$(counts)
	say "after the restart, sinks s1:s2 before$c0 after$c1"
	if [ "$(delta 2 2)" -gt 0 ]; then
		pass "End.X forwards again, to sink2 ($(delta 2 2))"
	else
		fail "End.X: nothing at sink2 after the restart"
	fi
	if [ "$(delta 3 2)" -gt 0 ]; then
		pass "End.DT6 forwards again, to sink2 ($(delta 3 2))"
	else
		fail "End.DT6: nothing at sink2 after the restart"
	fi
	expect_eq "End.X and End.DT6: none at sink1 across the kill and restart" \
		"$(($(delta 2 1) + $(delta 3 1)))" 0
	expect_eq "End.DT4 (not in the new config): nothing forwarded" \
		"$(($(delta 4 1) + $(delta 4 2)))" 0
	veths=$(ip -n "$GW" -br link show | grep -c '^srv6d[0-9a-f]\{8\}')
	expect_eq "the older srv6d's End.DT4 veth pair was swept" "$veths" 0
	expect_eq "IPv4 rules at priority 1000 swept (End.DT4's, by fwmark and the older iif one)" \
		"$(nsx "$GW" ip -4 rule show priority 1000 | wc -l)" 0
	expect_eq "IPv6 rules at priority 1000: End.X ::3's and End.DT6's (and its unreachable) only" \
		"$(nsx "$GW" ip -6 rule show priority 1000 | wc -l)" 3
	# End.X ::3's table is 0x5d6f0002 (1567555586), ::5's 0x5d6f0005.
	expect_eq "the dead one's End.X ::5 table (0x5d6f0005) was swept" \
		"$(ip -n "$GW" -6 route show table 1567555589 | wc -l)" 0
	expect_eq "End.X ::3's table (0x5d6f0002) has its route" \
		"$(ip -n "$GW" -6 route show table 1567555586 | wc -l)" 1
	if [ -n "$(nfq_stat 1)" ] && [ "$(nfq_stat 3)" = 0 ]; then
		pass "queue 0 bound again, nothing waiting"
	else
		fail "queue 0: $(nfq_stat 3) packets waiting"
	fi
fi

# ---- SIGTERM under load: nothing of srv6d's is left -----------------------------------
# Once the queue is unbound the kernel passes the packets on unprocessed
# (--queue-bypass): an End packet arrives at sink1 either processed
# (fc00:9::c1) or bypassed (fc00:100::1); what is neither was lost.
nsx "$GW" ip6tables -t raw -R PREROUTING 1 ! -i srv6d+ -d fc00:100::/32 \
	-j NFQUEUE --queue-num 0 --queue-bypass || fail "bypass rule"
e0=$(sink_count "$S1" fc00:9::c1) b0=$(sink_count "$S1" fc00:100::1)
sender_start "$TMPD/sent4"
sleep 1.5
t0=$(mono)
kill -TERM "$SRV6D_PID"
rc=0
wait "$SRV6D_PID" || rc=$?
t1=$(mono)
SRV6D_PID=
sleep 0.5
sender_stop
read -r total se _ <"$TMPD/sent4"
e1=$(sink_count "$S1" fc00:9::c1) b1=$(sink_count "$S1" fc00:100::1)
lost=$((se - (e1 - e0) - (b1 - b0)))
ms=$(awk "BEGIN { printf \"%.0f\", ($t1 - $t0) * 1000 }")
say "SIGTERM under load: exit $rc after $ms ms; End: $se sent, $((e1 - e0)) processed, $((b1 - b0)) bypassed after the stop, $lost lost"
expect_eq "SIGTERM: srv6d exits 0" "$rc" 0
if [ "$ms" -lt 2000 ]; then
	pass "SIGTERM under load: exits in $ms ms"
else
	fail "SIGTERM under load took $ms ms"
fi
# Packets the kernel queued after the last drain are dropped at unbind
# (nfqnl_flush): a few at most.
if [ "$lost" -ge 0 ] && [ "$lost" -le 10 ]; then
	pass "SIGTERM under load: $lost of $se End packets lost (at most 10)"
else
	fail "SIGTERM under load: $lost of $se End packets lost"
fi
snapshot >"$TMPD/post"
expect_same "after SIGTERM, the namespace's rules, routes and links are as before srv6d ran" \
	"$TMPD/pre" "$TMPD/post"
notify_stop
ns_finish
