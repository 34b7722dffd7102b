# shellcheck shell=bash
# lib.sh - helpers for srv6d's namespace tests.  Sourced, never run.
#
# Topology built by ns_setup (every name prefixed with the test's name and
# pid, so tests can run side by side):
#
#   gen g0 ---- gw0 gw gw1 ---- s1 sink1      main table: fc00:9::/32 -> sink1
#                      gw2 ---- s2 sink2      table 100:  fc00:9::/32 -> sink2
#
#   link A  gen-gw    fc00:1::1 / fc00:1::2   192.0.2.1    / 192.0.2.2
#   link B  gw-sink1  fc00:2::1 / fc00:2::2   198.51.100.1 / 198.51.100.2
#   link C  gw-sink2  fc00:3::1 / fc00:3::2   203.0.113.1  / 203.0.113.2
#
# MAC addresses and neighbours are static, IPv6 addresses skip DAD: nothing
# waits for ND.  The gateway forwards and rate-limits no ICMP errors.
#
# A test sources this file, calls ns_init (root/tool checks, traps,
# watchdog), ns_setup, then its cases, then ns_finish.

T=${T:-$(basename "$0" .sh)}
if [ -z "${top_srcdir:-}" ]; then
	top_srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fi
if [ -z "${top_builddir:-}" ]; then
	top_builddir=$top_srcdir
fi
SRV6D=${SRV6D:-$top_builddir/src/srv6d}
SRV6CTL=${SRV6CTL:-$top_builddir/src/srv6ctl}
# SRV6D_KERNEL=7.2: every verdict srv6d sends is judged by Linux 7.2's
# payload rule and a refused one dropped, as a current kernel does
# (tests/kernel72/nfq72.c); this machine's 6.18 accepts any payload.
if [ "${SRV6D_KERNEL:-}" = 7.2 ]; then
	SRV6D=$top_builddir/tests/kernel72/srv6d-k72
	export NFQ72_STATS=${NFQ72_STATS:-/tmp/nfq72-$$.stats}
fi
PYTHON=${PYTHON:-/usr/bin/python3}
PKTPY="$top_srcdir/tests/ns/pkt.py"
PFX="${T}$$"
GEN="$PFX-gen" GW="$PFX-gw" S1="$PFX-s1" S2="$PFX-s2"
MAC_G0=02:00:00:00:01:01 MAC_GW0=02:00:00:00:01:02
MAC_GW1=02:00:00:00:02:01 MAC_S1=02:00:00:00:02:02
MAC_GW2=02:00:00:00:03:01 MAC_S2=02:00:00:00:03:02
NS_LIST=()
NPASS=0
NFAIL=0
NSKIP=0
SRV6D_PID=
WATCHDOG_PID=
TMPD=

say() { echo "$T: $*"; }

# tshark's options for the capture checks: checksums verified, and no TCP
# sequence analysis or reassembly, which the checks do not read and which
# make a 20,000-segment capture take a minute instead of a second.
# shellcheck disable=SC2034 # for the tests that source this file
TSHARK_OPTS="-o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE -o tcp.analyze_sequence_numbers:FALSE -o tcp.desegment_tcp_streams:FALSE"

pass() {
	NPASS=$((NPASS + 1))
	echo "ok   - $*"
}

fail() {
	NFAIL=$((NFAIL + 1))
	echo "FAIL - $*"
}

skip_case() {
	NSKIP=$((NSKIP + 1))
	echo "SKIP - $*"
}

# Skip the whole test (automake: exit 77).
skip_test() {
	say "SKIP: $*"
	exit 77
}

# ns_init [SECONDS]: check what the test needs, set traps and a watchdog
# that ends the test after SECONDS (default 240).
ns_init() {
	[ "$(id -u)" -eq 0 ] || skip_test "needs root"
	local c
	for c in ip ip6tables iptables "$PYTHON" timeout; do
		command -v "$c" >/dev/null 2>&1 || skip_test "$c not found"
	done
	"$PYTHON" -c 'import scapy' 2>/dev/null || skip_test "python3-scapy missing"
	ip netns add "$PFX-probe" 2>/dev/null || skip_test "cannot create netns"
	ip netns del "$PFX-probe"
	TMPD=$(mktemp -d "/tmp/$T.XXXXXX")
	SOCK="$TMPD/srv6d.sock"
	LOG="$TMPD/srv6d.log"
	trap ns_cleanup EXIT
	trap 'say "interrupted"; exit 1' INT TERM HUP
	local secs=${1:-240} me=$$
	(
		trap 'kill "$sp" 2>/dev/null; exit 0' TERM
		sleep "$secs" &
		sp=$!
		wait "$sp"
		echo "$T: watchdog: still running after ${secs}s, giving up" >&2
		kill -TERM "$me"
	) &
	WATCHDOG_PID=$!
}

