#!/bin/bash
# ctl-abuse.sh - the control socket under abuse (issue 12): garbage, a huge
# length, a truncated frame, idle and slow (a byte a second) clients from
# non-root members of control-group, then a flood of 200 connections; all
# the while root's `srv6ctl status` answers (timed), root's `srv6ctl
# reload` works with the non-root slots full, a refused client is told why
# (srv6ctl exits 5 "busy", not "Broken pipe"), slow and idle clients are
# dropped 10 s after they connected, the log holds only a few lines about
# it, and End packets keep reaching sink1.
T=ctl-abuse
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d
command -v setpriv >/dev/null 2>&1 || skip_test "setpriv not found"

ABUSE="$PYTHON $top_srcdir/tests/ns/ctl-abuse.py"
GID=4242			# control-group: a number, no group file needed
UIDS=60001,60002,60003,60004	# non-root members (primary group $GID)
MAX_CLIENTS=64 ROOT_SLOTS=4 PER_UID=16	# ctl.h
DEADLINE=10			# CTL_REQUEST_TIMEOUT

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
control-group $GID
sid fc00:100::1/128 action End
EOF
chmod 755 "$TMPD"	# the non-root clients reach the socket (mode 0660)

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID"

# status_ms: run `srv6ctl status` as root; prints its milliseconds, and
# returns its exit status.
status_ms() {
	local t0 t1 rc=0
	t0=$(date +%s%N)
	timeout 10 "$SRV6CTL" -s "$SOCK" status >"$TMPD/status.out" 2>&1 || rc=$?
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
	return $rc
}

# expect_status_fast DESC: root's status answers within 2 s.
expect_status_fast() {
	local ms rc=0
	ms=$(status_ms) || rc=$?
	if [ "$rc" -eq 0 ] && [ "$ms" -lt 2000 ]; then
		pass "$1: root's srv6ctl status answers (${ms} ms)"
	else
		fail "$1: root's srv6ctl status: exit $rc after ${ms} ms: $(head -c 300 "$TMPD/status.out")"
	fi
}

