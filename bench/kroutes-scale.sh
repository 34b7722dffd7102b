#!/bin/bash
# kroutes-scale.sh - `kernel-routes yes` at the scale of a full table (root):
# for each size N, a fresh namespace gets N prefixes of the full table
# (tests/prefixes.sh: $SRV6D_PREFIXES, else bgp-prefixes.txt.gz of
# ../shared/data beside the clone) as the kernel's seg6 encap routes
# (bench/kroute-load: half in table 101, half in 102, as two tenants'),
# then srv6d starts with kernel-routes yes and applies them.  Prints, per N:
#   - the kernel's load: seconds, the ENOMEM retries it needed (its seg6
#     routes take per-CPU memory with GFP_ATOMIC: kroute-load.c), and the
#     kernel's Slab + Percpu growth (/proc/meminfo: machine-wide, so other
#     jobs' allocations are in it too);
#   - srv6d: seconds from its start to the routes in force (the route
#     mirror's dump: each seg6 route's policy is built with its FIB route),
#     resident memory then (VmRSS) and at its peak (VmHWM), per prefix;
#   - KROUTES_ROUNDS (default 5) rounds of one route added, its segment
#     list replaced, and deleted while srv6d runs: for each, the ms from
#     the `ip route` command to `srv6ctl route get` showing srv6d's route
#     with that policy (polled: the figure includes the ip command and at
#     least one srv6ctl call, whose cost is printed too); min / median /
#     max, and the peak memory after; and what one `srv6ctl policy show
#     PREFIX` costs (a scan of every kernel policy);
#   - the same N loaded into a fresh namespace while srv6d runs there, then
#     one sentinel route: how long until the sentinel (so everything before
#     it) is in force.
# Usage: bench/kroutes-scale.sh BUILDDIR [N...]   (default N: 100000 250000)
#   N "all" is the whole list (1,062,046); KROUTES_KERNEL_ONLY=1 loads the
#   kernel only (no srv6d).  srv6d's peak is about 1.2 KB per prefix; an N
#   whose estimate passes KROUTES_MAX_MIB (default 8192) is skipped.
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: $0 BUILDDIR [N...]}
shift
SIZES=${*:-100000 250000}
# shellcheck source=tests/prefixes.sh
. "$top_srcdir/tests/prefixes.sh"
prefixes_find "$top_srcdir" ||
	{ echo "kroutes-scale.sh: no bgp-prefixes.txt.gz: looked for $PREFIXES_TRIED"; exit 77; }
DATA=$PREFIXES
MAX_MIB=${KROUTES_MAX_MIB:-8192}
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 77; }
NS=srv6d-kscale-$$
TMP=$(mktemp -d)
SRV6D_PID=
cleanup() {
	[ -n "$SRV6D_PID" ] && kill "$SRV6D_PID" 2>/dev/null && wait "$SRV6D_PID"
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
kmem_kib() { awk '/^(Slab|Percpu):/ { s += $2 } END { print s }' /proc/meminfo; }
status_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# wait_log PATTERN SECONDS: until srv6d's log has PATTERN; 1 if it died
# or the time ran out.
wait_log() {
	local end
	end=$(awk -v t="$(now)" -v s="$2" 'BEGIN { printf "%.3f", t + s }')
	while ! grep -q "$1" "$TMP/srv6d.log"; do
		kill -0 "$SRV6D_PID" 2>/dev/null || return 1
		awk -v t="$(now)" -v e="$end" 'BEGIN { exit !(t > e) }' && return 1
		sleep 0.02
	done
}

# fresh_ns: NS anew, with lo and the veth d0 the routes go out of.
fresh_ns() {
	ip netns del "$NS" 2>/dev/null
	ip netns add "$NS" || exit 1
	ip -n "$NS" link set lo up
	ip -n "$NS" link add d0 type veth peer name d1
	ip -n "$NS" link set d0 up && ip -n "$NS" link set d1 up
}

printf 'queue 0\nencap-source fc00:12::1\nkernel-routes yes\n' >"$TMP/srv6d.conf"
ROUNDS=${KROUTES_ROUNDS:-5}
P=fd00:ffff:1::/48

srv6d_start() {
	ip netns exec "$NS" "$B/src/srv6d" -c "$TMP/srv6d.conf" \
		-s "$TMP/srv6d.sock" -d >"$TMP/srv6d.log" 2>&1 &
	SRV6D_PID=$!
}

srv6d_stop() {
	kill "$SRV6D_PID"; wait "$SRV6D_PID"; SRV6D_PID=
}

# shows ADDR TABLE WANT: true when srv6d's route for ADDR in TABLE (the
# mirror's, `srv6ctl route get`: what the packet path looks up) has a
# policy with segment WANT ("none": the route of prefix $P is gone).
shows() {
	local out
	out=$("$B/src/srv6ctl" -s "$TMP/srv6d.sock" -j route get "$1" table "$2" 2>/dev/null)
	if [ "$3" = none ]; then
		! grep -q "\"$P\"" <<<"$out"
	else
		grep -q "\"$3\"" <<<"$out"
	fi
}

# ms_until T0 ADDR TABLE WANT: ms from T0 (ns) until `shows ADDR TABLE
# WANT` ("never" after 5000 probes).
ms_until() {
	local t
	for _ in $(seq 1 5000); do
		if shows "$2" "$3" "$4"; then
			t=$(date +%s%N)
			echo $(( (t - $1) / 1000 ))e-3 | awk '{ printf "%.1f\n", $1 }'
			return
		fi
	done
	echo never
}

# stats: "min/median/max" of the numbers on stdin.
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		printf "%s/%s/%s\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
}