# Needs the daemon and the CLI built (skip otherwise).
need_srv6d() {
	[ -x "$SRV6D" ] || skip_test "$SRV6D not built"
	[ -x "$SRV6CTL" ] || skip_test "$SRV6CTL not built"
}

# need_tools TOOL...: skip the test when a TOOL is not found.
need_tools() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip_test "$c not found"
	done
}

ns_cleanup() {
	local rc=$?
	if [ -n "$SRV6D_PID" ] && kill -0 "$SRV6D_PID" 2>/dev/null; then
		kill -TERM "$SRV6D_PID" 2>/dev/null
		local _
		for _ in $(seq 1 30); do
			kill -0 "$SRV6D_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$SRV6D_PID" 2>/dev/null
		wait "$SRV6D_PID" 2>/dev/null
	fi
	local ns
	for ns in "${NS_LIST[@]}"; do
		ip netns pids "$ns" 2>/dev/null | while read -r p; do
			kill -KILL "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	if [ -n "$WATCHDOG_PID" ]; then
		kill -TERM "$WATCHDOG_PID" 2>/dev/null
		wait "$WATCHDOG_PID" 2>/dev/null
	fi
	if [ -n "$NOTIFY_PID" ]; then	# a test that ended early
		kill -TERM "$NOTIFY_PID" 2>/dev/null
		wait "$NOTIFY_PID" 2>/dev/null
	fi
	[ -n "$TMPD" ] && rm -rf "$TMPD"
	exit "$rc"
}

nsx() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

_sysctls() {
	local ns=$1
	shift
	local kv
	for kv in "$@"; do
		nsx "$ns" sysctl -q -w "$kv" >/dev/null || return 1
	done
}

_link() {	# ns1 if1 mac1 ns2 if2 mac2
	ip -n "$1" link add "$2" address "$3" type veth \
		peer name "$5" address "$6" netns "$4" || return 1
	ip -n "$1" link set "$2" up && ip -n "$4" link set "$5" up
}

_addr() {	# ns if addr6/len addr4/len
	ip -n "$1" -6 addr add "$3" dev "$2" nodad &&
		ip -n "$1" addr add "$4" dev "$2"
}

_neigh() {	# ns if addr mac
	ip -n "$1" neigh replace "$3" lladdr "$4" dev "$2" nud permanent
}

_wait_up() {	# ns if
	local _
	for _ in $(seq 1 40); do
		ip -n "$1" -br link show dev "$2" 2>/dev/null | grep -q ' UP ' &&
			return 0
		sleep 0.05
	done
	say "link $2 in $1 did not come up"
	return 1
}

