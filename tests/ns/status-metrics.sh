#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# status-metrics.sh - what an operator reads adds up (issue 21 items 1 and
# 3).  After End packets forwarded, packets to no SID accepted, a policy's
# encapsulations and hop-limit drops: `srv6ctl status`'s text table and
# its JSON have every outcome, and they add up to rx packets; srv6d's
# metrics (metrics-listen [::1]:9586), scraped with curl, pass `promtool
# check metrics` and say the same numbers (per worker, SID, policy and
# reason); bad requests get 404 and 405; idle clients holding every
# connection do not hold up the daemon and are closed after 10 s; a huge
# request is refused; a client that trickles is closed after 15 s;
# `srv6ctl clear` counts from zero, in the status,
# the SIDs and the metrics, and the sum still adds up after more traffic.
T=status-metrics
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d
command -v curl >/dev/null 2>&1 || skip_test "curl not found"

N=${STATUS_METRICS_N:-50}	# packets of each kind
S="--src fc00:1::1"
URL="http://[::1]:9586/metrics"
MAX_CLIENTS=16 IDLE_TIMEOUT=10 DEADLINE=15	# metrics_http.h

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
metrics-listen [::1]:9586
sid fc00:100::1/128 action End
route fc00:9:1::/48 encap seg6 mode encap segs fc00:9::c1
EOF

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 fc00:9:1::/48 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

# stats_get EXPR: a Python expression over `srv6ctl status -j` (s).
stats_get() {
	timeout 5 "$SRV6CTL" -s "$SOCK" -j status | "$PYTHON" -c '
import json, sys
s = json.load(sys.stdin)
def sid(x):
    return next(e for e in s["sids"] if e["sid"] == x)
OUT = ("forwarded", "accepted", "injected", "bounced", "dropped")
def outcomes(o):
    return sum(o[k] for k in OUT)
print(eval(sys.argv[1]))' "$1"
}

flood() {
	local tag=$1
	shift
	timeout 60 "$PYTHON" "$PKTPY" flood --send "$GEN:g0" --dmac $MAC_GW0 \
		-n "$N" --tag "$tag" "$@" >/dev/null
}

# settle WANT: wait until the worker has counted WANT packets.
settle() {
	local _ got
	for _ in $(seq 1 50); do
		got=$(stats_get "s['totals']['rx_packets']")
		[ "$got" -ge "$1" ] && return 0
		sleep 0.1
	done
	say "received $got of $1 packets"
}

# scrape FILE: GET the metrics into FILE; prints the HTTP status.
scrape() {
	ip netns exec "$GW" curl -s -m 5 -o "$1" -w '%{http_code}' "$URL"
}

# metric FILE NAME{LABELS}: the value of that sample (the sum of the
# samples whose line starts with NAME{LABELS when LABELS ends with ',').
metric() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import sys
path, want = sys.argv[1], sys.argv[2]
total, found = 0, False
for line in open(path):
    if line.startswith("#"):
        continue
    name, value = line.rsplit(" ", 1)
    if name == want or (want.endswith(",") and name.startswith(want)):
        total += int(value)
        found = True
print(total if found else "absent")
EOF
}

# ---- traffic ------------------------------------------------------------------
flood end $S --segs fc00:100::1,fc00:9::c1
flood nosid $S --dst fc00:100::99
flood pol $S --dst fc00:9:1::1
flood hop $S --segs fc00:100::1,fc00:9::c1 --hlim 1
SENT=$((4 * N))
settle "$SENT"

# ---- the status adds up (JSON, then text) ------------------------------------------
expect_eq "rx_packets: every packet sent" "$(stats_get "s['totals']['rx_packets']")" "$SENT"
expect_eq "JSON totals: forwarded + accepted + injected + bounced + dropped == rx_packets" \
	"$(stats_get "outcomes(s['totals']) - s['totals']['rx_packets']")" 0
expect_eq "JSON workers: each adds up" \
	"$(stats_get "sum(outcomes(w) != w['rx_packets'] for w in s['workers'])")" 0
expect_eq "hop-limit drops" "$(stats_get "s['totals']['drops']['hop_limit']")" "$N"
expect_eq "accepted: the packets to no SID" "$(stats_get "s['totals']['accepted']")" "$N"

timeout 5 "$SRV6CTL" -s "$SOCK" status >"$TMPD/status.txt"
head=$(grep '^worker ' "$TMPD/status.txt")
if [ "$head" = "$(echo "$head" | grep -E '^worker +queue +rx packets +rx bytes +forwarded +accepted +injected +bounced +dropped +unmatched$')" ] && [ -n "$head" ]; then
	pass "status: a column for every outcome"
else
	fail "status columns: '$head'"
