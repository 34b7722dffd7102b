#!/bin/bash
# worker-cost.sh - the CPU time of srv6d's worker thread per forwarded End
# packet, at one offered rate, for several srv6d configurations alternated
# round by round on bench/end-rate.sh's testbed (gen -> gw -> sink).  Run
# as root.
#
#   bench/worker-cost.sh RATE ROUNDS NAME=BINARY:REINJECT[:SETUP] ...
#
# e.g. bench/worker-cost.sh 60000 5 pay=src/srv6d:verdict \
#          free=src/srv6d:no-payload floor=:floor
# BINARY is an srv6d (or a script that execs one with some environment),
# REINJECT its `reinject` setting, SETUP a shell command run in gw once it
# is up (e.g. "ethtool -K srv6d0 gro on").  REINJECT `floor` runs
# bench/floor-nfq.c instead (built here; BINARY ignored) on plain
# forwarded frames, as end-rate.sh's floor: what NFQUEUE alone costs.  With PERF=1 each probe's
# worker thread is also sampled (perf record -g -t, cpu-clock every 100 us)
# into OUT/NAME-ROUND.perf (OUT: $OUT, else /tmp/srv6d-worker-cost).
#
# Why the thread's time (/proc/PID/task/TID/schedstat, time on CPU): on a
# shared machine the core's softirq samples mix in other namespaces' work
# (end-rate.sh's CPU probe counts every softirq as the gateway's), but what
# a result costs on its way back runs inside the worker's own syscalls:
# the payload verdict's reinjection and forwarding inside its sendmsg(),
# the payload-free way's veth, second receive and forwarding inside its
# sendmmsg(), the originals' NF_DROP inside the verdict's sendmsg().  The
# first receive (gen's veth, RPS to CPU 1, the NFQUEUE enqueue) runs where
# the IPI lands and is only partly in it.  Alternating the configurations
# round by round and taking medians is what makes a 10% difference visible
# on a machine whose load moves by more than that.
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
: "${BENCH_TAG:=srw$$}"
# shellcheck source=bench/lib.sh
. "$BENCH_DIR/lib.sh"

[ $# -ge 3 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root"
RATE=$1 ROUNDS=$2
shift 2
OUT=${OUT:-/tmp/srv6d-worker-cost}
mkdir -p "$OUT" || die "cannot create $OUT"
# shellcheck disable=SC2034 # read by lib.sh's testbed_up
BENCH_RPS_CPUS=2	# gw's receive processing on CPU 1, as end-rate.sh
GEN_CPU=0 GW_CPU=1
GW_PID=

cleanup() {
	[ -z "$GW_PID" ] || { kill "$GW_PID" 2>/dev/null; wait "$GW_PID" 2>/dev/null; }
	testbed_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

testbed_down
testbed_up || die "cannot build the testbed"
trafgen_cfg "$OUT/end.trafgen" "$BENCH_SID" 1
trafgen_cfg "$OUT/forward.trafgen" "$BENCH_FINAL" 0
case " $* " in *:floor\ *|*:floor:*)
	# shellcheck disable=SC2046 # pkg-config's flags are words
	gcc -std=gnu11 -O2 -g -Wall -Wextra -o "$OUT/floor-nfq" \
		"$BENCH_DIR/floor-nfq.c" $(pkg-config --cflags --libs libmnl) ||
		die "cannot build floor-nfq.c"
esac
in_gen tc qdisc replace dev g0 root tbf rate $((RATE * 94 * 8))bit \
	burst $((94 * 128)) limit $((94 * 256)) || die "tbf"

# probe NAME ROUND BINARY REINJECT SETUP: one line "NAME ROUND sent
# arrived ns_per_packet".
probe() {
	local name=$1 round=$2 bin=$3 mode=$4 setup=$5 conf tid tg
	local a0 a1 s0 s1 t0 t1 dst=$BENCH_SID frames=$OUT/end.trafgen

	if [ "$mode" = floor ]; then
		dst=$BENCH_FINAL frames=$OUT/forward.trafgen
	fi
	in_gw ip6tables -t raw -A PREROUTING -d "$dst" -j NFQUEUE \
		--queue-num 0 || die "ip6tables"
	if [ "$mode" = floor ]; then
		ip netns exec "$NS_GW" nice -n -10 taskset -c "$GW_CPU" \
			"$OUT/floor-nfq" -q 0 -r $((8 << 20)) -m 8192 \
			2>>"$OUT/floor.log" &
		GW_PID=$!
		sleep 0.7
		tid=$GW_PID
	else
		conf=$OUT/$name.conf
		printf 'queue 0\nreinject %s\nsid %s/128 action End\n' \
			"$mode" "$BENCH_SID" > "$conf"
		ip netns exec "$NS_GW" nice -n -10 taskset -c "$GW_CPU" \
			"$bin" -c "$conf" -s "$OUT/srv6d.sock" \
			2>>"$OUT/srv6d.log" &
		GW_PID=$!
		sleep 0.7
		tid=$(grep -l '^srv6d-q0$' /proc/"$GW_PID"/task/*/comm \
			2>/dev/null | head -1 | cut -d/ -f5)
	fi
	[ -z "$setup" ] || in_gw sh -c "$setup" >>"$OUT/setup.log" 2>&1
	[ -n "$tid" ] || die "$name: no worker thread (see $OUT/srv6d.log)"
	timeout -s INT 3 ip netns exec "$NS_GEN" nice -n -10 \
		taskset -c "$GEN_CPU" trafgen --no-sock-mem -q -t 0 -P 1 \
		-o g0 -i "$frames" >/dev/null 2>&1 &
	tg=$!
	sleep 0.8
	a0=$(sink_count); s0=$(gen_tx)
	t0=$(cut -d' ' -f1 /proc/"$GW_PID"/task/"$tid"/schedstat)
	if [ "${PERF:-0}" = 1 ]; then
		perf record -q -e cpu-clock -c 100000 -g -t "$tid" \
			-o "$OUT/$name-$round.perf" -- sleep 1.5 >/dev/null 2>&1
	else
		sleep 1.5
	fi
	a1=$(sink_count); s1=$(gen_tx)
	t1=$(cut -d' ' -f1 /proc/"$GW_PID"/task/"$tid"/schedstat)
	wait "$tg"
	kill "$GW_PID"; wait "$GW_PID" 2>/dev/null
	GW_PID=
	in_gw ip6tables -t raw -F PREROUTING
	echo "$name $round $((s1 - s0)) $((a1 - a0)) $(( (a1 - a0) > 0 ? (t1 - t0) / (a1 - a0) : 0 ))"
}

for round in $(seq 1 "$ROUNDS"); do
	for spec in "$@"; do
		name=${spec%%=*} rest=${spec#*=}
		bin=${rest%%:*} rest=${rest#*:}
		mode=${rest%%:*} setup=
		[ "$rest" = "$mode" ] || setup=${rest#*:}
		probe "$name" "$round" "$(readlink -f "${bin:-/dev/null}")" \
			"$mode" "$setup"
	done
done | tee "$OUT/rounds.txt" | awk '
	{ printf "%s round %d: sent %d, arrived %d, worker %d ns/pkt\n", $1, $2, $3, $4, $5
	  v[$1] = v[$1] " " $5; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END {
		for (i = 1; i <= n; i++) {
			k = split(v[order[i]], a, " ")
			for (x = 1; x <= k; x++) for (y = x + 1; y <= k; y++)
				if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
			med = k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
			printf "%s: median %d ns/pkt, range %d-%d (%d rounds)\n", order[i], med, a[1], a[k], k
		}
	}'