# Build the four namespaces, links, addresses, routes, neighbours.
ns_setup() {
	local ns
	for ns in "$GEN" "$GW" "$S1" "$S2"; do
		ip netns add "$ns" || return 1
		NS_LIST+=("$ns")
		ip -n "$ns" link set lo up
		_sysctls "$ns" net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.all.accept_ra=0 \
			net.ipv6.conf.default.accept_ra=0 \
			net.ipv6.conf.default.router_solicitations=0 || return 1
	done
	_sysctls "$GW" net.ipv6.conf.all.forwarding=1 net.ipv4.ip_forward=1 \
		net.ipv6.icmp.ratelimit=0 net.ipv4.icmp_ratelimit=0 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.all.send_redirects=0 \
		net.ipv4.conf.default.send_redirects=0 \
		net.ipv6.conf.all.seg6_enabled=1 \
		net.ipv6.conf.default.seg6_enabled=1 || return 1
	_link "$GEN" g0 $MAC_G0 "$GW" gw0 $MAC_GW0 || return 1
	_link "$GW" gw1 $MAC_GW1 "$S1" s1 $MAC_S1 || return 1
	_link "$GW" gw2 $MAC_GW2 "$S2" s2 $MAC_S2 || return 1
	_addr "$GEN" g0 fc00:1::1/64 192.0.2.1/24 &&
	_addr "$GW" gw0 fc00:1::2/64 192.0.2.2/24 &&
	_addr "$GW" gw1 fc00:2::1/64 198.51.100.1/24 &&
	_addr "$S1" s1 fc00:2::2/64 198.51.100.2/24 &&
	_addr "$GW" gw2 fc00:3::1/64 203.0.113.1/24 &&
	_addr "$S2" s2 fc00:3::2/64 203.0.113.2/24 || return 1
	_neigh "$GEN" g0 fc00:1::2 $MAC_GW0 && _neigh "$GEN" g0 192.0.2.2 $MAC_GW0 &&
	_neigh "$GW" gw0 fc00:1::1 $MAC_G0 && _neigh "$GW" gw0 192.0.2.1 $MAC_G0 &&
	_neigh "$GW" gw1 fc00:2::2 $MAC_S1 &&
	_neigh "$GW" gw1 198.51.100.2 $MAC_S1 &&
	_neigh "$GW" gw2 fc00:3::2 $MAC_S2 &&
	_neigh "$GW" gw2 203.0.113.2 $MAC_S2 &&
	_neigh "$S1" s1 fc00:2::1 $MAC_GW1 &&
	_neigh "$S1" s1 198.51.100.1 $MAC_GW1 &&
	_neigh "$S2" s2 fc00:3::1 $MAC_GW2 &&
	_neigh "$S2" s2 203.0.113.1 $MAC_GW2 || return 1
	ip -n "$GEN" -6 route add default via fc00:1::2 &&
	ip -n "$GEN" route add default via 192.0.2.2 &&
	ip -n "$S1" -6 route add default via fc00:2::1 &&
	ip -n "$S1" route add default via 198.51.100.1 &&
	ip -n "$S2" -6 route add default via fc00:3::1 &&
	ip -n "$S2" route add default via 203.0.113.1 || return 1
	# The gateway: segments and non-SID addresses go to sink1; table 100
	# (End.T) sends the same prefix to sink2.
	ip -n "$GW" -6 route add fc00:9::/32 via fc00:2::2 dev gw1 &&
	ip -n "$GW" -6 route add fc00:100::/32 via fc00:2::2 dev gw1 &&
	ip -n "$GW" route add 10.9.0.0/16 via 198.51.100.2 dev gw1 &&
	ip -n "$GW" -6 route add fc00:9::/32 via fc00:3::2 dev gw2 table 100 ||
		return 1
	_wait_up "$GEN" g0 && _wait_up "$GW" gw0 && _wait_up "$GW" gw1 &&
	_wait_up "$GW" gw2 && _wait_up "$S1" s1 && _wait_up "$S2" s2
}

# Steer prefixes to queue 0 in the gateway: nfq_steer6 P..., nfq_steer4 P...
# Never what comes in on srv6d's own devices (srv6d+: the reinjection veth
# srv6d0 and the SIDs' veth pairs srv6dMMMMMMMM): those are its results.
nfq_steer6() {
	local p
	for p in "$@"; do
		nsx "$GW" ip6tables -t raw -A PREROUTING ! -i srv6d+ -d "$p" \
			-j NFQUEUE --queue-num 0 || return 1
	done
}

# nfq_steer6_hq PREFIX...: in front of nfq_steer6's rules, the same
# prefixes to header queue 1 (srv6d.conf `header-queue 1`), but for a
# packet srv6d bounced (it carries the bounce bit, mark-mask's highest,
# 0x80000000 by default, whatever its other bits): that one goes on to the
# next rule, queue 0, whole.
nfq_steer6_hq() {
	local p
	for p in "$@"; do
		nsx "$GW" ip6tables -t raw -I PREROUTING 1 ! -i srv6d+ -d "$p" \
			-m mark ! --mark "${HQ_BOUNCE_MARK:-0x80000000/0x80000000}" \
			-j NFQUEUE --queue-num 1 || return 1
	done
}

nfq_steer4() {
	local p
	for p in "$@"; do
		nsx "$GW" iptables -t raw -A PREROUTING ! -i srv6d+ -d "$p" \
			-j NFQUEUE --queue-num 0 || return 1
	done
}

nfq_flush() {
	nsx "$GW" ip6tables -t raw -F PREROUTING
	nsx "$GW" iptables -t raw -F PREROUTING
}

# ---- the daemon ------------------------------------------------------------

