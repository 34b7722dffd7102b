#!/bin/bash
# end-rate.sh - SRv6 End throughput and CPU cost: the kernel's seg6local,
# srv6d and a naive one-packet-at-a-time NFQUEUE loop, on one testbed, in
# one run.  Run as root.  See BENCHMARKS.md for what it measures and how to
# read it.
#
#   gen --veth--> gw --veth--> sink        (three network namespaces)
#
# gen sends 94-byte SRv6 frames (IPv6 DA = the SID, SRH SL=1, segments
# [final, SID]) with trafgen; gw applies End (DA = final, SL = 0); sink
# counts the frames that arrive with DA = final, SL = 0 and hop limit 63.
#
# For each configuration the script
#   1. searches the highest offered rate at which at most 0.5% of the frames
#      are lost (loss = 1 - arrived at sink / left gen's veth), and
#   2. measures the gateway's CPU time per forwarded frame at one common
#      offered rate that every configuration sustains.
#
# Cores: the generator runs on CPU 0, the gateway on CPU 1 (RPS steers gw's
# receive processing to CPU 1, and the daemon is pinned there).
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"

usage() {
	cat <<-EOF
	usage: $0 [options]
	  --srv6d PATH      srv6d binary (default \$SRV6D, else $BENCH_DIR/../src/srv6d)
	  --configs LIST    comma-separated, from: forward,kernel,srv6d,srv6d-2q,
	                    srv6d-nopayload,srv6d-gso,naive,floor
	                    (srv6d: payload verdicts, reinject verdict;
	                    srv6d-gso: the same with \`gso yes\` (the queue
	                    bound with NFQA_CFG_F_GSO);
	                    srv6d-nopayload: every result back by srv6d's own
	                    device, reinject no-payload, as on Linux 7.1+ in a
	                    user namespace; End's results on 7.2 go that way)
	                    (floor: recvmmsg batches and one batch NF_ACCEPT each,
	                    nothing else: what NFQUEUE itself costs here)
	                    (default: all; srv6d ones are skipped without a binary)
	                    A srv6d configuration with the suffix @b (srv6d@b,
	                    srv6d-nopayload@b) runs the --srv6d-b binary: two
	                    builds compared in one run
	  --srv6d-b PATH    the second srv6d binary (for CONFIG@b)
	  --repeat N        repeat every measurement N times, report the median (3)
	  --duration S      seconds per probe (5)
	  --steps N         bisection steps of the rate search (6)
	  --quick           --duration 1 --steps 4 --repeat 1
	  --cpu-rate PPS    common offered rate of the CPU measurement
	                    (default: 70% of the lowest median max rate)
	  --loss PCT        loss allowed at the max rate, percent (0.5)
	  --no-rps          do not steer gw's receive processing to CPU 1
	  --nice N          niceness of trafgen and of the gateway daemons (-10):
	                    the cores are shared with other work
	  --profile S       after the run, perf record each configuration at its
	                    max rate for S seconds (system-wide on the gateway
	                    core, call graphs), and list every drop counter that
	                    moved meanwhile (drops-CONFIG.txt)
	  --profile-rate PPS  profile at this offered rate instead of the max
	                    rate (e.g. above it, to see where the loss is)
	  --gw-setup CMD    run CMD (a shell command) in gw once each gateway is
	                    up (experiments: "ethtool -K srv6d0 gro on")
	  --keep-perf       keep the perf data of the CPU probes (cpu-CONFIG-REP.perf)
	  --out DIR         where probes.csv, logs and the profile go
	                    (default /tmp/srv6d-end-rate.<date>)
	EOF
	exit 2
}

# ---- options ----------------------------------------------------------------
SRV6D_BIN=${SRV6D:-$BENCH_DIR/../src/srv6d}
SRV6D_B=
CONFIGS=forward,kernel,srv6d,srv6d-2q,srv6d-nopayload,srv6d-gso,naive,floor
REPEAT=3
DURATION=5
STEPS=6
CPU_RATE=
LOSS_MAX=0.5
RPS=1
PROFILE=0
PROFILE_RATE=
GW_SETUP=
KEEP_PERF=0
OUT=
NICE=-10
GEN_CPU=0
GW_CPU=1

while [ $# -gt 0 ]; do
	case $1 in
	--srv6d) SRV6D_BIN=$2; shift ;;
	--srv6d-b) SRV6D_B=$(readlink -f "$2"); shift ;;
	--configs) CONFIGS=$2; shift ;;
	--repeat) REPEAT=$2; shift ;;
	--duration) DURATION=$2; shift ;;
	--steps) STEPS=$2; shift ;;
	--quick) DURATION=1; STEPS=4; REPEAT=1 ;;
	--cpu-rate) CPU_RATE=$2; shift ;;
	--loss) LOSS_MAX=$2; shift ;;
	--no-rps) RPS=0 ;;
	--nice) NICE=$2; shift ;;
	--profile) PROFILE=$2; shift ;;
	--profile-rate) PROFILE_RATE=$2; shift ;;
	--gw-setup) GW_SETUP=$2; shift ;;
	--out) OUT=$2; shift ;;
	--keep-perf) KEEP_PERF=1 ;;
	-h|--help) usage ;;
	*) log "unknown option: $1"; usage ;;
	esac
	shift
done

[ "$(id -u)" = 0 ] || die "must run as root (network namespaces, NFQUEUE)"
for tool in trafgen ip ip6tables nft tc taskset gcc pkg-config python3 perf; do
	command -v $tool >/dev/null ||
		die "$tool is missing (apt-get install -y netsniff-ng linux-perf)"
done
[ "$(nproc)" -ge 2 ] || die "needs two CPUs (generator and gateway)"

OUT=${OUT:-/tmp/srv6d-end-rate.$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || die "cannot create $OUT"
PROBES=$OUT/probes.csv
echo "config,phase,rep,setting_pps,offered_pps,delivered_pps,loss_pct,sent,arrived,malformed,gw_cpu_ns,other_cpu_ns,irq_skid_ns,gw_cpu_ns_per_pkt,nfq_queue_dropped,nfq_user_dropped" > "$PROBES"
PERF_PERIOD_NS=250000	# a cpu-clock sample every 250 us of busy time

# One benchmark at a time on this machine (it owns CPU 1 for a while).
exec 9>/run/lock/srv6d-end-rate.lock
flock -n 9 || die "another end-rate.sh is running"

# ---- cleanup -------------------------------------------------------------------
GW_PID=
cleanup() {
	stop_gateway_process
	testbed_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_gateway_process() {
	if [ -n "$GW_PID" ] && kill -0 "$GW_PID" 2>/dev/null; then
		kill -TERM "$GW_PID" 2>/dev/null
		for _ in $(seq 1 50); do
			kill -0 "$GW_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$GW_PID" 2>/dev/null
		wait "$GW_PID" 2>/dev/null
	fi
	GW_PID=
}

# ---- build the naive loop -------------------------------------------------------
NAIVE_BIN=$OUT/naive-nfq
# shellcheck disable=SC2046 # pkg-config's flags are words
gcc -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -o "$NAIVE_BIN" "$BENCH_DIR/naive-nfq.c" \
	$(pkg-config --cflags --libs libnetfilter_queue) ||
	die "cannot build naive-nfq.c (libnetfilter-queue-dev missing?)"

# ---- build the floor loop --------------------------------------------------------
FLOOR_BIN=$OUT/floor-nfq
# shellcheck disable=SC2046 # pkg-config's flags are words
gcc -std=gnu11 -O2 -g -Wall -Wextra -o "$FLOOR_BIN" "$BENCH_DIR/floor-nfq.c" \
	$(pkg-config --cflags --libs libmnl) ||
	die "cannot build floor-nfq.c (libmnl-dev missing?)"

# ---- which configurations --------------------------------------------------------
have_srv6d=0
if [ -x "$SRV6D_BIN" ]; then
	have_srv6d=1
	SRV6D_BIN=$(readlink -f "$SRV6D_BIN")
fi
RUN_CONFIGS=
for c in ${CONFIGS//,/ }; do
	case $c in
	forward|kernel|naive|floor) ;;
	srv6d@b|srv6d-2q@b|srv6d-nopayload@b|srv6d-gso@b)
		[ -x "$SRV6D_B" ] || die "$c: no --srv6d-b binary" ;;
	srv6d|srv6d-2q|srv6d-nopayload|srv6d-gso)
		if [ $have_srv6d = 0 ]; then
			log "end-rate: no srv6d binary at $SRV6D_BIN: skipping $c"
			continue
		fi ;;
	*) die "unknown configuration: $c" ;;
	esac
	RUN_CONFIGS="$RUN_CONFIGS $c"
done
[ -n "$RUN_CONFIGS" ] || die "nothing to run"

# ---- testbed ------------------------------------------------------------------------
[ $RPS = 1 ] && BENCH_RPS_CPUS=$(printf '%x' $((1 << GW_CPU)))
testbed_down
testbed_up || die "cannot build the testbed"
CFG_SID=$OUT/end.trafgen
CFG_FWD=$OUT/forward.trafgen
# End: DA = the SID, SL 1.  forward (the baseline: plain IPv6 forwarding
# of the same frame, no SRv6 processing): DA = the final segment, SL 0.
trafgen_cfg "$CFG_SID" "$BENCH_SID" 1
trafgen_cfg "$CFG_FWD" "$BENCH_FINAL" 0

# ---- configurations -------------------------------------------------------------------
# gateway_up CONFIG: make gw apply End the CONFIG's way; sets TRAFGEN_CFG.
gateway_up() {
	TRAFGEN_CFG=$CFG_SID
	GW_BIN=$SRV6D_BIN
	case $1 in *@b) GW_BIN=$SRV6D_B ;; esac
	case ${1%@b} in
	forward)
		TRAFGEN_CFG=$CFG_FWD ;;
	kernel)
		in_gw ip -6 route add "$BENCH_SID/128" encap seg6local \
			action End dev gwb || return 1 ;;
	srv6d)
		srv6d_up 0 "--queue-num 0" verdict || return 1 ;;
	srv6d-2q)
		srv6d_up 0-1 "--queue-balance 0:1" verdict || return 1 ;;
	srv6d-nopayload)
		srv6d_up 0 "--queue-num 0" no-payload || return 1 ;;
	srv6d-gso)
		srv6d_up 0 "--queue-num 0" verdict yes || return 1 ;;
	naive)
		in_gw ip6tables -t raw -A PREROUTING -d "$BENCH_SID" \
			-j NFQUEUE --queue-num 0 || return 1
		ip netns exec "$NS_GW" nice -n "$NICE" taskset -c "$GW_CPU" \
			"$NAIVE_BIN" -q 0 \
			-r $((8 << 20)) -m 8192 2>>"$OUT/naive.log" &
		GW_PID=$!
		wait_queue_bound 0 || return 1 ;;
	floor)
		# Plain forwarded frames (they need no rewrite to arrive),
		# queued and accepted in batches.
		TRAFGEN_CFG=$CFG_FWD
		in_gw ip6tables -t raw -A PREROUTING -d "$BENCH_FINAL" \
			-j NFQUEUE --queue-num 0 || return 1
		ip netns exec "$NS_GW" nice -n "$NICE" taskset -c "$GW_CPU" \
			"$FLOOR_BIN" -q 0 \
			-r $((8 << 20)) -m 8192 2>>"$OUT/floor.log" &
		GW_PID=$!
		wait_queue_bound 0 || return 1 ;;
	esac
}

gateway_up_setup() {
	gateway_up "$1" || return 1
	[ -z "$GW_SETUP" ] || in_gw sh -c "$GW_SETUP" >>"$OUT/gw-setup.log" 2>&1
}

gateway_down() {
	stop_gateway_process
	in_gw ip6tables -t raw -F PREROUTING 2>/dev/null
	in_gw ip -6 route del "$BENCH_SID/128" 2>/dev/null
	return 0
}

# srv6d_up QUEUES IP6TABLES_QUEUE_ARGS REINJECT [GSO]
srv6d_up() {
	local conf=$OUT/srv6d-$1-$3-gso${4:-no}.conf cpus=$GW_CPU
	printf 'queue %s\nreinject %s\ngso %s\nsid %s/128 action End\n' "$1" "$3" \
		"${4:-no}" "$BENCH_SID" > "$conf"
	# this bench writes its own rule: srv6d's (steering auto, from the
	# srv6d that has -p) would queue the packets twice
	if "$GW_BIN" -h 2>&1 | grep -q -- '^  -p '; then
		echo "steering no" >>"$conf"
	fi
	"$GW_BIN" -t -c "$conf" >/dev/null 2>>"$OUT/srv6d.log" ||
		{ log "end-rate: srv6d rejects $conf (see $OUT/srv6d.log)"; return 1; }
	# Two workers on two cores: the second shares CPU 0 with trafgen.
	[ "$1" = 0 ] || cpus=$GEN_CPU,$GW_CPU
	in_gw ip6tables -t raw -A PREROUTING -d "$BENCH_SID" -j NFQUEUE $2 ||
		return 1
	ip netns exec "$NS_GW" nice -n "$NICE" taskset -c "$cpus" \
		"$GW_BIN" -c "$conf" -s "$OUT/srv6d.sock" 2>>"$OUT/srv6d.log" &
	GW_PID=$!
	wait_queue_bound 0 || return 1
	[ "$1" = 0 ] || wait_queue_bound 1
}

# wait_queue_bound N: until a program has bound NFQUEUE N in gw (5 s).
wait_queue_bound() {
	local i
	for i in $(seq 1 50); do
		in_gw awk -v q="$1" '$1 == q { found = 1 } END { exit !found }' \
			/proc/net/netfilter/nfnetlink_queue 2>/dev/null && return 0
		kill -0 "$GW_PID" 2>/dev/null || break
		sleep 0.1
	done
	log "end-rate: queue $1 never bound (see $OUT/*.log)"
	return 1
}

# nfq_stats: "queued queue_dropped user_dropped" summed over gw's queues.
nfq_stats() {
	in_gw awk '{ t += $3; q += $6; u += $7 } END { print t+0, q+0, u+0 }' \
		/proc/net/netfilter/nfnetlink_queue 2>/dev/null || echo "0 0 0"
}

# ---- one probe -----------------------------------------------------------------------
# probe CONFIG PHASE REP RATE: send for $DURATION s, shaped to RATE pps by a
# tbf qdisc on gen's veth (trafgen blocks when the qdisc is full, so it
# sends smoothly at that rate); RATE 0: unshaped, as fast as trafgen goes.
# In the cpu phase, perf samples the gateway core meanwhile (see
# gw_cpu_ns).  Sets P_OFFERED, P_DELIVERED (pps), P_LOSS (percent), P_CPU
# (gateway ns per forwarded frame, cpu phase only) and appends a line to
# probes.csv.
probe() {
	local cfg=$1 phase=$2 rep=$3 rate=$4 qd=() out perfpid='' data=''
	local s0 s1 a0 a1 m0 m1 n0 n1 secs gwns=0 otherns=0 skidns=0

	if [ "$rate" = 0 ]; then
		in_gen tc qdisc del dev g0 root 2>/dev/null
	else
		# burst: 128 frames, so a late qdisc timer loses no tokens;
		# limit: 256 frames queued in gen at most.
		in_gen tc qdisc replace dev g0 root tbf \
			rate $((rate * 94 * 8))bit burst $((94 * 128)) \
			limit $((94 * 256)) || die "tbf"
		qd=(-q)
	fi
	drain_gateway

	s0=$(gen_tx); a0=$(sink_count); m0=$(sink_count malformed)
	n0=$(nfq_stats)
	if [ "$phase" = cpu ]; then
		data=$OUT/cpu-$cfg-$rep.perf
		perf record -q -e cpu-clock -c "$PERF_PERIOD_NS" -g \
			-C "$GW_CPU" -o "$data" -- sleep $((DURATION + 1)) \
			>/dev/null 2>&1 &
		perfpid=$!
		sleep 0.3
	fi
	# trafgen: slow path (sendto per frame, -t 0), one process on CPU 0,
	# system socket memory left alone; SIGINT after DURATION ends it.
	out=$(timeout -s INT "$DURATION" ip netns exec "$NS_GEN" \
		nice -n "$NICE" taskset -c "$GEN_CPU" trafgen --no-sock-mem \
		"${qd[@]}" -t 0 -P 1 -o g0 -i "$TRAFGEN_CFG" 2>&1)
	sleep 0.3		# the queue and the qdisc drain
	[ -n "$perfpid" ] && wait "$perfpid"
	s1=$(gen_tx); a1=$(sink_count); m1=$(sink_count malformed)
	n1=$(nfq_stats)

	# trafgen's own send-loop time, without its start-up.
	secs=$(echo "$out" | awk '/usec on CPU/ { printf "%.6f", $1 + $3 / 1e6 }')
	[ -n "$secs" ] && [ "$secs" != 0.000000 ] || secs=$DURATION
	local sent=$((s1 - s0)) arrived=$((a1 - a0)) malformed=$((m1 - m0))
	set -- $n0; local qd0=$2 ud0=$3
	set -- $n1; local qd1=$2 ud1=$3
	if [ -n "$data" ]; then
		read -r gwns otherns skidns <<< "$(gw_cpu_ns "$data" "$GW_PID")"
		[ "$KEEP_PERF" = 1 ] || rm -f "$data"
	fi
	read -r P_OFFERED P_DELIVERED P_LOSS P_CPU <<< "$(awk -v s="$sent" \
		-v a="$arrived" -v t="$secs" -v g="$gwns" '
		BEGIN {
			loss = s > 0 ? 100 * (s - a) / s : 100
			if (loss < 0) loss = 0
			cpu = a > 0 ? g / a : 0
			printf "%d %d %.3f %.0f\n", s / t, a / t, loss, cpu
		}')"
	echo "$cfg,$phase,$rep,$rate,$P_OFFERED,$P_DELIVERED,$P_LOSS,$sent,$arrived,$malformed,$gwns,$otherns,$skidns,$P_CPU,$((qd1 - qd0)),$((ud1 - ud0))" >> "$PROBES"
	log "  $cfg $phase: shaped to $rate pps: offered $P_OFFERED, delivered $P_DELIVERED pps, loss $P_LOSS%$([ -z "$data" ] || echo ", gw CPU $P_CPU ns/pkt (others on CPU $GW_CPU: $((otherns / 1000000)) ms, IPI skid $((skidns / 1000000)) ms)")"
	[ "$malformed" = 0 ] ||
		log "end-rate: $cfg: $malformed frames reached the sink without a correct End"
}

# gw_cpu_ns PERF_DATA PID: "gateway_ns other_ns skid_ns" on the gateway
# core.  The kernel here has tick-based CPU accounting without IRQ time
# accounting, too coarse and biased for per-packet costs on a shared core,
# so the gateway core is sampled instead: perf's cpu-clock fires every
# PERF_PERIOD_NS of busy time; a sample is the gateway's when it is in the
# daemon (PID: its syscalls, the verdict's reinjection, the softirqs run on
# its way out) or inside a softirq (veth receive, forwarding, seg6local,
# NFQUEUE enqueue, the sink's receive), whoever was interrupted.  Samples
# whose innermost frame is handle_softirqs itself are left out (skid_ns):
# in this VM they are the timer interrupt held back while the RPS IPI was
# being taken (irqs off), i.e. interrupt delivery, not packet work, and
# their number depends on how busy the core is with other work.
gw_cpu_ns() {
	perf script -i "$1" -F pid,ip,sym 2>/dev/null | awk -v pid="${2:-none}" \
		-v period="$PERF_PERIOD_NS" '
		function flush() {
			if (!insample) return
			if (leaf == "handle_softirqs") k++
			else if (gw) g++
			else o++
			insample = 0
		}
		/^[ \t]*$/ { flush(); next }
		!insample { insample = 1; gw = ($1 == pid); leaf = ""; next }
		leaf == "" { leaf = $2 }
		/handle_softirqs|__do_softirq|net_rx_action|do_softirq/ { gw = 1 }
		END {
			flush()
			printf "%.0f %.0f %.0f\n", g * period, o * period, k * period
		}'
}

# drain_gateway: wait until nothing is queued to userspace in gw.
drain_gateway() {
	local i queued
	for i in $(seq 1 30); do
		read -r queued _ <<< "$(nfq_stats)"
		[ "$queued" = 0 ] && return 0
		sleep 0.1
	done
}

loss_ok() {
	awk -v l="$P_LOSS" -v m="$LOSS_MAX" 'BEGIN { exit !(l <= m) }'
}

# search CONFIG REP: sets S_MAX (pps delivered at the highest offered rate
# with loss <= LOSS_MAX) and S_LIMIT ("gen" when that was the generator's
# own maximum, unshaped, else "gw").  The bisection works on the offered
# rates that were actually achieved: on a loaded machine trafgen may send
# less than the tbf rate asks, so the next tbf rate is scaled by the last
# achieved/asked ratio.
search() {
	local cfg=$1 rep=$2 lo=0 hi target setting eff=100 i
	S_MAX=0
	S_LIMIT=gw
	probe "$cfg" search "$rep" 0
	if loss_ok; then
		S_MAX=$P_DELIVERED
		S_LIMIT=gen
		return
	fi
	hi=$P_OFFERED
	for i in $(seq 1 "$STEPS"); do
		target=$(((lo + hi) / 2))
		setting=$((target * 100 / eff))
		probe "$cfg" search "$rep" "$setting"
		[ "$setting" -gt 0 ] && eff=$((P_OFFERED * 100 / setting))
		[ "$eff" -ge 20 ] || eff=20
		[ "$eff" -le 100 ] || eff=100
		if loss_ok; then
			[ "$P_OFFERED" -gt "$lo" ] && lo=$P_OFFERED
			[ "$P_DELIVERED" -gt "$S_MAX" ] && S_MAX=$P_DELIVERED
			# noise: a pass above an earlier failure
			[ "$lo" -lt "$hi" ] || hi=$((lo * 11 / 10))
		else
			[ "$P_OFFERED" -lt "$hi" ] && hi=$P_OFFERED
			[ "$hi" -gt "$lo" ] || lo=$((hi * 9 / 10))
		fi
	done
}

# ---- phase 1: highest rate at <= LOSS_MAX% loss --------------------------------------
log "end-rate: configurations:$RUN_CONFIGS; $REPEAT x, ${DURATION}s probes, $STEPS steps; output in $OUT"
declare -A MAXR LIMIT CPUNS MEDR MEDC
for rep in $(seq 1 "$REPEAT"); do
	for cfg in $RUN_CONFIGS; do
		log "end-rate: [$rep/$REPEAT] $cfg: rate search"
		if ! gateway_up_setup "$cfg"; then
			log "end-rate: $cfg: cannot set up the gateway; skipped"
			gateway_down
			continue
		fi
		search "$cfg" "$rep"
		gateway_down
		MAXR[$cfg]="${MAXR[$cfg]:-} $S_MAX"
		[ "$S_LIMIT" = gen ] && LIMIT[$cfg]=gen
	done
done

med() { printf '%s\n' $1 | median; }

# ---- phase 2: CPU per packet at a common rate -----------------------------------------
if [ -z "$CPU_RATE" ]; then
	lowest=
	for cfg in $RUN_CONFIGS; do
		[ -n "${MAXR[$cfg]:-}" ] || continue
		m=$(med "${MAXR[$cfg]}")
		if [ -z "$lowest" ] || awk -v a="$m" -v b="$lowest" 'BEGIN { exit !(a < b) }'; then
			lowest=$m
		fi
	done
	CPU_RATE=$(awk -v l="${lowest:-0}" 'BEGIN { printf "%d", l * 0.7 / 1000 * 1000 }')
fi
if [ $RPS = 0 ] && [ "${CPU_RATE:-0}" -gt 0 ]; then
	# Without RPS the gateway's softirq runs on the generator's core,
	# where it cannot be told from the generator's own work.
	log "end-rate: --no-rps: no CPU measurement (the gateway is not one core)"
	CPU_RATE=0
fi
if [ "${CPU_RATE:-0}" -gt 0 ]; then
	for rep in $(seq 1 "$REPEAT"); do
		for cfg in $RUN_CONFIGS; do
			log "end-rate: [$rep/$REPEAT] $cfg: CPU at $CPU_RATE pps"
			gateway_up_setup "$cfg" || { gateway_down; continue; }
			probe "$cfg" cpu "$rep" "$CPU_RATE"
			gateway_down
			if loss_ok; then
				CPUNS[$cfg]="${CPUNS[$cfg]:-} $P_CPU"
			else
				log "end-rate: $cfg lost $P_LOSS% at $CPU_RATE pps: CPU figure not kept"
			fi
		done
	done
fi

# ---- phase 3: profile srv6d and naive at their max rate ----------------------------------
# gw_counters: every drop counter on the way, as "name value" lines: the
# backlog (softnet_stat column 2, per CPU; squeezed: column 3), the queue's
# (queue_dropped: full, user_dropped: socket full), gw's links (srv6d0,
# srv6d0t, gwa, gwb), gw's SNMP counters (nstat) and srv6d's own (srv6ctl
# -j stats, when it runs).
gw_counters() {
	local ctl=${SRV6D_BIN%/*}/srv6ctl
	{
		echo "== softnet"; cat /proc/net/softnet_stat
		echo "== nfq"; in_gw cat /proc/net/netfilter/nfnetlink_queue
		echo "== links"; in_gw ip -s -j link show
		echo "== nstat"; in_gw nstat -asz
		echo "== srv6d"
		[ -S "$OUT/srv6d.sock" ] && [ -x "$ctl" ] &&
			in_gw "$ctl" -s "$OUT/srv6d.sock" -j stats
	} 2>/dev/null | python3 -c '
import json, sys
sec, buf = None, []
def flat(prefix, v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            flat(prefix + "." + str(k) if prefix else str(k), x, out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            key = x.get("ifname", x.get("queue", i)) if isinstance(x, dict) else i
            flat("%s[%s]" % (prefix, key), x, out)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        out.append((prefix, v))
def emit(sec, lines):
    out = []
    if sec == "softnet":
        for cpu, l in enumerate(lines):
            f = l.split()
            if len(f) > 2:
                out += [("softnet.cpu%d.processed" % cpu, int(f[0], 16)),
                        ("softnet.cpu%d.backlog_dropped" % cpu, int(f[1], 16)),
                        ("softnet.cpu%d.squeezed" % cpu, int(f[2], 16))]
    elif sec == "nfq":
        for l in lines:
            f = l.split()
            if len(f) > 6:
                out += [("nfq%s.queue_dropped" % f[0], int(f[5])),
                        ("nfq%s.user_dropped" % f[0], int(f[6]))]
    elif sec == "nstat":
        for l in lines:
            f = l.split()
            if len(f) >= 2 and not l.startswith("#") and f[1].isdigit():
                out.append(("nstat." + f[0], int(f[1])))
    elif sec in ("links", "srv6d") and lines:
        try:
            flat(sec, json.loads("".join(lines)), out)
        except ValueError:
            pass
    for k, v in out:
        print(k, v)
for l in sys.stdin:
    if l.startswith("== "):
        if sec: emit(sec, buf)
        sec, buf = l[3:].strip(), []
    else:
        buf.append(l)
if sec: emit(sec, buf)
'
}

# counters_delta BEFORE AFTER: the counters that moved, "name delta".
counters_delta() {
	awk 'NR == FNR { a[$1] = $2; next }
	     ($1 in a) && $2 != a[$1] { printf "%-60s %d\n", $1, $2 - a[$1] }' \
		"$1" "$2"
}

for cfg in $RUN_CONFIGS; do
	[ "$PROFILE" != 0 ] || break
	case ${cfg%@b} in srv6d|srv6d-nopayload|srv6d-gso|naive|kernel|floor) ;; *) continue ;; esac
	rate=${PROFILE_RATE:-$(med "${MAXR[$cfg]:-0}")}
	rate=${rate%.*}
	[ "$rate" -gt 0 ] 2>/dev/null || continue
	log "end-rate: profiling $cfg at $rate pps for $PROFILE s"
	gateway_up_setup "$cfg" || { gateway_down; continue; }
	in_gen tc qdisc replace dev g0 root tbf rate $((rate * 94 * 8))bit \
		burst $((94 * 128)) limit $((94 * 256))
	timeout -s INT $((PROFILE + 2)) ip netns exec "$NS_GEN" \
		nice -n "$NICE" taskset -c "$GEN_CPU" \
		trafgen --no-sock-mem -q -t 0 -P 1 \
		-o g0 -i "$TRAFGEN_CFG" >/dev/null 2>&1 &
	tg=$!
	sleep 1
	gw_counters > "$OUT/counters-$cfg.0"
	a0=$(sink_count); s0=$(gen_tx)
	perf record -q -e cpu-clock -c "$PERF_PERIOD_NS" -g -C "$GW_CPU" \
		-o "$OUT/perf-$cfg.data" -- sleep "$PROFILE" >/dev/null 2>&1
	a1=$(sink_count); s1=$(gen_tx)
	gw_counters > "$OUT/counters-$cfg.1"
	wait $tg
	{
		echo "# $cfg at $rate pps for $PROFILE s: sent $((s1 - s0)), arrived $((a1 - a0)); counters that moved:"
		counters_delta "$OUT/counters-$cfg.0" "$OUT/counters-$cfg.1"
	} > "$OUT/drops-$cfg.txt"
	cat "$OUT/drops-$cfg.txt" >&2
	prof_pid=${GW_PID:-none}
	gateway_down
	perf script -i "$OUT/perf-$cfg.data" -F comm,pid,tid,ip,sym,dso \
		2>/dev/null | python3 "$BENCH_DIR/perf-buckets.py" \
		--pid "$prof_pid" --period-ns "$PERF_PERIOD_NS" \
		--packets $((a1 - a0)) > "$OUT/profile-$cfg.txt"
	log "end-rate: profile of the gateway core under $cfg: $OUT/profile-$cfg.txt"
	cat "$OUT/profile-$cfg.txt" >&2
done

# ---- report ----------------------------------------------------------------------------
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'
}

kern_ver=$(uname -r)
commit=$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo "?")
printf '\n# srv6d End benchmark, %s, kernel %s, commit %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$kern_ver" "$commit"
printf '# %s runs, %s s probes, loss <= %s%%, CPU at %s pps offered; gen CPU %s, gw CPU %s%s\n' \
	"$REPEAT" "$DURATION" "$LOSS_MAX" "$CPU_RATE" "$GEN_CPU" "$GW_CPU" "$([ $RPS = 1 ] || echo ', no RPS')"
printf '| %-9s | %-26s | %-18s | %-22s |\n' config "max rate, pps (median)" "runs" "gw CPU ns/pkt (median)"
printf '|%s|%s|%s|%s|\n' ----------- ---------------------------- -------------------- ------------------------
for cfg in $RUN_CONFIGS; do
	m=$(med "${MAXR[$cfg]:-}")
	c=$(med "${CPUNS[$cfg]:-}")
	note=
	[ "${LIMIT[$cfg]:-}" = gen ] && note=" (generator max)"
	# srv6d-2q's second worker runs on the generator's core, unsampled.
	[ "${cfg%@b}" = srv6d-2q ] && [ "$c" != - ] && c="($c, CPU $GW_CPU only)"
	runs=$(echo ${MAXR[$cfg]:-} | tr ' ' '/')
	printf '| %-9s | %-26s | %-18s | %-22s |\n' "$cfg" "$m$note" "$runs" "$c"
	MEDR[$cfg]=$m
	MEDC[$cfg]=$c
done
echo
pair() {	# pair A B: "A/B: rate R, CPU/pkt C" when both ran
	[ -n "${MEDR[$1]:-}" ] && [ -n "${MEDR[$2]:-}" ] || return 0
	printf '%s/%s: rate %s, CPU/pkt %s\n' "$1" "$2" \
		"$(ratio "${MEDR[$1]}" "${MEDR[$2]}")" \
		"$(ratio "${MEDC[$1]}" "${MEDC[$2]}")"
}
pair srv6d kernel
pair srv6d naive
pair naive kernel
pair srv6d floor
pair srv6d-nopayload srv6d
pair srv6d-gso srv6d
pair srv6d-gso@b srv6d-gso
pair srv6d-nopayload floor
pair srv6d@b srv6d
pair srv6d-nopayload@b srv6d-nopayload
pair srv6d-nopayload@b srv6d
pair floor naive
pair floor kernel
echo "probes: $PROBES"
