# shellcheck shell=bash
# tcplib.sh - what the TCP benchmarks share (bench/decap-tcp.sh,
# transit-tcp.sh, l3vpn-tcp.sh, l3vpn-kencap.sh): their prologue, iperf3
# rates, nstat counters, GRO settings, srv6d's modes and the result rows.
#
# Sourced, not run, after tests/ns/lib.sh (or tests/ns/l3vpn.sh, which
# sources it): it uses nsx, say, skip_test, ns_init, need_srv6d,
# srv6d_start, srv6d_stop, ctl_get, $GEN, $TMPD, $PYTHON, and the
# benchmark's $SECS and $RUNS.

# tcp_bench_init TIMEOUT TOOL...: ns_init TIMEOUT, need_srv6d, SRV6D_PLAIN
# (srv6d) and SRV6D_K72 (the 7.2 emulation's, default beside SRV6D's
# build); skip the benchmark when a TOOL is not found.
tcp_bench_init() {
	local c
	ns_init "$1"
	shift
	need_srv6d
	SRV6D_PLAIN=$SRV6D
	SRV6D_K72=${SRV6D_K72:-$(dirname "$SRV6D")/../tests/kernel72/srv6d-k72}
	for c in "$@"; do
		command -v "$c" >/dev/null || skip_test "$c not found"
	done
}

# median: read numbers, one a line; print their median (of an even count,
# the lower of the middle two).  Not bench/lib.sh's, which averages them.
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# nstat_abs NS COUNTER: COUNTER's absolute value in NS (nstat's history
# file is per user, not per namespace: read absolute values and subtract).
nstat_abs() {
	nsx "$1" nstat -az "$2" 2>/dev/null | awk -v c="$2" '$1 == c { print $2 + 0 }'
}

# nstat_reset SENDER RECEIVER: remember SENDER's TcpRetransSegs and
# RECEIVER's TcpInCsumErrors, for nstat_get.
nstat_reset() {
	NSTAT_TX=$1 NSTAT_RX=$2
	RETRANS0=$(nstat_abs "$1" TcpRetransSegs)
	CSUMERR0=$(nstat_abs "$2" TcpInCsumErrors)
}

# nstat_get TcpRetransSegs|TcpInCsumErrors: its increase since nstat_reset.
nstat_get() {
	case $1 in
	TcpRetransSegs) echo $(($(nstat_abs "$NSTAT_TX" "$1") - RETRANS0)) ;;
	*) echo $(($(nstat_abs "$NSTAT_RX" "$1") - CSUMERR0)) ;;
	esac
}

# nstat_line: "retrans=N csumerr=N", their increases since nstat_reset.
nstat_line() {
	echo "retrans=$(nstat_get TcpRetransSegs) csumerr=$(nstat_get TcpInCsumErrors)"
}

# iperf DST SECONDS: bits per second of an iperf3 transfer from gen to DST
# (IPv4 when DST has a dot).
iperf() {
	local fam=-6
	case $1 in *.*) fam=-4 ;; esac
	nsx "$GEN" timeout $(($2 + 10)) iperf3 "$fam" -c "$1" -t "$2" -J 2>/dev/null |
		"$PYTHON" -c 'import json,sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))'
}

# tcp_runs LABEL stop|zero CMD...: RUNS transfers by CMD (which prints bits
# per second), their rates in Mbit/s one a line to $TMPD/LABEL and said.
# A failed CMD returns 1 (stop) or counts as 0 (zero: a stalled transfer).
tcp_runs() {
	local label=$1 onfail=$2 i r
	shift 2
	: >"$TMPD/$label"
	for i in $(seq 1 "$RUNS"); do
		r=$("$@") || {
			say "$label: iperf3 failed"
			[ "$onfail" = zero ] || return 1
			r=0
		}
		echo $((r / 1000000)) >>"$TMPD/$label"
		say "$label run $i: $((r / 1000000)) Mbit/s"
	done
}