srv6d_dump() {
	echo "---- srv6d log ($LOG) ----"
	[ -f "$LOG" ] && tail -n 60 "$LOG"
	if [ -n "$SRV6D_PID" ] && kill -0 "$SRV6D_PID" 2>/dev/null; then
		echo "---- srv6ctl status ----"
		timeout 5 "$SRV6CTL" -s "$SOCK" -j status 2>&1 | head -c 8000
		echo
	fi
	echo "---- ip -6 rule / NFQUEUE ----"
	nsx "$GW" ip -6 rule 2>&1
	cat "/proc/net/netfilter/nfnetlink_queue" 2>/dev/null
}

# steering_no CONF: `steering no` added to CONF unless it has a
# `steering` line or the test wants srv6d's own rules (STEERING=auto):
# the tests write their own NFQUEUE rules (nfq_steer6 ...), and with
# srv6d's as well a packet would be queued twice.  A reload's config
# without it keeps `no` (srv6d.conf(5): auto needs a restart).
steering_no() {
	[ "${STEERING:-no}" = auto ] && return 0
	grep -q '^[[:space:]]*steering[[:space:]]' "$1" 2>/dev/null ||
		printf '\nsteering no\n' >>"$1"
}

# probe_answered: with srv6d's own steering, wait (2 s at most) for its
# mark probe's first answer (src/io/markprobe.h): until then it falls
# back (marked results by srv6d0, kernel-end held), which the tests'
# first packets would otherwise meet.
probe_answered() {
	local _
	for _ in $(seq 1 40); do
		case $(ctl_get "s['mark_probe']['state']" 2>/dev/null) in
		pending|'') sleep 0.05 ;;
		*) return 0 ;;
		esac
	done
	say "the mark probe had no answer 2 s after the start"
}

# srv6d_start CONF: run the daemon in the gateway, wait for its socket
# (and, steering auto, for the mark probe's first answer).
srv6d_start() {
	steering_no "$1"
	rm -f "$SOCK"
	# Not through nsx: $! must be srv6d itself (ip netns exec execs it).
	ip netns exec "$GW" "$SRV6D" -c "$1" -s "$SOCK" -d >"$LOG" 2>&1 &
	SRV6D_PID=$!
	local _
	for _ in $(seq 1 100); do
		if ! kill -0 "$SRV6D_PID" 2>/dev/null; then
			wait "$SRV6D_PID"
			say "srv6d exited ($?) at start"
			SRV6D_PID=
			srv6d_dump
			return 1
		fi
		if [ -S "$SOCK" ] && timeout 2 "$SRV6CTL" -s "$SOCK" -j status \
			>/dev/null 2>&1; then
			[ "${STEERING:-no}" = auto ] && probe_answered
			return 0
		fi
		sleep 0.1
	done
	say "srv6d did not open $SOCK in 10 s"
	srv6d_dump
	return 1
}

# srv6d_stop: SIGTERM, wait (5 s at most), return the exit status.
srv6d_stop() {
	[ -n "$SRV6D_PID" ] || return 1
	kill -TERM "$SRV6D_PID" 2>/dev/null
	local _
	for _ in $(seq 1 50); do
		kill -0 "$SRV6D_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$SRV6D_PID" 2>/dev/null; then
		say "srv6d ignored SIGTERM for 5 s: killing it"
		kill -KILL "$SRV6D_PID"
	fi
	local rc=0
	wait "$SRV6D_PID" || rc=$?
	SRV6D_PID=
	[ "$rc" -eq 0 ] || say "srv6d exited with status $rc"
	return $rc
}

ctl_json() {
	timeout 5 "$SRV6CTL" -s "$SOCK" -j status
}

# ctl_get EXPR: evaluate a Python expression over the status JSON `s`.
# Helpers: sid(S) and pol(P) find an entry, drop(d, R) reads a drop count.
ctl_get() {
	ctl_json | "$PYTHON" -c '
import json, sys
s = json.load(sys.stdin)
def sid(x):
    return next(e for e in s["sids"] if e["sid"] == x)
def pol(x):
    return next(e for e in s["policies"] if e["prefix"] == x)
def drop(d, r):
    return d.get("drops", {}).get(r, 0)
print(eval(sys.argv[1]))' "$1"
}

