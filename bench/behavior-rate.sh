#!/bin/bash
# behavior-rate.sh - the whole per-packet cost of each of issue 22's
# behaviors against End's, on the real NFQUEUE path, in one run: srv6d's
# CPU time per forwarded packet (receive, parse, the behavior, verdict or
# reinjection), End the reference, the kernel's seg6local End beside it.
# Run as root.  See BENCHMARKS.md (issue 22) for what it measures.
#
#   gen --veth--> gw --veth--> sink        (bench/lib.sh's testbed)
#
# gen sends each behavior's packet (bench/behavior-pkt.py: 8 frames, the
# packets of tests/ns/mobile.sh, oam.sh and bench/behavior-cost.c) with
# trafgen, shaped by tbf to one common offered rate; gw runs srv6d with
# that one SID or policy on NFQUEUE 0 (its defaults, `steering no`: the
# bench writes the one raw PREROUTING rule); sink counts only the frames
# that carry the behavior's result (an nft match per behavior), and drops
# everything.
#
# Per probe (DURATION s): srv6d's CPU time, the sum over its threads of
# /proc/PID/task/TID/schedstat's run time (ns, the scheduler's own clock)
# and /proc/PID/stat's utime+stime (ticks, a cross-check), over the
# packets that arrived at the sink; and the gateway core's busy time
# (/proc/stat's user, nice, system, irq and softirq ticks of CPU 1: srv6d
# and the kernel's receive, forwarding, NFQUEUE and reinjection work, and
# the only figure the kernel's own End has; other jobs on that core count
# too; tick-sampled, so biased upward while the core idles between
# packets: fair only near saturation, at the --search max rates).  The
# configs alternate within each round; the report gives medians over the rounds and "x End" as the
# median of each round's ratio to that round's End.
#
# Cores: trafgen on CPU 0, RPS steers gw's receive to CPU 1, srv6d pinned
# to CPU 1.
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"