fi
# total row: "total" rx bytes forwarded accepted injected bounced dropped unmatched
sum=$(awk '$1 == "total" { print $2 - ($4 + $5 + $6 + $7 + $8) }' "$TMPD/status.txt")
expect_eq "status text: total rx packets - (forwarded + accepted + injected + bounced + dropped)" "$sum" 0
sum=$(awk '$1 == "0" { print $3 - ($5 + $6 + $7 + $8 + $9) }' "$TMPD/status.txt")
expect_eq "status text: worker 0 adds up" "$sum" 0

timeout 5 "$SRV6CTL" -s "$SOCK" stats >"$TMPD/stats.txt"
if grep -q '^queue  *portid  *waiting  *queue dropped  *user dropped  *id sequence$' "$TMPD/stats.txt"; then
	pass "stats: the kernel's view with queue_dropped and user_dropped"
else
	fail "stats: no kernel table: $(head -c 600 "$TMPD/stats.txt")"
fi

# ---- the metrics ---------------------------------------------------------------
code=$(scrape "$TMPD/m1.txt")
expect_eq "GET /metrics" "$code" 200
ctype=$(ip netns exec "$GW" curl -s -m 5 -o /dev/null -w '%{content_type}' "$URL")
expect_eq "its content type" "$ctype" "text/plain; version=0.0.4; charset=utf-8"
if command -v promtool >/dev/null 2>&1; then
	if msg=$(promtool check metrics <"$TMPD/m1.txt" 2>&1); then
		pass "promtool check metrics on the live output ($(grep -vc '^#' "$TMPD/m1.txt") samples)"
	else
		fail "promtool check metrics: $msg"
	fi
else
	skip_case "promtool not found (apt-get install prometheus)"
fi
expect_eq "metrics: rx packets of worker 0" \
	"$(metric "$TMPD/m1.txt" 'srv6d_worker_rx_packets_total{worker="0",queue="0"}')" "$SENT"
expect_eq "metrics: the outcomes add up to rx packets" \
	"$(metric "$TMPD/m1.txt" 'srv6d_worker_packets_total{worker="0",queue="0",')" "$SENT"
expect_eq "metrics: the End SID's hop_limit drops" \
	"$(metric "$TMPD/m1.txt" 'srv6d_sid_drops_total{sid="fc00:100::1/128",behavior="End",reason="hop_limit"}')" "$N"
expect_eq "metrics: the End SID's packets" \
	"$(metric "$TMPD/m1.txt" 'srv6d_sid_packets_total{sid="fc00:100::1/128",behavior="End"}')" \
	"$(stats_get "sid('fc00:100::1/128')['packets']")"
expect_eq "metrics: the policy's packets" \
	"$(metric "$TMPD/m1.txt" 'srv6d_policy_packets_total{policy="fc00:9:1::/48",table="254"}')" "$N"
expect_eq "metrics: the worker's hop_limit drops" \
	"$(metric "$TMPD/m1.txt" 'srv6d_worker_drops_total{worker="0",queue="0",reason="hop_limit"}')" "$N"
expect_eq "metrics: the kernel's queue 0" \
	"$(metric "$TMPD/m1.txt" 'srv6d_nfqueue_queue_dropped_total{queue="0"}')" 0

# ---- bad requests ------------------------------------------------------------------
expect_eq "GET /nope: 404" \
	"$(ip netns exec "$GW" curl -s -m 5 -o /dev/null -w '%{http_code}' "http://[::1]:9586/nope")" 404
expect_eq "POST /metrics: 405" \
	"$(ip netns exec "$GW" curl -s -m 5 -o /dev/null -w '%{http_code}' -d x=1 "$URL")" 405
allow=$(ip netns exec "$GW" curl -s -m 5 -D - -o /dev/null -X DELETE "$URL" | tr -d '\r' | sed -n 's/^Allow: //Ip')
expect_eq "DELETE /metrics: Allow" "$allow" "GET, HEAD"
expect_eq "HEAD /metrics: 200" \
	"$(ip netns exec "$GW" curl -s -m 5 -o /dev/null -w '%{http_code}' -I "$URL")" 200
big=$(head -c 100000 /dev/zero | tr '\0' a)
code=$(ip netns exec "$GW" curl -s -m 5 -o /dev/null -w '%{http_code}' -H "X-Big: $big" "$URL")
case $code in
4*|000) pass "a 100 kB header is refused ($code)" ;;
*) fail "a 100 kB header: $code" ;;
esac

# MAX_CLIENTS idle connections (and more), one of them trickling a byte
# every 2 s (never idle): the daemon answers srv6ctl at once, closes the
# idle ones after IDLE_TIMEOUT seconds and the trickler after DEADLINE.
ip netns exec "$GW" "$PYTHON" - "$((MAX_CLIENTS + 4))" >"$TMPD/idle.txt" 2>&1 <<'EOF' &
import socket, sys, threading, time
n = int(sys.argv[1])
t0 = time.time()
def conn():
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.settimeout(40)
    s.connect(("::1", 9586))
    s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")	# never ends
    return s