# notify_start: systemd's side of sd_notify() (PID 1 is not always
# systemd): a datagram socket at $NOTIFY, for the daemon's NOTIFY_SOCKET,
# that logs each message to $NOTES as one line "TIME MESSAGE" (TIME:
# CLOCK_MONOTONIC seconds; newlines in MESSAGE as '|') until notify_stop.
NOTIFY_PID=
notify_start() {
	NOTIFY="$TMPD/notify.sock" NOTES="$TMPD/notify.log"
	rm -f "$TMPD/notify.stop"
	"$PYTHON" - "$NOTIFY" "$NOTES" "$TMPD/notify.stop" <<'PY' &
import os, socket, sys, time
path, out, stop = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.2)
with open(out, "w") as f:
    while not os.path.exists(stop):
        try:
            m = s.recv(4096)
        except socket.timeout:
            continue
        f.write("%.3f %s\n" % (time.monotonic(), m.decode().replace("\n", "|")))
        f.flush()
PY
	NOTIFY_PID=$!
	local _
	for _ in $(seq 1 50); do [ -S "$NOTIFY" ] && return 0; sleep 0.05; done
	return 1
}

# notify_stop: the last messages in, stop logging.
notify_stop() {
	[ -n "$NOTIFY_PID" ] || return 0
	: >"$TMPD/notify.stop"
	wait "$NOTIFY_PID"
	NOTIFY_PID=
}

# notify_messages: the messages logged so far, one a line, without times.
notify_messages() { cut -d' ' -f2- "$NOTES"; }

# ---- counters ------------------------------------------------------------------

# nfq_stat N: field N of queue 0's line of the gateway's
# /proc/net/netfilter/nfnetlink_queue: 1 queue number, 2 portid, 3 packets
# waiting, 4 copy mode, 5 copy range, 6 queue-full drops, 7 socket (user)
# drops, 8 id of the last packet queued.  Empty if queue 0 is not bound.
nfq_stat() {
	nsx "$GW" cat /proc/net/netfilter/nfnetlink_queue |
		awk -v f="$1" '$1 == 0 { print $f }'
}

# nstat_abs NS COUNTER: COUNTER's absolute value in NS (nstat's history
# file is per user, not per namespace: read absolute values and subtract).
nstat_abs() {
	nsx "$1" nstat -az "$2" 2>/dev/null | awk -v c="$2" '$1 == c { print $2 + 0 }'
}

# srv6d.conf's mark-base by default: srv6d's tables are MARK_BASE ..
# MARK_BASE + 65535 (its range), its marks numbered likewise (a SID's mark
# N is its table N).  The default mark-mask is 0xffff0000 (MARK_MASK,
# MARK_SHIFT): mark N goes on the packet as mark_value N, MARK_BASE +
# ((N - MARK_BASE) << 16), in rules `fwmark mark_fw N`; the operator keeps
# the low 16 bits.  The marks end below the bounce bit 0x80000000: MARK_TOP,
# MARK_BASE + 8848, the first kernel-encap/kernel-end mark (from the top).
MARK_BASE=$((0x5d6f0000))
MARK_MASK=$((0xffff0000))
MARK_SHIFT=16
MARK_TOP=$((MARK_BASE + ((0x80000000 - MARK_BASE) >> MARK_SHIFT) - 1))

# mark_value N: srv6d's mark N (MARK_BASE + offset) as the packet carries
# it under the default mark-mask, in decimal.
mark_value() {
	echo $((MARK_BASE + (($1 - MARK_BASE) << MARK_SHIFT)))
}

# mark_fw N: mark N as `ip rule show` prints srv6d's rule for it:
# "0xVALUE/0xffff0000".
mark_fw() {
	printf '0x%x/0x%x\n' "$(mark_value "$1")" "$MARK_MASK"
}

# range_objects NS: NS's rules and routes of either family in srv6d's
# range, one a line, sorted: "rule6|rule4 MARK TABLE" for a rule at a
# fwmark of the range (MARK the mark's number, MARK_BASE + offset: a
# fwmark V/MASK read back as MARK_BASE + ((V - MARK_BASE) >> MASK's lowest
# bit), V itself without a mask), "route6|route4 TABLE ROUTE..." for a route in a
# table of it.  Empty when there is none.
range_objects() {
	local f
	for f in 6 4; do
		ip -n "$1" -"$f" rule show | sed "s/^/rule$f /"
		ip -n "$1" -"$f" route show table all | sed "s/^/route$f /"
	done | "$PYTHON" -c '
import sys
b, out = int(sys.argv[1]), []
for line in sys.stdin:
    w = line.split()
    val = lambda k: w[w.index(k) + 1] if k in w[:-1] else None
    if w[0].startswith("rule"):
        m = val("fwmark")
        if m is not None:
            v, _, k = m.partition("/")
            v, k = int(v, 0), int(k, 0) if k else 0xffffffff
            s = (k & -k).bit_length() - 1
            if s and v >= b and not (v - b) & ((1 << s) - 1):
                v = b + ((v - b) >> s)
        if m is not None and b <= v < b + 65536:
            out.append("%s %d %s" % (w[0], v, val("lookup")))
    else:
        # the last table is the route one: End.DT6 names another before
        t = w[len(w) - 1 - w[::-1].index("table") + 1] if "table" in w[:-1] else None
        if t and t.isdigit() and b <= int(t) < b + 65536:
            out.append("%s %s %s" % (w[0], t, " ".join(w[1:])))
if out:
    print("\n".join(sorted(out)))' "$MARK_BASE"
}