ALL_CONFIGS=end,csid,gtp6e,gtp6d,gtp6di,gtp4e,gtp4d,oam,oam-every,oam-unix,map,kernel
usage() {
	cat <<-EOF
	usage: $0 [options]
	  --srv6d PATH    srv6d binary (default \$SRV6D, else $BENCH_DIR/../src/srv6d)
	  --configs LIST  comma-separated, from (default all):
	                  end        End (the reference)
	                  csid       End flavors replace-csid (RFC 9800 4.2)
	                  gtp6e      End.M.GTP6.E
	                  gtp6d      End.M.GTP6.D
	                  gtp6di     End.M.GTP6.Di (drop-in: S and A kept)
	                  gtp4e      End.M.GTP4.E (IPv4 out: reinjection device)
	                  gtp4d      H.M.GTP4.D, a \`route ... encap gtp4\`
	                             (IPv4 in, IPv6 out: reinjection device)
	                  oam        End, O-flag set, oam-copy udp to the sink,
	                             oam-rate/burst the defaults (1000/s, 100)
	                  oam-every  the same, oam-rate 1000000: every packet copied
	                  oam-unix   every packet copied, oam-copy unix to a
	                             local OAM process (a reader on CPU 0 that
	                             counts them): RFC 9259's own case
	                  map        End.MAP
	                  kernel     the kernel's seg6local End (End's packet)
	  --rate PPS      the common offered rate (30000)
	  --rounds N      rounds over all configs, medians reported (3)
	  --duration S    seconds per probe (5)
	  --search        also search each config's highest rate at <= --loss
	                  loss (one round, after the CPU rounds)
	  --perf          also sample the gateway core with perf (end-rate.sh's
	                  gw_cpu_ns; in probes.csv only: at this rate it
	                  misses most of the kernel End's softirq work)
	  --steps N       bisection steps of the search (5)
	  --loss PCT      loss allowed (0.5)
	  --nice N        niceness of trafgen and srv6d (-10)
	  --out DIR       where probes.csv and logs go (/tmp/srv6d-behavior-rate.<date>)
	EOF
	exit 2
}

SRV6D_BIN=${SRV6D:-$BENCH_DIR/../src/srv6d}
CONFIGS=$ALL_CONFIGS
RATE=30000
ROUNDS=3
DURATION=5
SEARCH=0
PERF=0
STEPS=5
LOSS_MAX=0.5
NICE=-10
OUT=
GEN_CPU=0
GW_CPU=1
PYTHON=${PYTHON:-/usr/bin/python3}
while [ $# -gt 0 ]; do
	case $1 in
	--srv6d) SRV6D_BIN=$2; shift ;;
	--configs) CONFIGS=$2; shift ;;
	--rate) RATE=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--duration) DURATION=$2; shift ;;
	--search) SEARCH=1 ;;
	--perf) PERF=1 ;;
	--steps) STEPS=$2; shift ;;
	--loss) LOSS_MAX=$2; shift ;;
	--nice) NICE=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h|--help) usage ;;
	*) log "unknown option: $1"; usage ;;
	esac
	shift
done

[ "$(id -u)" = 0 ] || die "must run as root (network namespaces, NFQUEUE)"
for tool in trafgen ip ip6tables iptables nft tc taskset; do
	command -v $tool >/dev/null || die "$tool is missing"
done
"$PYTHON" -c 'import scapy' 2>/dev/null || die "$PYTHON has no scapy"
[ -x "$SRV6D_BIN" ] || die "no srv6d binary at $SRV6D_BIN"
SRV6D_BIN=$(readlink -f "$SRV6D_BIN")
for c in ${CONFIGS//,/ }; do
	case ",$ALL_CONFIGS," in *",$c,"*) ;; *) die "unknown config: $c" ;; esac
done

OUT=${OUT:-/tmp/srv6d-behavior-rate.$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || die "cannot create $OUT"
PROBES=$OUT/probes.csv
echo "config,phase,round,setting_pps,offered_pps,delivered_pps,loss_pct,sent,arrived,other,srv6d_run_ns,srv6d_ticks_ns,gw_core_ns,srv6d_ns_per_pkt,ticks_ns_per_pkt,gw_core_ns_per_pkt,gw_busy_ns,gw_busy_ns_per_pkt,softirq_gw_cpu_ns,softirq_gen_cpu_ns" > "$PROBES"
PERF_PERIOD_NS=250000
CLK_TCK=$(getconf CLK_TCK)

# one benchmark owning CPU 1 at a time (end-rate.sh takes the same lock)
exec 9>/run/lock/srv6d-end-rate.lock
flock -n 9 || die "another end-rate.sh or behavior-rate.sh is running"

GW_PID=
OAM_PID=
cleanup() {
	stop_gateway
	[ -z "$OAM_PID" ] || kill -TERM "$OAM_PID" 2>/dev/null
	testbed_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_gateway() {
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

# ---- testbed: lib.sh's, with IPv4 and the behaviors' routes -----------------
BENCH_RPS_CPUS=$(printf '%x' $((1 << GW_CPU)))
testbed_down
testbed_up || die "cannot build the testbed"
for s in net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.default.rp_filter=0 net.ipv6.conf.all.seg6_enabled=1 \
	net.ipv6.conf.default.seg6_enabled=1 net.ipv6.conf.gwa.seg6_enabled=1; do
	in_ns_sysctl "$NS_GW" "$s"
done
ip -n "$NS_GW" addr add 192.0.2.2/24 dev gwa
ip -n "$NS_GW" addr add 198.51.100.1/24 dev gwb
ip -n "$NS_SINK" addr add 198.51.100.2/24 dev s0
ip -n "$NS_GW" neigh replace 198.51.100.2 dev gwb lladdr "$BENCH_MAC_S0" nud permanent
for p in fc00:9::/32 fc00:3::/64 fc00:a::/32; do
	ip -n "$NS_GW" -6 route add "$p" via "$BENCH_SINK_ADDR" dev gwb ||
		die "route $p"
done
ip -n "$NS_GW" route add 203.0.113.0/24 via 198.51.100.2 dev gwb || die "route 203.0.113.0/24"

# The sink: one chain, its first rule the config's result (counter
# arrived), everything else counted as other (the O-flag copies to
# [fc00:2::2]:9 among them) and dropped.
sink_rule() {
	in_sink nft flush chain netdev srbench in &&
	in_sink nft add rule netdev srbench in "$@" counter name arrived drop &&
	in_sink nft add rule netdev srbench in counter name malformed drop
}

# ---- the configs ------------------------------------------------------------
# cfg_def CONFIG: sets C_CONF (srv6d.conf lines), C_Q6 / C_Q4 (the
# destination queued), C_SINK (the nft match of a correct result).
cfg_def() {
	C_Q6='' C_Q4='' C_CONF=''
	C_SINK="ip6 daddr $BENCH_FINAL rt seg-left 0 ip6 hoplimit 63"
	case $1 in
	end|kernel)
		C_Q6=fc00:100::1
		C_CONF="sid fc00:100::1/128 action End" ;;
	oam|oam-every)
		C_Q6=fc00:100::1
		C_CONF="oam-copy udp [fc00:2::2]:9
sid fc00:100::1/128 action End"
		[ "$1" = oam ] || C_CONF="$C_CONF
oam-rate 1000000
oam-burst 1000000" ;;
	oam-unix)
		C_Q6=fc00:100::1
		C_CONF="oam-copy unix $OUT/oam.sock
oam-rate 1000000
oam-burst 1000000
sid fc00:100::1/128 action End" ;;
	csid)
		C_Q6=fc00:a::/32
		C_CONF="sid fc00:a:0:0:101::/80 action End flavors replace-csid lblen 48 nflen 32"
		C_SINK="ip6 daddr fc00:a::102:0:0:2 rt seg-left 1 ip6 hoplimit 63" ;;
	map)
		C_Q6=fc00:100:1::/64
		C_CONF="sid fc00:100:1::/64 action End.MAP nh6 fc00:9::d6"
		C_SINK="ip6 daddr fc00:9::d6 rt seg-left 1 ip6 hoplimit 63" ;;
	gtp6d)
		C_Q6=fc00:100:d::/64
		C_CONF="encap-source fc00:1::2
sid fc00:100:d::/64 action End.M.GTP6.D mob-prefix fc00:9:e::/64 srh segs fc00:9::c1"
		C_SINK="ip6 daddr fc00:9::c1 rt seg-left 1" ;;
	gtp6di)
		C_Q6=fc00:100:1d::/64
		C_CONF="encap-source fc00:1::2
sid fc00:100:1d::/64 action End.M.GTP6.Di mob-prefix fc00:9:e::/64 srh segs fc00:9::c1"
		C_SINK="ip6 daddr fc00:9::c1 rt seg-left 2" ;;
	gtp6e)
		C_Q6=fc00:100:e::/64
		C_CONF="sid fc00:100:e::/64 action End.M.GTP6.E"
		C_SINK="ip6 daddr fc00:3::2 udp dport 2152 ip6 hoplimit 63" ;;
	gtp4e)
		C_Q6=fc00:104::/32
		C_CONF="sid fc00:104::/32 action End.M.GTP4.E v4src-position 64"
		C_SINK="ip daddr 203.0.113.2 udp dport 2152" ;;
	gtp4d)
		C_Q4=10.9.5.0/24
		C_CONF="route 10.9.5.0/24 encap gtp4 mob-prefix fc00:9:4d::/48 src-prefix fc00:9:5::/64 segs fc00:9::c1"
		C_SINK="ip6 daddr fc00:9::c1 rt seg-left 1" ;;
	esac
}

declare -A FLEN
for c in ${CONFIGS//,/ }; do
	FLEN[$c]=$("$PYTHON" "$BENCH_DIR/behavior-pkt.py" "$c" "$OUT/$c.trafgen") ||
		die "behavior-pkt.py $c"
done

wait_queue_bound() {
	local i
	for i in $(seq 1 50); do
		in_gw awk '$1 == 0 { found = 1 } END { exit !found }' \
			/proc/net/netfilter/nfnetlink_queue 2>/dev/null && return 0
		kill -0 "$GW_PID" 2>/dev/null || break
		sleep 0.1
	done
	log "behavior-rate: queue 0 never bound (see $OUT/srv6d.log)"
	return 1
}

gateway_up() {
	cfg_def "$1"
	sink_rule $C_SINK || return 1
	if [ "$1" = kernel ]; then
		in_gw ip -6 route add fc00:100::1/128 encap seg6local action End \
			dev gwb || return 1
		return 0
	fi
	local conf=$OUT/srv6d-$1.conf
	[ "$1" != oam-unix ] || oam_reader_up || return 1
	printf 'queue 0\nsteering no\n%s\n' "$C_CONF" > "$conf"
	"$SRV6D_BIN" -t -c "$conf" >/dev/null 2>>"$OUT/srv6d.log" ||
		{ log "behavior-rate: srv6d rejects $conf"; return 1; }
	if [ -n "$C_Q6" ]; then
		in_gw ip6tables -t raw -A PREROUTING ! -i srv6d+ -d "$C_Q6" \
			-j NFQUEUE --queue-num 0 || return 1
	fi
	if [ -n "$C_Q4" ]; then
		in_gw iptables -t raw -A PREROUTING ! -i srv6d+ -d "$C_Q4" \
			-j NFQUEUE --queue-num 0 || return 1
	fi
	echo "== $1" >>"$OUT/srv6d.log"
	ip netns exec "$NS_GW" nice -n "$NICE" taskset -c "$GW_CPU" \
		"$SRV6D_BIN" -c "$conf" -s "$OUT/srv6d.sock" 2>>"$OUT/srv6d.log" &
	GW_PID=$!
	wait_queue_bound || return 1
	sleep 0.5	# its devices and routes
}

# The local OAM process of oam-unix: a datagram socket at $OUT/oam.sock
# on the generator's core, counting what it reads into $OUT/oam.count
# (every second, and at its end).
oam_reader_up() {
	rm -f "$OUT/oam.sock" "$OUT/oam.count"
	taskset -c "$GEN_CPU" "$PYTHON" -c '
import os, signal, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind(sys.argv[1])
n, last = 0, time.monotonic()
def out(*_):
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % n)
    if _:
        sys.exit(0)
signal.signal(signal.SIGTERM, out)
s.settimeout(0.5)
while True:
    try:
        s.recv(4096)
        n += 1
    except socket.timeout:
        pass
    if time.monotonic() - last > 1:
        out()
        last = time.monotonic()
' "$OUT/oam.sock" "$OUT/oam.count" &
	OAM_PID=$!
	for _ in $(seq 1 50); do
		[ -S "$OUT/oam.sock" ] && return 0
		sleep 0.1
	done
	log "behavior-rate: the OAM reader never bound $OUT/oam.sock"
	return 1
}

oam_reader_down() {
	[ -n "$OAM_PID" ] || return 0
	kill -TERM "$OAM_PID" 2>/dev/null
	wait "$OAM_PID" 2>/dev/null
	OAM_PID=
	log "behavior-rate: the OAM reader counted $(cat "$OUT/oam.count" 2>/dev/null || echo 0) copies"
}

gateway_down() {
	stop_gateway
	oam_reader_down
	in_gw ip6tables -t raw -F PREROUTING 2>/dev/null
	in_gw iptables -t raw -F PREROUTING 2>/dev/null
	in_gw ip -6 route del fc00:100::1/128 2>/dev/null
	return 0
}

# srv6d_cpu: "run_ns ticks" of the daemon so far (0 0 without one).
srv6d_cpu() {
	[ -n "$GW_PID" ] || { echo "0 0"; return; }
	local run=0 t a
	for t in /proc/"$GW_PID"/task/*/schedstat; do
		read -r a _ < "$t" 2>/dev/null && run=$((run + a))
	done
	# utime, stime: fields 14 and 15 (after the ")" of comm: 12 and 13)
	a=$(sed 's/.*) //' /proc/"$GW_PID"/stat | awk '{ print $12 + $13 }')
	echo "$run $a"
}

# core_ticks: "gw_busy gw_softirq gen_softirq" in ticks (/proc/stat):
# the gateway core's busy time (user, nice, system, irq, softirq: srv6d
# and every softirq of the path, the kernel's End included) and where the
# kernel's packet work ran.
core_ticks() {
	awk -v g="cpu$GW_CPU" -v t="cpu$GEN_CPU" '
		$1 == g { a = $2 + $3 + $4 + $7 + $8; q = $8 } $1 == t { b = $8 }
		END { print a, q, b }' /proc/stat
}

# gw_cpu_ns PERF_DATA PID: end-rate.sh's: nanoseconds of the gateway core
# in the daemon or in a softirq (timer-skid samples in handle_softirqs
# itself left out).
gw_cpu_ns() {
	perf script -i "$1" -F pid,ip,sym 2>/dev/null | awk -v pid="${2:-none}" \
		-v period="$PERF_PERIOD_NS" '
		function flush() {
			if (!insample) return
			if (leaf != "handle_softirqs" && gw) g++
			insample = 0
		}
		/^[ \t]*$/ { flush(); next }
		!insample { insample = 1; gw = ($1 == pid); leaf = ""; next }
		leaf == "" { leaf = $2 }
		/handle_softirqs|__do_softirq|net_rx_action|do_softirq/ { gw = 1 }
		END { flush(); printf "%.0f\n", g * period }'
}

drain_gateway() {
	local i q
	for i in $(seq 1 30); do
		q=$(in_gw awk '{ t += $3 } END { print t+0 }' \
			/proc/net/netfilter/nfnetlink_queue 2>/dev/null)
		[ "${q:-0}" = 0 ] && return 0
		sleep 0.1
	done
}

# probe CONFIG PHASE ROUND RATE (0: unshaped): sets P_OFFERED, P_DELIVERED,
# P_LOSS, P_CPU (srv6d ns/pkt), P_TICKS, P_CORE; a line in probes.csv.
probe() {
	local cfg=$1 phase=$2 round=$3 rate=$4 len=${FLEN[$1]} qd=() out
	local s0 s1 a0 a1 m0 m1 c0 c1 q0 q1 secs perfpid='' data='' core=0
	if [ "$rate" = 0 ]; then
		in_gen tc qdisc del dev g0 root 2>/dev/null
	else
		in_gen tc qdisc replace dev g0 root tbf rate $((rate * len * 8))bit \
			burst $((len * 128)) limit $((len * 256)) || die "tbf"
		qd=(-q)
	fi
	drain_gateway
	if [ "$phase" = cpu ] && [ "$PERF" = 1 ]; then
		data=$OUT/cpu-$cfg-$round.perf
		perf record -q -e cpu-clock -c "$PERF_PERIOD_NS" -g -C "$GW_CPU" \
			-o "$data" -- sleep $((DURATION + 1)) >/dev/null 2>&1 &
		perfpid=$!
		sleep 0.3
	fi
	s0=$(gen_tx); a0=$(sink_count); m0=$(sink_count malformed)
	c0=$(srv6d_cpu); q0=$(core_ticks)
	out=$(timeout -s INT "$DURATION" ip netns exec "$NS_GEN" \
		nice -n "$NICE" taskset -c "$GEN_CPU" trafgen --no-sock-mem \
		"${qd[@]}" -t 0 -P 1 -o g0 -i "$OUT/$cfg.trafgen" 2>&1)
	sleep 0.3
	c1=$(srv6d_cpu); q1=$(core_ticks)
	s1=$(gen_tx); a1=$(sink_count); m1=$(sink_count malformed)
	if [ -n "$perfpid" ]; then
		wait "$perfpid"
		core=$(gw_cpu_ns "$data" "${GW_PID:-none}")
		rm -f "$data"
	fi
	secs=$(echo "$out" | awk '/usec on CPU/ { printf "%.6f", $1 + $3 / 1e6 }')
	[ -n "$secs" ] && [ "$secs" != 0.000000 ] || secs=$DURATION
	local sent=$((s1 - s0)) arrived=$((a1 - a0)) other=$((m1 - m0))
	set -- $c0; local r0=$1 t0=$2
	set -- $c1; local run=$(($1 - r0)) ticks=$((($2 - t0) * 1000000000 / CLK_TCK))
	read -r P_OFFERED P_DELIVERED P_LOSS P_CPU P_TICKS P_CORE <<< "$(awk \
		-v s="$sent" -v a="$arrived" -v t="$secs" -v r="$run" \
		-v k="$ticks" -v g="$core" -v srv="$GW_PID" '
		BEGIN {
			loss = s > 0 ? 100 * (s - a) / s : 100
			if (loss < 0) loss = 0
			printf "%d %d %.3f %s %s %s\n", s / t, a / t, loss,
				(a > 0 && srv != "") ? sprintf("%.0f", r / a) : "-",
				(a > 0 && srv != "") ? sprintf("%.0f", k / a) : "-",
				(a > 0 && g > 0) ? sprintf("%.0f", g / a) : "-"
		}')"
	set -- $q0; local b0=$1 qg0=$2 qt0=$3
	set -- $q1
	local busy=$((($1 - b0) * 1000000000 / CLK_TCK)) sirq_gw=$((($2 - qg0) * 1000000000 / CLK_TCK)) sirq_gen=$((($3 - qt0) * 1000000000 / CLK_TCK))
	P_BUSY=$(awk -v b="$busy" -v a="$arrived" 'BEGIN { if (a > 0) printf "%.0f", b / a; else print "-" }')
	echo "$cfg,$phase,$round,$rate,$P_OFFERED,$P_DELIVERED,$P_LOSS,$sent,$arrived,$other,$run,$ticks,$core,$P_CPU,$P_TICKS,$P_CORE,$busy,$P_BUSY,$sirq_gw,$sirq_gen" >> "$PROBES"
	log "  $cfg: offered $P_OFFERED pps, delivered $P_DELIVERED, loss $P_LOSS%, other $other; srv6d $P_CPU ns/pkt (ticks $P_TICKS), gw core $P_CORE ns/pkt (perf), $P_BUSY ns/pkt (/proc/stat); softirq ns gw CPU $sirq_gw, gen CPU $sirq_gen"
}

us() { awk -v n="$1" 'BEGIN { if (n == "-") print "-"; else printf "%.2f", n / 1000 }'; }

loss_ok() { awk -v l="$P_LOSS" -v m="$LOSS_MAX" 'BEGIN { exit !(l <= m) }'; }

# search CONFIG: S_MAX, the highest delivered rate with loss <= LOSS_MAX
# (end-rate.sh's bisection on the offered rates actually achieved).
search() {
	local cfg=$1 lo=0 hi target setting eff=100 i
	S_MAX=0
	probe "$cfg" search 1 0
	S_BUSY=-
	if loss_ok; then S_MAX="$P_DELIVERED(gen)"; S_BUSY=$P_BUSY; return; fi
	hi=$P_OFFERED
	for i in $(seq 1 "$STEPS"); do
		target=$(((lo + hi) / 2))
		setting=$((target * 100 / eff))
		probe "$cfg" search 1 "$setting"
		[ "$setting" -gt 0 ] && eff=$((P_OFFERED * 100 / setting))
		[ "$eff" -ge 20 ] || eff=20
		[ "$eff" -le 100 ] || eff=100
		if loss_ok; then
			[ "$P_OFFERED" -gt "$lo" ] && lo=$P_OFFERED
			if [ "$P_DELIVERED" -gt "$S_MAX" ]; then
				S_MAX=$P_DELIVERED
				S_BUSY=$P_BUSY
			fi
			[ "$lo" -lt "$hi" ] || hi=$((lo * 11 / 10))
		else
			[ "$P_OFFERED" -lt "$hi" ] && hi=$P_OFFERED
			[ "$hi" -gt "$lo" ] || lo=$((hi * 9 / 10))
		fi
	done
}

# ---- the rounds ----------------------------------------------------------------
RUN=${CONFIGS//,/ }
log "behavior-rate: $RUN; $ROUNDS rounds at $RATE pps, ${DURATION}s probes; output in $OUT"
declare -A CPU TICKS CORE PKTS RCPU RCORE MAXR
for round in $(seq 1 "$ROUNDS"); do
	declare -A THIS=() THISC=()
	for cfg in $RUN; do
		log "behavior-rate: [$round/$ROUNDS] $cfg at $RATE pps"
		if ! gateway_up "$cfg"; then
			log "behavior-rate: $cfg: cannot set up the gateway; skipped"
			gateway_down
			continue
		fi
		probe "$cfg" cpu "$round" "$RATE"
		gateway_down
		if ! loss_ok; then
			log "behavior-rate: $cfg lost $P_LOSS% at $RATE pps: not kept"
			continue
		fi
		CPU[$cfg]="${CPU[$cfg]:-} $P_CPU"
		TICKS[$cfg]="${TICKS[$cfg]:-} $P_TICKS"
		CORE[$cfg]="${CORE[$cfg]:-} $P_BUSY"
		PKTS[$cfg]="${PKTS[$cfg]:-} $((P_DELIVERED * DURATION))"
		THIS[$cfg]=$P_CPU
		THISC[$cfg]=$P_BUSY
	done
	# this round's ratios to this round's End
	for cfg in $RUN; do
		[ -n "${THIS[$cfg]:-}" ] && [ -n "${THIS[end]:-}" ] || continue
		RCPU[$cfg]="${RCPU[$cfg]:-} $(awk -v a="${THIS[$cfg]}" -v b="${THIS[end]}" \
			'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }')"
		RCORE[$cfg]="${RCORE[$cfg]:-} $(awk -v a="${THISC[$cfg]}" -v b="${THISC[end]}" \
			'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }')"
	done
done

if [ "$SEARCH" = 1 ]; then
	for cfg in $RUN; do
		log "behavior-rate: $cfg: rate search"
		gateway_up "$cfg" || { gateway_down; continue; }
		search "$cfg"
		gateway_down
		MAXR[$cfg]="$S_MAX, $(us "$S_BUSY")"
	done
fi

# ---- report ------------------------------------------------------------------------
med() { printf '%s\n' $1 | grep -v '^-$' | median; }
label() {
	case $1 in
	end) echo "End" ;;
	csid) echo "End replace-csid" ;;
	gtp6e) echo "End.M.GTP6.E" ;;
	gtp6d) echo "End.M.GTP6.D" ;;
	gtp6di) echo "End.M.GTP6.Di" ;;
	gtp4e) echo "End.M.GTP4.E" ;;
	gtp4d) echo "H.M.GTP4.D (route)" ;;
	oam) echo "End, O-flag, oam-copy (rate 1000/s)" ;;
	oam-every) echo "End, O-flag, every packet copied" ;;
	oam-unix) echo "End, O-flag, every one copied (unix)" ;;
	map) echo "End.MAP" ;;
	kernel) echo "kernel seg6local End" ;;
	esac
}
commit=$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo "?")
printf '\n# srv6d behavior-rate, %s, kernel %s, commit %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$(uname -r)" "$commit"
printf '# %s rounds, %s s probes at %s pps offered, loss <= %s%% kept; trafgen CPU %s, gw CPU %s\n' \
	"$ROUNDS" "$DURATION" "$RATE" "$LOSS_MAX" "$GEN_CPU" "$GW_CPU"
printf '| %-36s | %5s | %-9s | %-14s | %-7s | %-12s | %-7s |%s\n' behavior frame "packets" "srv6d µs/pkt" "x End" "gw core µs/pkt" "x End" \
	"$([ "$SEARCH" = 1 ] && echo " max pps <= ${LOSS_MAX}% loss, gw core µs/pkt there |")"
printf '|%s|%s|%s|%s|%s|%s|%s|%s\n' -------------------------------------- ------- ----------- ---------------- --------- -------------- --------- \
	"$([ "$SEARCH" = 1 ] && echo "------------------|")"
for cfg in $RUN; do
	c=$(med "${CPU[$cfg]:-}")
	g=$(med "${CORE[$cfg]:-}")
	rc=$(med "${RCPU[$cfg]:-}")
	rg=$(med "${RCORE[$cfg]:-}")
	p=$(med "${PKTS[$cfg]:-}")
	printf '| %-36s | %5s | %-9s | %-14s | %-7s | %-14s | %-7s |%s\n' "$(label "$cfg")" "${FLEN[$cfg]}" \
		"$p" "$(us "$c")" "$rc" "$(us "$g")" "$rg" \
		"$([ "$SEARCH" = 1 ] && printf ' %-16s |' "${MAXR[$cfg]:--}")"
done
echo
echo "srv6d µs/pkt: the daemon's threads' run time (schedstat) / packets at the sink."
echo "gw core µs/pkt: CPU $GW_CPU's busy ticks (/proc/stat) / packets: tick-sampled, biased upward"
echo "where the core idles between packets (tickless idle), fair near saturation (the max-rate column)."
echo "Per round (ns):"
for cfg in $RUN; do
	printf '  %-10s srv6d %-24s ticks %-24s gw core %s\n' "$cfg" "$(echo ${CPU[$cfg]:-} | tr ' ' /)" \
		"$(echo ${TICKS[$cfg]:-} | tr ' ' /)" "$(echo ${CORE[$cfg]:-} | tr ' ' /)"
done
echo "probes: $PROBES"
