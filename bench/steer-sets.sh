#!/bin/bash
# steer-sets.sh - `steering auto` with `kernel-routes yes` at the scale of
# a full table (root): N prefixes of the full table (tests/prefixes.sh) as
# the kernel's seg6 encap routes (bench/kroute-load: tables 101 and 102,
# each selected by an `ip rule iif`),
# then srv6d starts and puts their prefixes into its nft interval sets
# (steer.h rule 5, steerset.h).  Prints, per N:
#   - the time from srv6d's start to the sets in force (its log lines
#     "N set elements changed in T us: E in S sets" per slice of 65,536
#     routes and "R route changes taken in K slices in T ms", and the
#     wall clock to the last), the sets' elements (the top prefixes), srv6d's peak
#     memory and the kernel's memory growth;
#   - ROUNDS (default 10) rounds of one route added and deleted: the ms
#     from before the `ip route` command to the kernel's notification of
#     the element's add or delete (the transaction committed:
#     bench/nft-elem-watch.py, time-stamped as read, polled every 10 ms;
#     not `nft monitor`, whose cache takes minutes at a full table),
#     srv6d's own time for it
#     (its debug log line: the routes taken, merged, the batch sent and
#     answered), and the elements it changed (1).  Not `nft get
#     element`: nft reads every set's elements first (19 s at the full
#     table).  (srv6ctl status answers during the load, between slices,
#     and lists at most 100 kernel policies.)
# Usage: bench/steer-sets.sh BUILDDIR [N...]   (default: all)
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: $0 BUILDDIR [N...]}
shift
SIZES=${*:-all}
# shellcheck source=tests/prefixes.sh
. "$top_srcdir/tests/prefixes.sh"
prefixes_find "$top_srcdir" ||
	{ echo "steer-sets.sh: no bgp-prefixes.txt.gz: looked for $PREFIXES_TRIED"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 77; }