# route_packets TABLE: what the seg6local route in the gateway's TABLE
# counted (ip -s): "PACKETS ERRORS".
route_packets() {
	nsx "$GW" ip -s -6 route show table "$1" | awk '/seg6local/ {
		for (i = 1; i < NF; i++) {
			if ($i == "packets") p = $(i + 1)
			if ($i == "errors") e = $(i + 1)
		}
		print p + 0, e + 0 }'
}

# sink_count_rules DST...: in both sinks, a rule per destination address
# (IPv6 or IPv4) that drops what arrives for it, counted (sink_count).
# Returns 1 if a rule is refused.
sink_count_rules() {
	local ns d
	for ns in "$S1" "$S2"; do
		for d in "$@"; do
			case $d in
			*:*) nsx "$ns" ip6tables -t raw -A PREROUTING -d "$d/128" -j DROP ;;
			*) nsx "$ns" iptables -t raw -A PREROUTING -d "$d/32" -j DROP ;;
			esac || return 1
		done
	done
}

# sink_count NS DST: the packets for DST that arrived in NS, by the rule of
# sink_count_rules (empty without one).
sink_count() {
	local t=ip6tables
	case $2 in *.*) t=iptables ;; esac
	# The destination is field 9, or 8 where ip6tables leaves opt blank.
	nsx "$1" $t -t raw -L PREROUTING -v -x -n |
		awk -v d="$2" '/DROP/ && ($8 == d || $9 == d) { print $1; exit }'
}

# ---- TCP through the gateway -----------------------------------------------
# iperf3 from gen through srv6d's SIDs (fc00:100::/32) in the gateway to
# an iperf3 server behind a sink (kend.sh, kdecap.sh, hqueue.sh).

# tcp_path_offloads OUT: GRO on at every veth from gen to the sink behind
# the gateway's OUT (gw1: sink1, gw2: sink2), and OUT's tx checksum off
# (segments summed in software, so a capture on OUT sees their checksums).
# Skips the test when ethtool refuses.
tcp_path_offloads() {
	local out=$1 sink="$S1:s1" ns_if
	[ "$out" = gw2 ] && sink="$S2:s2"
	for ns_if in "$GEN:g0" "$GW:gw0" "$GW:$out" "$sink"; do
		nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro on >/dev/null 2>&1 ||
			skip_test "ethtool -K ${ns_if#*:} gro on failed"
	done
	nsx "$GW" ethtool -K "$out" tx off >/dev/null 2>&1 ||
		skip_test "ethtool -K $out tx off failed"
}

# tcp_end_setup: after ns_setup, the way through an End of srv6d's to
# sink1: sink1 is the kernel's End.DT6 fc00:9::d6 (table 255) in front of
# an iperf3 server at fd00:9::1, the gateway routes fc00:9::d6 to sink1,
# gen's tunnel source is fc00:1::1, the offloads of tcp_path_offloads gw1,
# fc00:100::/32 steered to queue 0.  Counts what fails (fail).
tcp_end_setup() {
	_sysctls "$S1" net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.s1.seg6_enabled=1 ||
		fail "seg6_enabled at s1"
	nsx "$S1" ip -6 addr add fd00:9::1/128 dev lo
	nsx "$S1" ip -6 route add fc00:9::d6/128 encap seg6local action End.DT6 table 255 dev s1 ||
		fail "End.DT6 at s1"
	nsx "$GEN" ip sr tunsrc set fc00:1::1
	nsx "$GW" ip -6 route add fc00:9::d6/128 via fc00:2::2 dev gw1 || fail "route at gw"
	tcp_path_offloads gw1
	nsx "$S1" iperf3 -s -D -B fd00:9::1 >/dev/null 2>&1
	nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
}