# gro_set on|off NS:IF...: GRO on or off at each interface; says each
# failure and then returns 1.
gro_set() {
	local v=$1 ns_if rc=0
	shift
	for ns_if in "$@"; do
		nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro "$v" >/dev/null 2>&1 || {
			say "ethtool -K ${ns_if#*:} gro $v failed"
			rc=1
		}
	done
	return $rc
}

# srv6d_bench_start LABEL K72 FORMAT [ARG...]: srv6d (K72 "k72": the 7.2
# emulation's, its NFQ72_STATS in $TMPD/LABEL.k72) started on the config
# that printf FORMAT ARG... writes.  Returns 2 (said) when the 7.2
# emulation is not built; exits when srv6d does not start.
srv6d_bench_start() {
	SRV6D=$SRV6D_PLAIN
	if [ "$2" = k72 ]; then
		[ -x "$SRV6D_K72" ] || { say "$SRV6D_K72 not built: $1 skipped"; return 2; }
		SRV6D=$SRV6D_K72
		export NFQ72_STATS="$TMPD/$1.k72"
	fi
	local fmt=$3
	shift 3
	# shellcheck disable=SC2059 # the config's format is the caller's
	printf "$fmt" "$@" >"$TMPD/srv6d.conf"
	srv6d_start "$TMPD/srv6d.conf" || exit 1
}

# srv6d_bench_ping DST: exit unless DST answers gen's ping (through srv6d).
srv6d_bench_ping() {
	nsx "$GEN" ping -6 -c 2 -W 2 "$1" >/dev/null || { say "srv6d path does not answer"; exit 1; }
}

# srv6d_bench_counters LABEL FIELD...: srv6d's totals FIELD=N ... to
# $TMPD/LABEL.s.
srv6d_bench_counters() {
	local label=$1 f fmt='' args=''
	shift
	for f in "$@"; do
		fmt="$fmt${fmt:+ }$f=%d"
		args="$args${args:+, }s['totals']['$f']"
	done
	ctl_get "'$fmt' % ($args)" >"$TMPD/$label.s" 2>&1
}

# srv6d_bench_stop: srv6d stopped, NFQ72_STATS forgotten.
srv6d_bench_stop() {
	srv6d_stop
	unset NFQ72_STATS
}

# rate_row WIDTH LABEL FILE [EXTRA]: "  LABEL  MEDIAN Mbit/s  (runs: ...)"
# of $TMPD/FILE's rates, LABEL in WIDTH columns, then " EXTRA" if given.
rate_row() {
	printf '  %-*s %6s Mbit/s  (runs: %s)' "$1" "$2" "$(median <"$TMPD/$3")" \
		"$(tr '\n' ' ' <"$TMPD/$3")"
	[ $# -lt 4 ] || printf ' %s' "$4"
	printf '\n'
}

# ---- the L3VPN's (tests/ns/l3vpn.sh's topology) ------------------------------

# l3vpn_bench_links: the PEs' core link at $CORE_MTU (when not 1500), GRO
# at $GRO (when set) at every veth from a1 to a2; exits when refused.
l3vpn_bench_links() {
	if [ "$CORE_MTU" != 1500 ]; then
		if ! { ip -n "$PE1" link set c0 mtu "$CORE_MTU" &&
			ip -n "$PE2" link set c0 mtu "$CORE_MTU"; }; then
			say "core MTU failed"
			exit 1
		fi
	fi
	if [ -n "${GRO:-}" ]; then
		gro_set "$GRO" "$A1:e0" "$PE1:ta" "$PE1:c0" "$PE2:c0" "$PE2:ta" "$A2:e0" ||
			exit 1
	fi
}

# l3vpn_kernel_del PE N: the kernel's seg6/seg6local routes of tenant A and
# B's IPv6 at PE N (l3vpn_kernel's), and its tunnel source, deleted.
l3vpn_kernel_del() {
	local pe=$1 n=$2 r
	for r in a6 b6; do ip -n "$pe" -6 route del "fc00:$n::$r/128"; done
	ip -n "$pe" -6 route del "fd01:$((3 - n))::/64" table 101
	ip -n "$pe" -6 route del "fd02:$((3 - n))::/64" table 102
	nsx "$pe" ip sr tunsrc set ::
}
