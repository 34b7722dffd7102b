#!/bin/bash
# kroutes-scale.sh - `kernel-routes yes` at the scale of a full table (root):
# for each size N, a fresh namespace gets N prefixes of
# ../shared/data/bgp-prefixes.txt.gz as the kernel's seg6 encap routes
# (bench/kroute-load: half in table 101, half in 102, as two tenants'),
# then srv6d starts with kernel-routes yes and applies them.  Prints, per N:
#   - the kernel's load: seconds, the ENOMEM retries it needed (its seg6
#     routes take per-CPU memory with GFP_ATOMIC: kroute-load.c), and the
#     kernel's Slab + Percpu growth (/proc/meminfo: machine-wide, so other
#     jobs' allocations are in it too);
#   - srv6d: seconds from its start to the routes in force (route mirror
#     dump + rebuild), the rebuild alone (its debug line), resident memory
#     then (VmRSS) and at its peak (VmHWM), per steered prefix;
#   - one more route added while srv6d runs: how long until srv6d has it
#     in force (every change rebuilds the whole set), and the peak after;
#   - the same N loaded into a fresh namespace while srv6d runs there: how
#     long until all are in force, in how many rebuilds.
# Usage: bench/kroutes-scale.sh BUILDDIR [N...]   (default N: 100000 250000)
#   N "all" is the whole list (1,062,046); KROUTES_KERNEL_ONLY=1 loads the
#   kernel only (no srv6d).  srv6d's peak is about 6.5 KB per steered
#   prefix at start and 11.5 KB during a rebuild (struct policy is 4.2 KB,
#   and a rebuild holds the new config and the old one): an N whose start
#   estimate passes KROUTES_MAX_MIB (default 8192) is skipped, one whose
#   rebuild estimate does is measured at start only.
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: $0 BUILDDIR [N...]}
shift
SIZES=${*:-100000 250000}
DATA=${KROUTES_DATA:-$top_srcdir/../shared/data/bgp-prefixes.txt.gz}
[ -r "$DATA" ] || DATA=$top_srcdir/../../shared/data/bgp-prefixes.txt.gz	# a worktree
MAX_MIB=${KROUTES_MAX_MIB:-8192}
[ -r "$DATA" ] || { echo "no $DATA"; exit 77; }
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
for n in $SIZES; do
	[ "$n" = all ] && n=0
	label=${n/#0/all}
	est=$(( (n ? n : 1062046) * 65 / 10240 ))
	est_re=$(( (n ? n : 1062046) * 115 / 10240 ))
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
	ip netns exec "$NS" "$B/src/srv6d" -c "$TMP/srv6d.conf" \
		-s "$TMP/srv6d.sock" -d >"$TMP/srv6d.log" 2>&1 &
	SRV6D_PID=$!
	if ! wait_log "kernel routes: [0-9]* SRv6 routes" 600; then
		echo "N=$label: srv6d did not apply the routes:"; tail -5 "$TMP/srv6d.log"
		kill "$SRV6D_PID" 2>/dev/null; wait "$SRV6D_PID"; SRV6D_PID=
		continue
	fi
	t1=$(now)
	rss=$(status_kib "$SRV6D_PID" VmRSS) hwm=$(status_kib "$SRV6D_PID" VmHWM)
	us=$(sed -n 's/.*kernel routes: [0-9]* of [0-9]* applied in \([0-9]*\) us.*/\1/p' \
		"$TMP/srv6d.log" | head -1)
	echo "N=$label: srv6d: in force $(secs "$t0" "$t1") s after start (rebuild $(awk -v u="$us" 'BEGIN { printf "%.2f", u / 1e6 }') s): $(grep -o 'kernel routes: [0-9]* SRv6 routes, [0-9]* applied' "$TMP/srv6d.log")"
	echo "N=$label: srv6d: VmRSS $((rss / 1024)) MiB ($((rss * 1024 / routes)) B/prefix), VmHWM $((hwm / 1024)) MiB ($((hwm * 1024 / routes)) B/prefix)"

	if [ "$est_re" -gt "$MAX_MIB" ]; then
		echo "N=$label: srv6d: a rebuild's estimated peak $est_re MiB > $MAX_MIB MiB: no change, no load while running"
		kill "$SRV6D_PID"; wait "$SRV6D_PID"; SRV6D_PID=
		continue
	fi

	# one change under that load
	t2=$(now)
	ip -n "$NS" -6 route add fd00:ffff:1::/48 encap seg6 mode encap \
		segs fc00:ffff::a dev d0 table 101
	if wait_log "kernel routes: $((routes + 1)) of $((routes + 1)) applied" 600; then
		t3=$(now)
		hwm=$(status_kib "$SRV6D_PID" VmHWM)
		echo "N=$label: srv6d: one route added: in force after $(secs "$t2" "$t3") s; VmHWM now $((hwm / 1024)) MiB ($((hwm * 1024 / routes)) B/prefix)"
	else
		echo "N=$label: srv6d: the added route was not applied"
	fi
	kill "$SRV6D_PID"; wait "$SRV6D_PID"; SRV6D_PID=

	# the same N loaded while srv6d runs (it rebuilds as they come)
	fresh_ns
	ip netns exec "$NS" "$B/src/srv6d" -c "$TMP/srv6d.conf" \
		-s "$TMP/srv6d.sock" -d >"$TMP/srv6d.log" 2>&1 &
	SRV6D_PID=$!
	wait_log "kernel routes: [0-9]* SRv6 routes" 60
	t4=$(now)
	load=$(ip netns exec "$NS" "$B/bench/kroute-load" "$DATA" d0 "$n" 1)
	t5=$(now)
	if wait_log "kernel routes: $routes of $routes applied" 600; then
		t6=$(now)
		hwm=$(status_kib "$SRV6D_PID" VmHWM)
		echo "N=$label: loaded while srv6d runs: kernel load $(secs "$t4" "$t5") s, all in force in srv6d $(secs "$t4" "$t6") s after the load began, $(grep -c 'kernel routes: [0-9]* of' "$TMP/srv6d.log") rebuilds, VmHWM $((hwm / 1024)) MiB"
	else
		echo "N=$label: loaded while srv6d runs: not all in force"
	fi
	kill "$SRV6D_PID"; wait "$SRV6D_PID"; SRV6D_PID=
done