def wait_closed(s):
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
    return time.time() - t0
trickle = conn()
def trickler():
    try:
        while True:
            time.sleep(2)
            trickle.send(b"X")
    except OSError:
        pass
threading.Thread(target=trickler, daemon=True).start()
closed = []
watcher = threading.Thread(target=lambda: closed.append(wait_closed(trickle)))
watcher.start()
socks = [conn() for _ in range(n - 1)]
when = sorted(wait_closed(s) for s in socks)
watcher.join()
t_trickle = closed[0]
# the first n - 5 (a slot is the trickler's) were served at once, the
# others waited for a slot
print("held %d first %.1f all %.1f trickler %.1f" %
      (n, when[n - 6], when[-1], t_trickle))
EOF
idle_pid=$!
sleep 1
t0=$(date +%s%N)
timeout 5 "$SRV6CTL" -s "$SOCK" status >/dev/null 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" -eq 0 ] && [ "$ms" -lt 2000 ]; then
	pass "idle HTTP clients: srv6ctl status answers (${ms} ms)"
else
	fail "idle HTTP clients: srv6ctl status rc $rc after $ms ms"
fi
wait "$idle_pid"
read -r _ held _ first _ all _ trickler <"$TMPD/idle.txt"
if [ -n "${held:-}" ] && "$PYTHON" -c "import sys; sys.exit(not (float('${first:-99}') < $IDLE_TIMEOUT + 3 and float('${all:-99}') < 2 * $IDLE_TIMEOUT + 5))"; then
	pass "idle HTTP clients closed after $IDLE_TIMEOUT s, those past $MAX_CLIENTS after a slot was free ($(cat "$TMPD/idle.txt"))"
else
	fail "idle HTTP clients: $(cat "$TMPD/idle.txt")"
fi
if [ -n "${trickler:-}" ] && "$PYTHON" -c "import sys; t = float('$trickler'); sys.exit(not ($DEADLINE - 1 < t < $DEADLINE + 4))"; then
	pass "a client trickling a byte every 2 s closed after $DEADLINE s ($trickler s)"
else
	fail "the trickling client: $(cat "$TMPD/idle.txt")"
fi
expect_eq "a scrape after them" "$(scrape "$TMPD/m2.txt")" 200

# ---- clear ---------------------------------------------------------------------
if timeout 5 "$SRV6CTL" -s "$SOCK" clear >"$TMPD/clear.txt" 2>&1; then
	pass "srv6ctl clear: $(cat "$TMPD/clear.txt")"
else
	fail "srv6ctl clear: $(cat "$TMPD/clear.txt")"
fi
expect_eq "after clear: rx_packets 0" "$(stats_get "s['totals']['rx_packets']")" 0
expect_eq "after clear: every counter 0" \
	"$(stats_get "sum(v for k, v in s['totals'].items() if isinstance(v, int)) + sum(s['totals']['drops'].values())")" 0
expect_eq "after clear: the SID's counters 0" \
	"$(stats_get "sid('fc00:100::1/128')['packets'] + sid('fc00:100::1/128')['errors']")" 0
expect_eq "after clear: counters_cleared set" "$(stats_get "s['counters_cleared'] > 0")" True
flood end2 $S --segs fc00:100::1,fc00:9::c1
flood hop2 $S --segs fc00:100::1,fc00:9::c1 --hlim 1
settle "$((2 * N))"
expect_eq "after clear and traffic: rx_packets" "$(stats_get "s['totals']['rx_packets']")" "$((2 * N))"
expect_eq "after clear and traffic: the outcomes add up" \
	"$(stats_get "outcomes(s['totals']) - s['totals']['rx_packets']")" 0
expect_eq "after clear and traffic: the SID's hop_limit drops" \
	"$(stats_get "sid('fc00:100::1/128')['drops']['hop_limit']")" "$N"
scrape "$TMPD/m3.txt" >/dev/null
expect_eq "after clear and traffic: the metrics' rx packets" \
	"$(metric "$TMPD/m3.txt" 'srv6d_worker_rx_packets_total{worker="0",queue="0"}')" "$((2 * N))"
# A reload keeps the baseline of the SIDs it keeps.
kill -HUP "$SRV6D_PID"
sleep 1
expect_eq "after a reload: the SID's hop_limit drops" \
	"$(stats_get "sid('fc00:100::1/128')['drops']['hop_limit']")" "$N"
expect_eq "after a reload: the status still adds up" \
	"$(stats_get "outcomes(s['totals']) - s['totals']['rx_packets']")" 0

srv6d_stop || fail "srv6d exit status"
ns_finish