NS=srv6d-ssets-$$
TMP=$(mktemp -d)
SRV6D_PID=
cleanup() {
	[ -n "$SRV6D_PID" ] && kill "$SRV6D_PID" 2>/dev/null && wait "$SRV6D_PID"
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
ROUNDS=${ROUNDS:-10}
P=fd00:ffff:1::/48
now_ns() { date +%s%N; }
kmem_kib() { awk '/^(Slab|Percpu):/ { s += $2 } END { print s }' /proc/meminfo; }
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		printf "%s/%s/%s\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
printf 'queue 0\nencap-source fc00:12::1\nkernel-routes yes\noffload no\n' >"$TMP/srv6d.conf"

for n in $SIZES; do
	[ "$n" = all ] && n=0
	ip netns del "$NS" 2>/dev/null
	ip netns add "$NS" || exit 1
	ip -n "$NS" link set lo up
	ip -n "$NS" link add d0 type veth peer name d1
	ip -n "$NS" link set d0 up && ip -n "$NS" link set d1 up
	# the two tenants' in-interfaces: a table no link selects is not
	# steered (srv6d would look its packets up in main)
	for f in -4 -6; do
		ip -n "$NS" $f rule add pref 2000 iif d1 lookup 101
		ip -n "$NS" $f rule add pref 2000 iif d0 lookup 102
	done
	load=$(ip netns exec "$NS" "$B/bench/kroute-load" "$PREFIXES" d0 "$n" 1)
	echo "N=${n/#0/all}: kernel: $load"
	k0=$(kmem_kib)
	t0=$(now_ns)
	ip netns exec "$NS" "$B/src/srv6d" -c "$TMP/srv6d.conf" \
		-s "$TMP/srv6d.sock" -d >"$TMP/srv6d.log" 2>&1 &
	SRV6D_PID=$!
	# more routes than one slice (daemon.c STEER_KROUTES_SLICE, 65,536):
	# in force once the daemon says all its slices are taken
	done_re="[0-9]\{5,\} set elements changed in"
	if [ "$n" = 0 ] || [ "$n" -gt 65536 ]; then
		done_re="route changes taken in [0-9]* slices"
	fi
	for _ in $(seq 1 1200); do
		grep -q "$done_re" "$TMP/srv6d.log" && break
		sleep 0.05
	done
	t1=$(now_ns)
	k1=$(kmem_kib)
	if ! kill -0 "$SRV6D_PID" 2>/dev/null; then
		wait "$SRV6D_PID"
		echo "N=${n/#0/all}: srv6d exited ($?):"; tail -20 "$TMP/srv6d.log"
		SRV6D_PID=
		continue
	fi
	echo "N=${n/#0/all}: srv6d: $(grep -o "kernel routes: [0-9]\{5,\} set elements changed in.*" "$TMP/srv6d.log" | tail -1); $(grep -o "[0-9]* route changes taken in .*" "$TMP/srv6d.log" | tail -1); seen after $(( (t1 - t0) / 1000000 )) ms from start"
	echo "N=${n/#0/all}: VmHWM $(awk '/VmHWM/ { print $2 / 1024 " MiB" }' /proc/$SRV6D_PID/status); kernel Slab+Percpu +$(( (k1 - k0) / 1024 )) MiB; $(ip netns exec "$NS" nft list tables | grep -c srv6d) tables"
	: >"$TMP/add"; : >"$TMP/del"; : >"$TMP/sadd"; : >"$TMP/sdel"
	: >"$TMP/nch"; : >"$TMP/mon"
	# the kernel's own word that the transaction is in: its element
	# notifications, time-stamped as read (bench/nft-elem-watch.py)
	ip netns exec "$NS" /usr/bin/python3 "$top_srcdir/bench/nft-elem-watch.py" >"$TMP/mon" &
	MON=$!
	until grep -q ready "$TMP/mon"; do sleep 0.05; done
	for r in $(seq 1 "$ROUNDS"); do
		for op in add del; do
			lines=$(wc -l <"$TMP/mon")
			t=$(now_ns)
			if [ $op = add ]; then
				ip -n "$NS" -6 route add $P encap seg6 mode encap segs fc00:ffff::a1 dev d0 table 101
			else
				ip -n "$NS" -6 route del $P table 101
			fi
			w=delete; [ $op = add ] && w=add
			e=
			for _ in $(seq 1 500); do
				e=$(tail -n +$((lines + 1)) "$TMP/mon" | grep " $w$" | head -1)
				[ -n "$e" ] && break
				sleep 0.01
			done
			[ -z "$e" ] && { echo missed >>"$TMP/$op"; continue; }
			echo "${e%% *} $t" | awk '{ printf "%.1f\n", ($1 - $2) / 1e6 }' >>"$TMP/$op"
			# srv6d's own word (-d): the last change's line
			sleep 0.05
			grep -o "kernel routes: [0-9]* set elements changed in [0-9]* us" "$TMP/srv6d.log" | tail -1 >"$TMP/last"
			awk '{ printf "%.2f\n", $(NF - 1) / 1000 }' "$TMP/last" >>"$TMP/s$op"
			awk '{ print $3 }' "$TMP/last" >>"$TMP/nch"
		done
	done
	kill "$MON" 2>/dev/null; wait "$MON" 2>/dev/null
	echo "N=${n/#0/all}: elements changed per change: $(sort -u "$TMP/nch" | tr '\n' ' ')"
	echo "N=${n/#0/all}: one route, from before the ip command to the kernel's element notification (ms, min/median/max of $ROUNDS): add $(stats <"$TMP/add"), delete $(stats <"$TMP/del")"
	echo "N=${n/#0/all}: srv6d's own time for it (ms): add $(stats <"$TMP/sadd"), delete $(stats <"$TMP/sdel")"
	kill "$SRV6D_PID"; wait "$SRV6D_PID"; SRV6D_PID=
	echo "N=${n/#0/all}: after the stop: $(ip netns exec "$NS" nft list tables | grep -c srv6d) srv6d tables"
done
