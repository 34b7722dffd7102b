#!/bin/bash
# lifecycle.sh - srv6d's life on a real kernel: config check (-t), start,
# a second instance (same socket) refused, a burst of packets that all get verdicts,
# SIGHUP with a bad then a good config, SIGTERM that removes the daemon's
# ip rules, reinjection device and socket.
T=lifecycle
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

BURST=${BURST:-20000}

GOOD="$TMPD/good.conf"
BAD="$TMPD/bad.conf"
CONF="$TMPD/srv6d.conf"
cat >"$GOOD" <<EOF
# lifecycle test
queue 0
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::4/128 action End.T table 100
route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2
route 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1
EOF
cat >"$BAD" <<EOF
queue 0
sid fc00:100::1/128 action Endd
encap-source fc00:1::2
sid fc00:100::g/128 action End
EOF

# ---- srv6d -t --------------------------------------------------------------------
rc=0
"$SRV6D" -t -c "$GOOD" >"$TMPD/t.out" 2>&1 || rc=$?
expect_eq "srv6d -t on a good config exits 0" "$rc" 0
rc=0
"$SRV6D" -t -c "$BAD" >"$TMPD/t.out" 2>&1 || rc=$?
expect_eq "srv6d -t on a bad config exits 1" "$rc" 1
for l in 2 4; do
	if grep -q "^$BAD:$l: " "$TMPD/t.out"; then
		pass "error message for line $l starts with '$BAD:$l: '"
	else
		fail "no '$BAD:$l: ' message; srv6d -t said:"
		sed 's/^/     /' "$TMPD/t.out"
	fi
done

# ---- start, second instance ----------------------------------------------------------
ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 fc00:9:e0::/44 || fail "NFQUEUE rules"
cp "$GOOD" "$CONF"
srv6d_start "$CONF" || { fail "srv6d start"; ns_finish; }
pass "srv6d started (pid $SRV6D_PID), srv6ctl answers"
expect_eq "status reports the daemon's pid" "$(ctl_get "s['pid']")" "$SRV6D_PID"

rc=0
timeout 10 ip netns exec "$GW" "$SRV6D" -c "$CONF" -s "$SOCK" \
	>"$TMPD/second.log" 2>&1 || rc=$?
expect_eq "a second srv6d on the same socket refuses to start (exit 1)" "$rc" 1
sed 's/^/     second: /' "$TMPD/second.log" | head -5
if kill -0 "$SRV6D_PID" 2>/dev/null && ctl_json >/dev/null; then
	pass "the first srv6d still runs and answers"
else
	fail "the first srv6d died or stopped answering after the second start"
fi
if nsx "$GW" ip -6 rule | grep -q '^1000:'; then
	pass "ip -6 rules with priority 1000 installed"
else
	fail "no ip -6 rule with priority 1000 while running"
fi
if ip -n "$GW" link show srv6d0 >/dev/null 2>&1; then
	pass "reinjection device srv6d0 exists"
else
	fail "no reinjection device srv6d0 while running"
fi

