# shellcheck shell=bash
# tcplib.sh - what the TCP benchmarks share (bench/decap-tcp.sh,
# transit-tcp.sh, l3vpn-tcp.sh, l3vpn-kencap.sh, l3vpn-default.sh): their
# prologue, iperf3 rates, nstat counters, GRO settings, srv6d's modes,
# the result rows and the L3VPN's measurements.
#
# Sourced, not run, after tests/ns/lib.sh (or tests/ns/l3vpn.sh, which
# sources it): it uses nsx, say, skip_test, ns_init, need_srv6d,
# need_tools, srv6d_start, srv6d_stop, ctl_get, nstat_abs, $GEN, $TMPD,
# $PYTHON, and the benchmark's $SECS and $RUNS.

# tcp_bench_init TIMEOUT TOOL...: ns_init TIMEOUT, need_srv6d, SRV6D_PLAIN
# (srv6d) and SRV6D_K72 (the 7.2 emulation's, default beside SRV6D's
# build); skip the benchmark when a TOOL is not found.
tcp_bench_init() {
	ns_init "$1"
	shift
	need_srv6d
	SRV6D_PLAIN=$SRV6D
	SRV6D_K72=${SRV6D_K72:-$(dirname "$SRV6D")/../tests/kernel72/srv6d-k72}
	need_tools "$@"
}

# median: read numbers, one a line; print their median (of an even count,
# the lower of the middle two).  Not bench/lib.sh's, which averages them.
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
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

# l3vpn_measure LABEL [DST]: RUNS transfers of SECS seconds from a1 to DST
# (a2's fd01:2::2), their rates in Mbit/s to $TMPD/LABEL (tcp_runs, a
# failed one 0); a2's TcpInCsumErrors and a1's TcpRetransSegs increases
# to $TMPD/LABEL.ctr, and said.
l3vpn_measure() {
	nstat_reset "$A1" "$A2"
	tcp_runs "$1" zero l3vpn_iperf "$A2" "${2:-fd01:2::2}" "$A1" "$SECS"
	echo "a2 TcpInCsumErrors +$(nstat_get TcpInCsumErrors), a1 TcpRetransSegs +$(nstat_get TcpRetransSegs)" >"$TMPD/$1.ctr"
	say "$1: $(cat "$TMPD/$1.ctr")"
}

# l3vpn_pe_counters N: how PE N's srv6d gave its packets back (its status
# at $TMPD/peN.sock): its totals forwarded, injected, kend, kencap,
# gso_vnet, hq_truncated (cut short by a header queue), bounced and
# dropped, the kernel-encap fallbacks and the drops that are not 0.
# Prints nothing when srv6ctl fails.
l3vpn_pe_counters() {
	timeout 5 "$SRV6CTL" -s "$TMPD/pe$1.sock" -j status | "$PYTHON" -c '
import json, sys
t = json.load(sys.stdin)["totals"]
d = {k: v for k, v in t.get("drops", {}).items() if v}
fb = {k: v for k, v in t.get("kencap_fallbacks", {}).items() if v}
print("forwarded %d injected %d kend %d kencap %d gso_vnet %d hq_truncated %d bounced %d fallbacks %s dropped %d drops %s" % (
    t["forwarded"], t["injected"], t.get("kend", 0), t.get("kencap", 0),
    t["gso_vnet"], t.get("hq_truncated", 0), t.get("bounced", 0), fb,
    t["dropped"], d))'
}

# l3vpn_bench_setup: the L3VPN (l3vpn_setup) with l3vpn_bench_links' MTU
# and GRO, its settings said; exits when refused.
l3vpn_bench_setup() {
	l3vpn_setup || { say "topology setup failed"; exit 1; }
	l3vpn_bench_links
	say "host MTU $HOST_MTU, core MTU $CORE_MTU, GRO ${GRO:-default}, ${SECS}s x $RUNS"
}

# l3vpn_bench_ping WHAT: exit, saying "WHAT L3VPN does not answer", unless
# a2 answers a1's ping.
l3vpn_bench_ping() {
	nsx "$A1" ping -c 2 -W 2 fd01:2::2 >/dev/null || { say "$1 L3VPN does not answer"; exit 1; }
}

# l3vpn_bench_kernel LABEL: the kernel's seg6 encap and seg6local End.DT6
# at both PEs (l3vpn_kernel), answering, measured as LABEL (l3vpn_measure);
# exits when refused.  The caller deletes them (l3vpn_kernel_del).
l3vpn_bench_kernel() {
	say "kernel: seg6 encap + seg6local End.DT6 at both PEs"
	if ! { l3vpn_kernel "$PE1" 1 && l3vpn_kernel "$PE2" 2; }; then
		say "kernel routes failed"
		exit 1
	fi
	l3vpn_bench_ping kernel
	l3vpn_measure "$1"
}