s1rx() {
	ip -n "$S1" -j -s link show s1 |
		"$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}

# jq_py FILE EXPR: evaluate EXPR over the list `r` of FILE's JSON lines.
jq_py() {
	"$PYTHON" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(eval(sys.argv[2]))' "$1" "$2"
}

log0=$(wc -l <"$LOG")

# ---- malformed requests ----------------------------------------------------------
hdr() {	# magic version type length: a header in host (little-endian) order
	"$PYTHON" -c 'import struct,sys; print(struct.pack("=IHHI", *[int(x, 0) for x in sys.argv[1:]]).hex())' "$@"
}
out=$($ABUSE raw "$SOCK" "$(head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n')")
expect_eq "garbage: a protocol error reply, then close" \
	"$(jq_py <(echo "$out") 'r[0].get("status"), r[0].get("closed")')" "(1, True)"
out=$($ABUSE raw "$SOCK" "$(hdr 0x53364354 1 1 4294967295)")
expect_eq "a 4 GiB length: 'message too long', then close" \
	"$(jq_py <(echo "$out") 'r[0].get("status"), (r[0].get("doc") or {}).get("error")')" \
	"(1, 'message too long')"
out=$($ABUSE raw "$SOCK" "$(hdr 0x53364354 1 1 100)78787878787878787878")
expect_eq "a truncated frame (10 of 100 bytes, then EOF): no reply" "$out" '{"timeout": true}'
expect_status_fast "after the malformed requests"

# ---- slow and idle clients fill the non-root slots ------------------------------------
# Three uids trickle a request a byte a second, one is idle; each tries
# PER_UID + 2 connections.
s1rx0=$(s1rx)
rx0=$(ctl_get "s['totals']['rx_packets']")
$ABUSE clients "$SOCK" --gid $GID --uids 60001,60002,60003 \
	--per-uid $((PER_UID + 2)) --mode slow --max 20 >"$TMPD/slow.json" &
slow_pid=$!
$ABUSE clients "$SOCK" --gid $GID --uids 60004 --per-uid $((PER_UID + 2)) \
	--mode idle --max 20 >"$TMPD/idle.json" &
idle_pid=$!
sleep 3
expect_status_fast "non-root slots full of slow and idle clients"
rc=0
timeout 10 "$SRV6CTL" -s "$SOCK" reload >"$TMPD/reload.out" 2>&1 || rc=$?
expect_eq "root's srv6ctl reload works with the non-root slots full (exit 0; $(head -c 200 "$TMPD/reload.out"))" "$rc" 0
rc=0
timeout 10 setpriv --reuid=60005 --regid=$GID --clear-groups \
	"$SRV6CTL" -s "$SOCK" status >"$TMPD/busy.out" 2>&1 || rc=$?
expect_eq "a non-root srv6ctl status when the slots are full exits 5 (busy)" "$rc" 5
if grep -q "too many clients" "$TMPD/busy.out" &&
	! grep -q "Broken pipe" "$TMPD/busy.out"; then
	pass "it says why: $(head -c 200 "$TMPD/busy.out")"
else
	fail "a refused srv6ctl says: $(head -c 300 "$TMPD/busy.out")"
fi
say "sending 2000 End packets while the slots are full"
timeout 60 "$PYTHON" "$PKTPY" flood --send "$GEN:g0" --dmac $MAC_GW0 -n 2000 \
	--tag abuse --src fc00:1::1 --segs fc00:100::1,fc00:9::c1 --ul none >/dev/null
expect_status_fast "after the packets"
wait "$slow_pid" "$idle_pid"
cat "$TMPD/slow.json" "$TMPD/idle.json" >"$TMPD/all.json"
held=$(jq_py "$TMPD/all.json" 'sum(1 for c in r if c["held"])')
expect_eq "non-root clients hold at most $MAX_CLIENTS - $ROOT_SLOTS slots" \
	"$held" $((MAX_CLIENTS - ROOT_SLOTS))
expect_eq "no uid holds more than $PER_UID" \
	"$(jq_py "$TMPD/all.json" 'max(sum(1 for c in r if c["held"] and c["uid"] == u) for u in set(c["uid"] for c in r)) <= '$PER_UID)" True
expect_eq "every refused client got the reply 'too many clients...' before the close" \
	"$(jq_py "$TMPD/all.json" 'all(not c["held"] and c["status"] == 7 and "too many clients" in (c["reply"] or "") for c in r if not c["held"])')" True
lt=$(jq_py "$TMPD/all.json" 'sorted(set(str(c["lifetime"]) for c in r if c["held"]))')
say "lifetimes of the held slow and idle clients: $lt"
expect_eq "every slow or idle client is dropped $DEADLINE s after it connected (not later than $((DEADLINE + 2)) s)" \
	"$(jq_py "$TMPD/all.json" 'all(c["lifetime"] is not None and '$((DEADLINE - 1))' <= c["lifetime"] <= '$((DEADLINE + 2))' for c in r if c["held"])')" True
expect_eq "a dropped slow client is told it timed out" \
	"$(jq_py "$TMPD/slow.json" 'all("timed out" in (c["reply"] or "") for c in r if c["held"])')" True
sleep 0.3
s1got=$(( $(s1rx) - s1rx0 ))
rx=$(( $(ctl_get "s['totals']['rx_packets']") - rx0 ))
if [ "$rx" -ge 1000 ] && [ "$s1got" -ge "$rx" ]; then
	pass "the data path kept forwarding: srv6d received $rx of 2000, sink1 got $s1got"
else
	fail "the data path: srv6d received $rx of 2000, sink1 got $s1got"
fi

# ---- a flood of 200 connections ------------------------------------------------------------
$ABUSE clients "$SOCK" --gid $GID --uids $UIDS --per-uid 50 --mode idle \
	--max 15 >"$TMPD/flood.json" &
flood_pid=$!
sleep 2
expect_status_fast "during a flood of 200 connections"
wait "$flood_pid"
held=$(jq_py "$TMPD/flood.json" 'sum(1 for c in r if c["held"])')
refused=$(jq_py "$TMPD/flood.json" 'sum(1 for c in r if not c["held"])')
say "flood: $held held, $refused refused: $(jq_py "$TMPD/flood.json" 'sorted(set(str((c["status"], c["reply"], c["connect_error"])) for c in r if not c["held"]))')"
expect_eq "flood: $((MAX_CLIENTS - ROOT_SLOTS)) held, the others refused" \
	"$held $refused" "$((MAX_CLIENTS - ROOT_SLOTS)) $((200 - MAX_CLIENTS + ROOT_SLOTS))"
expect_eq "flood: every refused connection got the 'too many clients' reply" \
	"$(jq_py "$TMPD/flood.json" 'all(c["status"] == 7 for c in r if not c["held"])')" True
expect_status_fast "after the flood"

# ---- the log -------------------------------------------------------------------------------
lines=$(tail -n +$((log0 + 1)) "$LOG" | grep -c -i "control")
say "log: $lines lines about control clients, of $(( $(wc -l <"$LOG") - log0 )) since the abuse began"
tail -n +$((log0 + 1)) "$LOG" | grep -i "control" | head -20 | sed 's/^/     /'
if [ "$lines" -le 30 ]; then
	pass "the log holds a few lines about control clients ($lines, rate-limited)"
else
	fail "the log holds $lines lines about control clients"
fi
refused=$(tail -n +$((log0 + 1)) "$LOG" | grep -c "control client.*refused")
if [ "$refused" -ge 1 ] && [ "$refused" -le 10 ]; then
	pass "refused clients: $refused log lines for some 150 refusals (at most 5 a minute)"
else
	fail "refused clients: $refused log lines for some 150 refusals"
fi
if kill -0 "$SRV6D_PID" 2>/dev/null; then
	pass "srv6d still runs"
else
	fail "srv6d died"
fi
if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