# ---- burst ---------------------------------------------------------------------------
# /proc/net/netfilter/nfnetlink_queue: queue, portid, waiting, copy mode,
# copy range, dropped by the kernel (queue full), dropped by the user
# (ENOBUFS), id sequence, 1.
q() { nsx "$GW" cat /proc/net/netfilter/nfnetlink_queue | awk '$1 == 0'; }
qf() { q | awk -v f="$1" '{print $f}'; }
s1rx() {
	ip -n "$S1" -j -s link show s1 |
		"$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}
gw0rx() {
	ip -n "$GW" -j -s link show gw0 |
		"$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}
seq0=$(qf 8) qd0=$(qf 6) ud0=$(qf 7) s1rx0=$(s1rx) gw0rx0=$(gw0rx)
rx0=$(ctl_get "s['totals']['rx_packets']")
say "sending $BURST End packets as fast as a raw socket goes"
t0=$(date +%s.%N)
timeout 120 "$PYTHON" "$PKTPY" flood --send "$GEN:g0" --dmac $MAC_GW0 -n "$BURST" \
	--tag burst --src fc00:1::1 --segs fc00:100::1,fc00:9::c1 --ul none
t1=$(date +%s.%N)
waiting=
for _ in $(seq 1 50); do
	waiting=$(qf 3)
	[ "$waiting" = 0 ] && break
	sleep 0.1
done
expect_eq "queue 0 has no packet waiting for a verdict after the burst" "$waiting" 0
seq1=$(qf 8) qd1=$(qf 6) ud1=$(qf 7)
rx1=$(ctl_get "s['totals']['rx_packets']")
vd=$(ctl_get "s['totals']['verdicts']")
rxall=$(ctl_get "s['totals']['rx_packets']")
queued=$((seq1 - seq0)) rx=$((rx1 - rx0)) qd=$((qd1 - qd0)) ud=$((ud1 - ud0))
say "burst: $BURST sent in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; queued $queued, srv6d received $rx, kernel queue drops $qd, user drops $ud"
expect_eq "srv6d rx_packets == verdicts" "$vd" "$rxall"
expect_eq "every packet the queue took (id sequence) was received by srv6d" "$rx" "$queued"
gwrx=$(( $(gw0rx) - gw0rx0 ))
if [ "$((rx + qd + ud))" -le "$gwrx" ] && [ "$((rx + qd + ud))" -ge "$((gwrx - 5))" ]; then
	pass "every packet gw0 received was queued to srv6d or counted as a queue drop ($((rx + qd + ud)) of $gwrx)"
else
	fail "gw0 received $gwrx packets; srv6d got $rx, the queue dropped $qd + $ud"
fi
if [ "$qd" -gt 0 ]; then
	say "note: the kernel dropped $qd packets at the full queue: srv6d was slower than the sender on this (busy) machine"
fi
if [ "$rx" -ge $((BURST / 2)) ]; then
	pass "srv6d received at least half the burst ($rx of $BURST)"
else
	fail "srv6d received only $rx of $BURST"
fi
sleep 0.3
s1got=$(( $(s1rx) - s1rx0 ))
if [ "$s1got" -ge "$rx" ]; then
	pass "sink1 received every forwarded burst packet ($s1got)"
else
	fail "sink1 received $s1got packets, srv6d received $rx"
fi
fw=$(ctl_get "sid('fc00:100::1/128')['packets']")
if [ "$fw" -ge "$rx" ]; then
	pass "End counted every received burst packet ($fw)"
else
	fail "End counted $fw packets, srv6d received $rx"
fi

# ---- SIGHUP ------------------------------------------------------------------------------
cp "$BAD" "$CONF"
kill -HUP "$SRV6D_PID"
sleep 0.5
if kill -0 "$SRV6D_PID" 2>/dev/null && ctl_json >/dev/null; then
	pass "SIGHUP with a bad config: still running and answering"
else
	fail "SIGHUP with a bad config killed srv6d"
fi
if grep -q "$CONF:2: " "$LOG"; then
	pass "the rejected reload is logged with '$CONF:2: '"
else
	fail "no '$CONF:2: ' in the log after the bad reload"
fi
out=$(pkt_xchg --tag afterhup --src fc00:1::1 --segs fc00:100::1,fc00:9::c1 --ul none)
expect_fields "after the bad reload the old config still forwards End" "$out" s1 \
	ip6.dst=fc00:9::c1 srh.sl=0
{ cat "$GOOD"; echo "sid fc00:100::7/128 action End flavors psp"; } >"$CONF"
kill -HUP "$SRV6D_PID"
ok=
for _ in $(seq 1 30); do
	if [ "$(ctl_get "len([e for e in s['sids'] if e['sid'] == 'fc00:100::7/128'])" 2>/dev/null)" = 1 ]; then
		ok=1
		break
	fi
	sleep 0.1
done
if [ -n "$ok" ]; then
	pass "SIGHUP with a good config: the new SID fc00:100::7/128 is live"
else
	fail "SIGHUP with a good config: SID fc00:100::7/128 not in status"
fi
out=$(pkt_xchg --tag newsid --src fc00:1::1 --segs fc00:100::7,fc00:9::c1 --ul none)
expect_fields "the reloaded SID (PSP) forwards" "$out" s1 ip6.dst=fc00:9::c1 ip6.nh=59

# ---- SIGTERM -------------------------------------------------------------------------------
rc=0
srv6d_stop || rc=$?
expect_eq "SIGTERM: srv6d exits 0" "$rc" 0
if nsx "$GW" ip -6 rule | grep -q '^1000:'; then
	fail "ip -6 rules with priority 1000 left behind:"
	nsx "$GW" ip -6 rule | sed 's/^/     /'
else
	pass "the daemon's ip -6 rules are gone"
fi
if ip -n "$GW" link show srv6d0 >/dev/null 2>&1; then
	fail "reinjection device srv6d0 left behind"
else
	pass "reinjection device srv6d0 is gone"
fi
if [ -e "$SOCK" ]; then
	fail "control socket $SOCK left behind"
else
	pass "control socket removed"
fi
ns_finish