# srv6d with no kernel route: the resident memory every N's is measured
# against
fresh_ns
srv6d_start
wait_log "kernel routes: [0-9]* seg6local routes" 60
rss0=$(status_kib "$SRV6D_PID" VmRSS)
echo "N=0: srv6d: VmRSS $((rss0 / 1024)) MiB"
srv6d_stop

for n in $SIZES; do
	[ "$n" = all ] && n=0
	label=${n/#0/all}
	est=$(( (n ? n : 1062046) * 12 / 10240 ))
	if [ -z "${KROUTES_KERNEL_ONLY:-}" ] && [ "$est" -gt "$MAX_MIB" ]; then
		echo "N=$label: srv6d's estimated peak $est MiB > $MAX_MIB MiB: skipped (KROUTES_MAX_MIB)"
		continue
	fi
	fresh_ns
	k0=$(kmem_kib)
	load=$(ip netns exec "$NS" "$B/bench/kroute-load" "$DATA" d0 "$n" 1)
	k1=$(kmem_kib)
	routes=$(echo "$load" | awk '{ print $2 }')
	echo "N=$label: kernel: $load; Slab+Percpu +$(( (k1 - k0) / 1024 )) MiB ($(( (k1 - k0) * 1024 / (routes ? routes : 1) )) B/route)"
	[ -n "${KROUTES_KERNEL_ONLY:-}" ] && continue

	t0=$(now)
	srv6d_start
	if ! wait_log "kernel routes: [0-9]* seg6local routes" 600; then
		echo "N=$label: srv6d did not apply the routes:"; tail -5 "$TMP/srv6d.log"
		srv6d_stop
		continue
	fi
	t1=$(now)
	rss=$(status_kib "$SRV6D_PID" VmRSS) hwm=$(status_kib "$SRV6D_PID" VmHWM)
	echo "N=$label: srv6d: in force $(secs "$t0" "$t1") s after start: $(grep -o "[0-9]* seg6 routes' policies, [0-9]* seg6 routes unsupported" "$TMP/srv6d.log")"
	echo "N=$label: srv6d: VmRSS $((rss / 1024)) MiB ($(( (rss - rss0) * 1024 / routes )) B/prefix over N=0), VmHWM $((hwm / 1024)) MiB"
	# what one probe costs, and one `policy show` (a scan)
	t=$(date +%s%N)
	for _ in 1 2 3 4 5; do shows fd00:ffff:1::1 101 none; done
	probe=$(( ($(date +%s%N) - t) / 5000 ))
	t=$(date +%s%N)
	"$B/src/srv6ctl" -s "$TMP/srv6d.sock" -j policy show $P >/dev/null 2>&1
	scan=$(( ($(date +%s%N) - t) / 1000 ))
	echo "N=$label: srv6d: one 'srv6ctl route get' probe $(awk -v u=$probe 'BEGIN { printf "%.1f", u / 1000 }') ms, one 'srv6ctl policy show P/L' $(awk -v u=$scan 'BEGIN { printf "%.1f", u / 1000 }') ms"
	: >"$TMP/add" ; : >"$TMP/rep" ; : >"$TMP/del" ; : >"$TMP/ip"
	for r in $(seq 1 "$ROUNDS"); do
		t=$(date +%s%N)
		ip -n "$NS" -6 route add $P encap seg6 mode encap \
			segs fc00:ffff::a1 dev d0 table 101
		echo $(( ($(date +%s%N) - t) / 1000 )) >>"$TMP/ip"
		ms_until "$t" fd00:ffff:1::1 101 fc00:ffff::a1 >>"$TMP/add"
		t=$(date +%s%N)
		ip -n "$NS" -6 route replace $P encap seg6 mode encap \
			segs fc00:ffff::b1,fc00:ffff::b2 dev d0 table 101
		ms_until "$t" fd00:ffff:1::1 101 fc00:ffff::b2 >>"$TMP/rep"
		t=$(date +%s%N)
		ip -n "$NS" -6 route del $P table 101
		ms_until "$t" fd00:ffff:1::1 101 none >>"$TMP/del"
	done
	hwm=$(status_kib "$SRV6D_PID" VmHWM)
	echo "N=$label: the 'ip route add' command alone (ms, min/median/max): $(awk '{ printf "%.1f\n", $1 / 1000 }' "$TMP/ip" | stats)"
	echo "N=$label: srv6d: one route in force after (ms, min/median/max of $ROUNDS): add $(stats <"$TMP/add"), replace $(stats <"$TMP/rep"), delete $(stats <"$TMP/del"); each: add $(tr '\n' ' ' <"$TMP/add")replace $(tr '\n' ' ' <"$TMP/rep")delete $(tr '\n' ' ' <"$TMP/del")"
	echo "N=$label: srv6d: VmHWM after the changes $((hwm / 1024)) MiB; $(grep -c 'kernel routes: [0-9]* of' "$TMP/srv6d.log") rebuilds (seg6local only)"
	srv6d_stop

	# the same N loaded while srv6d runs, then a sentinel route
	fresh_ns
	srv6d_start
	wait_log "kernel routes: [0-9]* seg6local routes" 60
	t4=$(now)
	load=$(ip netns exec "$NS" "$B/bench/kroute-load" "$DATA" d0 "$n" 1)
	ip -n "$NS" -6 route add fd00:ffff:2::/48 encap seg6 mode encap \
		segs fc00:ffff::c1 dev d0 table 102
	t5=$(now)
	ms=$(ms_until "$(date +%s%N)" fd00:ffff:2::1 102 fc00:ffff::c1)
	hwm=$(status_kib "$SRV6D_PID" VmHWM)
	echo "N=$label: loaded while srv6d runs: kernel load $(secs "$t4" "$t5") s, the sentinel after it in force in srv6d $ms ms later, VmHWM $((hwm / 1024)) MiB"
	srv6d_stop
done