# tcp_end_via SID: gen's kernel seg6 tunnel to fd00:9::/64 (tcp_end_setup's
# server) by segments SID, fc00:9::d6.  Returns ip's status.
tcp_end_via() {
	nsx "$GEN" ip -6 route replace fd00:9::/64 encap seg6 mode encap \
		segs "$1",fc00:9::d6 via fc00:1::2 dev g0
}

# tcp_transfer PCAP OUT FILTER FAMILY DST: a 2 s iperf3 transfer from gen
# to DST (FAMILY -6 or -4), captured leaving the gateway on OUT (tcpdump
# FILTER, 20,000 frames at most) into PCAP.  Prints the bytes received, 0
# when iperf3 fails.
tcp_transfer() {
	local tp bytes
	nsx "$GW" timeout 20 tcpdump -i "$2" -Q out -s 0 -w "$1" -c 20000 "$3" \
		>/dev/null 2>&1 &
	tp=$!
	sleep 1
	bytes=$(nsx "$GEN" timeout 15 iperf3 "$4" -c "$5" -t 2 -J 2>/dev/null |
		"$PYTHON" -c 'import json,sys
try: print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))
except Exception: print(0)')
	sleep 0.5
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	echo "$bytes"
}

# tcp_segments_checked PCAP GOOD BAD: "NGOOD NBAD", of the TCP segments
# with data in PCAP: NGOOD those with a valid checksum that match the
# display filter GOOD, NBAD those with another checksum status, or that
# match BAD, or malformed.
tcp_segments_checked() {
	local good bad
	good=$(tshark -r "$1" -o tcp.check_checksum:TRUE \
		-Y "tcp.len > 0 && tcp.checksum.status == 1 && $2" 2>/dev/null | wc -l)
	bad=$(tshark -r "$1" -o tcp.check_checksum:TRUE \
		-Y "tcp.len > 0 && (tcp.checksum.status != 1 || $3 || _ws.malformed)" \
		2>/dev/null | wc -l)
	echo "$good $bad"
}

# kernel_end_reset TABLE SINK: remember srv6d's kend total, what the
# seg6local route in the gateway's TABLE counted (route_packets) and
# SINK's TcpInCsumErrors, for kernel_end_expect.
kernel_end_reset() {
	KEND_TABLE=$1 KEND_SINK=$2
	KEND0=$(ctl_get "s['totals']['kend']")
	read -r KEND_RP0 KEND_RE0 <<<"$(route_packets "$1")"
	KEND_CSUM0=$(nstat_abs "$2" TcpInCsumErrors)
}

# kernel_end_expect LABEL BYTES: the checks of a transfer of BYTES, since
# kernel_end_reset, whose super-packets srv6d hands to the kernel's
# seg6local route (kernel-end): more than 1 MB through, more than 10
# super-packets handed (kend), the route counted as many and no error, the
# sink no TCP checksum error.
kernel_end_expect() {
	local label=$1 bytes=${2:-0} kd rp re csum
	kd=$(($(ctl_get "s['totals']['kend']") - KEND0))
	read -r rp re <<<"$(route_packets "$KEND_TABLE")"
	rp=$((rp - KEND_RP0)) re=$((re - KEND_RE0))
	csum=$(($(nstat_abs "$KEND_SINK" TcpInCsumErrors) - KEND_CSUM0))
	say "$label: $bytes bytes, kend $kd, the route counted $rp ($re errors)"
	if [ "$bytes" -gt 1000000 ]; then pass "$label: the transfer got through ($bytes bytes)"
	else fail "$label: transfer: $bytes bytes"; fi
	if [ "$kd" -gt 10 ]; then
		pass "$label: srv6d handed $kd super-packets to the kernel"
	else
		fail "$label: kend counter: $kd"
	fi
	expect_eq "$label: the seg6local route counted what srv6d handed it" "$rp" "$kd"
	expect_eq "$label: the seg6local route counted no error" "$re" 0
	expect_eq "$label: ${KEND_SINK##*-} counted no TCP checksum error" "$csum" 0
}

# kernel_end_status_expect N LINE: srv6d's status says kernel-end is on
# for N SIDs, and srv6ctl's plain status has a line that begins with LINE
# (a grep pattern).
kernel_end_status_expect() {
	local on n
	read -r on n <<<"$(ctl_get "'%s %d' % (s['kernel_end']['active'], s['kernel_end']['sids'])")"
	expect_eq "status: kernel-end on, $1 SIDs" "$on $n" "True $1"
	if timeout 5 "$SRV6CTL" -s "$SOCK" status | grep -q "^$2"; then
		pass "srv6ctl status says kernel-end is on ($1 SIDs)"
	else
		fail "srv6ctl status: $(timeout 5 "$SRV6CTL" -s "$SOCK" status | grep kernel-end)"
	fi
}

