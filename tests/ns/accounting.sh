#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# accounting.sh - every packet counted exactly once (issue 8.4, issue 12
# defect 4): malformed and erroring packets of several kinds, each sent at
# rate, land under their drop reason, whether their ICMP error was sent or
# rate-limited; the reasons add up to `dropped` (per worker, per SID), and
# accepted + forwarded + injected + dropped == rx_packets.  Read from
# `srv6ctl stats -j` and `srv6ctl status -j`.
T=accounting
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

N=${ACCOUNTING_N:-200}	# packets of each kind
S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst 2001:db8:5::1"

# A small ICMP budget, so that most errors are rate-limited.
cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
icmp-rate 10
icmp-burst 5
sid fc00:100::1/128 action End
sid fc00:100::4/128 action End.T table 200
sid fc00:100::7/128 action End.DT6 table 200
EOF

# stats_get EXPR: a Python expression over `srv6ctl stats -j` (s).
stats_get() {
	timeout 5 "$SRV6CTL" -s "$SOCK" -j stats | "$PYTHON" -c '
import json, sys
s = json.load(sys.stdin)
print(eval(sys.argv[1]))' "$1"
}

# flood TAG PKTARGS...: N packets from gen to the gateway.
flood() {
	local tag=$1
	shift
	timeout 120 "$PYTHON" "$PKTPY" flood --send "$GEN:g0" --dmac $MAC_GW0 \
		-n "$N" --tag "$tag" "$@" >/dev/null
}

# settle: wait until the worker has counted every packet sent so far.
SENT=0
settle() {
	local _ got
	for _ in $(seq 1 50); do
		got=$(stats_get "s['totals']['rx_packets']")
		[ "$got" -ge "$SENT" ] && return 0
		sleep 0.1
	done
	say "received $got of $SENT packets"
}

# kind NAME REASON PKTARGS...: send N of them, expect N more REASON drops.
kind() {
	local name=$1 reason=$2 before after
	shift 2
	before=$(stats_get "s['totals']['drops']['$reason']")
	flood "$name" "$@"
	SENT=$((SENT + N))
	settle
	after=$(stats_get "s['totals']['drops']['$reason']")
	expect_eq "$name: each counted as $reason" "$((after - before))" "$N"
}

ns_setup || { fail "topology setup"; ns_finish; }
# Table 200 exists but routes neither fc00:9::/32 nor 2001:db8:5::/48.
ip -n "$GW" -6 route add 2001:db8:77::/48 via fc00:3::2 dev gw2 table 200 ||
	fail "table 200"
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

# ---- the kinds ---------------------------------------------------------------
# Forwarded, as a reference.
flood good $S --segs fc00:100::1,fc00:9::c1
SENT=$((SENT + N))
settle
expect_eq "good End packets forwarded" "$(stats_get "s['totals']['forwarded']")" "$N"

# ICMPv6 Time Exceeded owed (rate-limited after the burst).
kind hoplimit hop_limit $S --segs fc00:100::1,fc00:9::c1 --hlim 1
# Parameter Problem owed: Segments Left beyond Last Entry.
kind badsl bad_srh $S --segs fc00:100::1,fc00:9::c1 --sl 5 --dst fc00:100::1
# Parameter Problem code 4 owed: UDP at SL 0 of End.
kind upper upper_layer $S --segs fc00:9::c1,fc00:100::1 --sl 0
# Destination Unreachable owed: End.T's table has no route to fc00:9::c1.
kind endtnoroute no_route $S --segs fc00:100::4,fc00:9::c1
# End.DT6 without a route for the inner destination: handed to the
# kernel's unreachable rule, counted once as no_route.
kind dtnoroute no_route $S --segs fc00:100::7 --sl 0 $IN6
# The same through a SID chain: End, then End.DT6 (issue 8's chain bug).
kind chain no_route $S --segs fc00:100::1,fc00:100::7 $IN6

# ---- every packet once ---------------------------------------------------------
expect_eq "the drop reasons add up to dropped (totals)" \
	"$(stats_get "sum(s['totals']['drops'].values()) - s['totals']['dropped']")" 0
expect_eq "the drop reasons add up to dropped (each worker)" \
	"$(stats_get "sum(sum(w['drops'].values()) != w['dropped'] for w in s['workers'])")" 0
expect_eq "accepted + forwarded + injected + dropped == rx_packets" \
	"$(stats_get "s['totals']['accepted'] + s['totals']['forwarded'] + s['totals']['injected'] + s['totals']['dropped'] - s['totals']['rx_packets']")" 0
expect_eq "every packet sent was received" \
	"$(stats_get "s['totals']['rx_packets']")" "$SENT"
expect_eq "dropped: every bad packet, nothing else" \
	"$(stats_get "s['totals']['dropped']")" "$((6 * N))"
expect_eq "each ICMP error owed was sent or rate-limited" \
	"$(stats_get "s['totals']['icmp_sent'] + s['totals']['icmp_ratelimited']")" "$((4 * N))"
rl=$(stats_get "s['totals']['icmp_ratelimited']")
if [ "$rl" -gt 0 ]; then
	pass "errors over icmp-rate counted apart ($rl)"
else
	fail "no error was rate-limited (icmp-rate 10, $((4 * N)) owed)"
fi
expect_eq "each SID's drop reasons add up to its errors" \
	"$(ctl_get "sum(sum(e['drops'].values()) != e['errors'] for e in s['sids'])")" 0
expect_eq "End: its successes (good, then the chain's first SID) and errors" \
	"$(ctl_get "(sid('fc00:100::1/128')['packets'], sid('fc00:100::1/128')['errors'])")" \
	"($((2 * N)), $((3 * N)))"
expect_eq "End.DT6: no success, every packet an error" \
	"$(ctl_get "(sid('fc00:100::7/128')['packets'], sid('fc00:100::7/128')['errors'])")" \
	"(0, $((2 * N)))"

srv6d_stop || fail "srv6d stopped cleanly"
ns_finish
