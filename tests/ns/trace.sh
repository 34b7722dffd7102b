#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# trace.sh - srv6ctl trace and capture on real packets (issue 21 item 2):
# a trace of one SID shows that SID's packets only, each with its
# behavior, outcome, way back and verdict; a trace of everything shows a
# hop-limit drop with its reason; a trace of a policy shows the policy;
# srv6ctl capture writes the dropped packets (hop limit 1 to an End SID),
# as queued, to a pcapng file that tshark reads, each with its reason as
# the packet's comment, and leaves the forwarded ones out; an interrupted
# trace is stopped in the daemon; one nobody reads is stopped after 10 s;
# malformed trace requests get a clear error (status invalid or not
# found) and the connection goes on; and the status still adds up.
T=trace
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d
command -v tshark >/dev/null 2>&1 || skip_test "tshark not found"

S="--src fc00:1::1"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::2/128 action End
route fc00:9:1::/48 encap seg6 mode encap segs fc00:9::c1
EOF

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 fc00:9:1::/48 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

send() {
	local n=$1
	shift
	timeout 30 "$PYTHON" "$PKTPY" flood --send "$GEN:g0" --dmac $MAC_GW0 \
		-n "$n" "$@" >/dev/null
}

# started: wait for the daemon's log line of the Nth trace started.
started() {
	local _
	for _ in $(seq 1 50); do
		[ "$(grep -c 'trace started' "$LOG")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# bg_wait PID SECONDS: wait for a background srv6ctl; its exit status.
bg_wait() {
	local _
	for _ in $(seq 1 $((10 * $2))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && kill -KILL "$1"
	wait "$1"
}

NTRACE=0

# ---- one SID ---------------------------------------------------------------------
"$SRV6CTL" -s "$SOCK" trace 4 sid fc00:100::1/128 >"$TMPD/t1.txt" 2>&1 &
pid=$!
NTRACE=$((NTRACE + 1))
started $NTRACE || fail "trace 1 did not start"
send 3 --tag other $S --segs fc00:100::2,fc00:9::c1
send 4 --tag mine $S --segs fc00:100::1,fc00:9::c1
bg_wait $pid 10
expect_eq "trace 4 sid fc00:100::1/128: exit status" "$?" 0
# forwarded as a verdict's payload, or injected by srv6d's device where
# the kernel takes no payload (SRV6D_KERNEL=7.2)
expect_eq "four lines, all of that SID, forwarded or injected" \
	"$(grep -cE ': sid fc00:100::1/128 \(End\): (forwarded|injected) \(way ' "$TMPD/t1.txt")" 4
expect_eq "none of the other SID" "$(grep -c 'fc00:100::2/128' "$TMPD/t1.txt")" 0
if grep -q '^[0-9:.]* queue 0 fc00:1::1 > fc00:100::1 len [0-9]*: ' "$TMPD/t1.txt"; then
	pass "a line has the time, queue, addresses and length: $(head -1 "$TMPD/t1.txt")"
else
	fail "trace lines: $(head -c 400 "$TMPD/t1.txt")"
fi

# ---- everything, JSON, a drop ------------------------------------------------------
"$SRV6CTL" -s "$SOCK" -j trace 2 >"$TMPD/t2.json" 2>&1 &
pid=$!
NTRACE=$((NTRACE + 1))
started $NTRACE || fail "trace 2 did not start"
send 2 --tag hop $S --segs fc00:100::1,fc00:9::c1 --hlim 1
bg_wait $pid 10
expect_eq "trace -j 2: exit status" "$?" 0
got=$("$PYTHON" - "$TMPD/t2.json" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = recs[0]
print(len(recs), r["sid"], r["behavior"], r["outcome"], r["reason"], r["answer"], r["src"], r["dst"])
EOF
)
expect_eq "a hop-limit drop: the SID, the behavior, dropped, its reason, the ICMP error" \
	"$got" "2 fc00:100::1/128 End dropped hop_limit icmp fc00:1::1 fc00:100::1"

# ---- a policy ------------------------------------------------------------------------
"$SRV6CTL" -s "$SOCK" trace 2 policy fc00:9:1::/48 >"$TMPD/t3.txt" 2>&1 &
pid=$!
NTRACE=$((NTRACE + 1))
started $NTRACE || fail "trace 3 did not start"
send 1 --tag nosid $S --dst fc00:100::99
send 2 --tag pol $S --dst fc00:9:1::5
bg_wait $pid 10
expect_eq "trace 2 policy fc00:9:1::/48: exit status" "$?" 0
expect_eq "two lines of the policy" \
	"$(grep -c 'fc00:9:1::5 len [0-9]*: policy fc00:9:1::/48 table 254: ' "$TMPD/t3.txt")" 2

# ---- capture of drops -------------------------------------------------------------------
"$SRV6CTL" -s "$SOCK" capture "$TMPD/drops.pcapng" 3 >"$TMPD/c.txt" 2>&1 &
pid=$!
NTRACE=$((NTRACE + 1))
started $NTRACE || fail "capture did not start"
send 5 --tag fine $S --segs fc00:100::1,fc00:9::c1
send 3 --tag hl1 $S --segs fc00:100::1,fc00:9::c1 --hlim 1
bg_wait $pid 10
expect_eq "capture FILE 3: exit status" "$?" 0
tshark -r "$TMPD/drops.pcapng" -T fields -E separator='|' -e frame.comment \
	-e ipv6.dst -e ipv6.hlim -e ipv6.routing.segleft >"$TMPD/c.fields" 2>"$TMPD/c.err"
expect_eq "tshark reads three packets" "$(wc -l <"$TMPD/c.fields")" 3
# (the way the ICMP error goes depends on the kernel: SRV6D_KERNEL=7.2)
expect_eq "each the packet as queued (hop limit 1, SL 1), its reason as the comment" \
	"$(sed 's/ (way [^)]*)//' "$TMPD/c.fields" | sort -u)" \
	"srv6d: dropped hop_limit, ICMP error sent; sid fc00:100::1/128 (End); queue 0|fc00:100::1|1|1"
expect_eq "tshark said nothing else" "$(grep -v 'Running as user' "$TMPD/c.err")" ""

# ---- an interrupted trace -------------------------------------------------------------
"$SRV6CTL" -s "$SOCK" trace 1000 >/dev/null 2>&1 &
pid=$!
NTRACE=$((NTRACE + 1))
started $NTRACE || fail "trace 5 did not start"
kill -INT $pid
bg_wait $pid 5
expect_eq "trace interrupted: exit status" "$?" 0
if grep -q 'trace stopped: asked' "$LOG"; then
	pass "the interrupted trace was stopped in the daemon"
else
	fail "no 'trace stopped: asked' in the log"
fi

# ---- the protocol: bad requests, a trace nobody reads ----------------------------------
# raw REQ...: send each request text (CTL_REQ_TRACE) on one connection;
# print "status error" per reply.
raw() {
	ip netns exec "$GW" "$PYTHON" - "$SOCK" "$@" <<'EOF'
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
def recvn(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise SystemExit("closed")
        b += c
    return b
for req in sys.argv[2:]:
    p = req.encode().replace(b"\\0", b"\0")
    s.sendall(struct.pack("=IHHI", 0x53364354, 1, 10, len(p)) + p)
    magic, ver, status, n = struct.unpack("=IHHI", recvn(12))
    doc = json.loads(recvn(n))
    print(status, doc.get("error", "ok"))
EOF
}
raw "start count 0" "start count x" "start sid nope" "start sid fc00:100::77/128" \
	"start policy 10.0.0.0" "start sid fc00:100::1 policy fc00:9:1::/48" \
	"start frobnicate" "bogus" "read more" "" "start\\0x" "stop" >"$TMPD/raw.txt" 2>&1
expect_eq "malformed trace requests: status and message each" "$(cat "$TMPD/raw.txt")" \
"6 trace: count: expected a number from 1 to 100000
6 trace: count: expected a number from 1 to 100000
6 trace: sid: 'nope' is not a SID or an IPv6 address
5 trace: no such SID: fc00:100::77/128
6 trace: policy: '10.0.0.0' is not a prefix/length
6 trace: one sid or one policy, not two
6 trace: unexpected 'frobnicate' (expected count N, drops, bytes, sid SID or policy PREFIX/LEN)
6 trace: expected start [count N] [drops] [bytes] [sid SID | policy PREFIX/LEN], read or stop
6 trace: expected start [count N] [drops] [bytes] [sid SID | policy PREFIX/LEN], read or stop
6 trace: expected start [count N] [drops] [bytes] [sid SID | policy PREFIX/LEN], read or stop
6 trace: malformed request (too long, or a NUL in it)
5 trace: no trace is running"
# Started and never read: a second start is refused, and the daemon
# stops the first after 10 s.
raw "start count 5" "start count 5" >"$TMPD/raw2.txt" 2>&1
expect_eq "a second trace while one runs" "$(tail -1 "$TMPD/raw2.txt" | cut -c1-40)" \
	"4 trace: one is running already (started"
for _ in $(seq 1 150); do
	grep -q 'trace stopped: not read for 10 s' "$LOG" && break
	sleep 0.1
done
if grep -q 'trace stopped: not read for 10 s' "$LOG"; then
	pass "a trace nobody reads is stopped after 10 s"
else
	fail "the unread trace was not stopped"
fi
expect_eq "then a trace starts again" "$(raw "start count 1" "stop")" "0 ok
0 ok"
if grep -qiE 'trace.*(packet|hop_limit).*fc00' "$LOG"; then
	fail "the log has a line per traced packet"
else
	pass "no log line per packet"
fi

# ---- the counters still add up ------------------------------------------------------------
sum=$(timeout 5 "$SRV6CTL" -s "$SOCK" -j status | "$PYTHON" -c '
import json, sys
t = json.load(sys.stdin)["totals"]
print(t["rx_packets"] - sum(t[k] for k in ("forwarded", "accepted", "injected", "bounced", "dropped")))')
expect_eq "status: rx_packets == the sum of the outcomes" "$sum" 0

srv6d_stop || fail "srv6d exit status"
ns_finish