# ---- packets -----------------------------------------------------------------

pkt_build() {
	"$PYTHON" "$PKTPY" build "$@"
}

pkt_show() {
	"$PYTHON" "$PKTPY" show "$1"
}

# pkt_xchg PKTARGS...: send from gen to the gateway, capture on sink1 (s1),
# sink2 (s2) and back at gen (gen).  Prints "LABEL HEX" lines.
XCHG_TIMEOUT=${XCHG_TIMEOUT:-0.8}
pkt_xchg() {
	timeout 20 "$PYTHON" "$PKTPY" xchg --send "$GEN:g0" --dmac $MAC_GW0 \
		--cap "s1=$S1:s1" --cap "s2=$S2:s2" --cap "gen=$GEN:g0" \
		--timeout "$XCHG_TIMEOUT" "$@"
}

# pkt_paced_start OUT RATE MAX HEX...: in the background, send RATE frames a
# second from gen to the gateway, the IP packets HEX in turn, until MAX are
# sent (0: no limit) or pkt_paced_stop; OUT gets "total count1 count2 ...".
# Returns once the first frame is about to leave.
PACED=
pkt_paced_start() {
	local out=$1 rate=$2 max=$3 _
	shift 3
	rm -f "$TMPD/paced.stop" "$TMPD/paced.started"
	"$PYTHON" "$PKTPY" paced --send "$GEN:g0" --dmac "$MAC_GW0" \
		--rate "$rate" --max "$max" --stop "$TMPD/paced.stop" \
		--started "$TMPD/paced.started" "$@" >"$out" &
	PACED=$!
	for _ in $(seq 100); do
		[ -e "$TMPD/paced.started" ] && return 0
		kill -0 "$PACED" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

pkt_paced_stop() {
	[ -n "$PACED" ] || return 0
	: >"$TMPD/paced.stop"
	wait "$PACED"
	PACED=
}

# Explain a mismatch: the fields of every captured frame and of the expected.
_explain() {	# out [expected-hex]
	local l h
	echo "     captured:"
	[ -z "$1" ] && echo "       (nothing)"
	while read -r l h; do
		[ -n "$l" ] || continue
		echo "       $l $h"
		echo "       $l $(pkt_show "$h")"
	done <<<"$1"
	if [ -n "${2:-}" ]; then
		echo "     expected:"
		echo "       $2"
		echo "       $(pkt_show "$2")"
	fi
}

# expect_frame DESC OUT LABEL HEX: exactly one frame, on LABEL, with HEX.
expect_frame() {
	if [ "$2" = "$3 $4" ]; then
		pass "$1"
		return 0
	fi
	fail "$1"
	_explain "$2" "$4"
	return 1
}

# expect_fields DESC OUT LABEL WORD...: exactly one frame, on LABEL, whose
# `pkt.py show` has every WORD.  Sets FRAME to its hex.
expect_fields() {
	local desc=$1 out=$2 label=$3
	shift 3
	FRAME=
	local n
	n=$(grep -c . <<<"$out")
	if [ "$n" -ne 1 ] || [ "${out%% *}" != "$label" ]; then
		fail "$desc: wanted one frame on $label"
		_explain "$out"
		return 1
	fi
	FRAME=${out#* }
	local f w miss=
	f=" $(pkt_show "$FRAME") "
	for w in "$@"; do
		[[ "$f" == *" $w "* ]] || miss="$miss $w"
	done
	if [ -n "$miss" ]; then
		fail "$desc: missing$miss"
		_explain "$out"
		return 1
	fi
	pass "$desc"
}

# expect_none DESC OUT: nothing left the gateway (or came back).
expect_none() {
	if [ -z "$2" ]; then
		pass "$1"
		return 0
	fi
	fail "$1: expected no frame"
	_explain "$2"
	return 1
}

# expect_eq DESC GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1 ($2)"
		return 0
	fi
	fail "$1: got '$2', want '$3'"
	return 1
}

# ns_finish: summary line, daemon log on failure, exit status.
ns_finish() {
	echo "$T: $NPASS checks passed, $NFAIL failed, $NSKIP skipped"
	if [ "$NFAIL" -gt 0 ]; then
		srv6d_dump
		exit 1
	fi
	exit 0
}
