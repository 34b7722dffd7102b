#!/bin/sh
# mirror.sh - the route mirror against the kernel of a namespace: the full
# table (bgp-prefixes.txt.gz, ../shared/data beside the clone: see
# tests/prefixes.sh), then a storm of changes with a receive buffer small
# enough to force ENOBUFS.  Root only (exit 77; also without the table).
#   SRV6D_PREFIXES=FILE      the table (default: found by tests/prefixes.sh)
#   SRV6D_MIRROR_PREFIXES=N  load only the first N prefixes (default: all)
set -e
[ "$(id -u)" = 0 ] || { echo "mirror.sh: needs root"; exit 77; }
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
DUMP=${MIRROR_DUMP:-$top_builddir/tests/ns/mirror-dump}
[ -x "$DUMP" ] || { echo "mirror.sh: $DUMP not built"; exit 77; }
. "$top_srcdir/tests/prefixes.sh"
prefixes_find "$top_srcdir" ||
	{ echo "mirror.sh: no bgp-prefixes.txt.gz: looked for $PREFIXES_TRIED"; exit 77; }
DATA=$PREFIXES
command -v python3 >/dev/null || exit 77

NS=srv6d-mirror-$$
TMP=$(mktemp -d)
cleanup() { ip netns del "$NS" 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT
ip netns add "$NS" || exit 77
N="ip netns exec $NS"
$N ip link set lo up
$N ip link add veth0 type veth peer name veth1
$N ip link add veth2 type veth peer name veth3
for d in veth0 veth1 veth2 veth3; do $N ip link set "$d" up; done
$N ip addr add 10.255.0.1/24 dev veth0
$N ip addr add 10.254.0.1/24 dev veth2
$N ip -6 addr add fd00::1/64 dev veth0 nodad
$N ip -6 addr add fd01::1/64 dev veth2 nodad

compare() {
	$N ip -4 -j route show table all > "$TMP/k4.json"
	$N ip -6 -j route show table all > "$TMP/k6.json"
	python3 "$top_srcdir/tests/ns/mirror-compare.py" "$TMP/k4.json" \
		"$TMP/k6.json" "$1"
}

# Full table via gateways, plus the shapes the mirror must keep apart.
gzip -dc "$DATA" | head -n "${SRV6D_MIRROR_PREFIXES:-99999999}" |
	awk '/:/ { print "route add " $1 " via fd00::2"; next }
	     { print "route add " $1 " via 10.255.0.2" }' > "$TMP/load.batch"
cat >> "$TMP/load.batch" <<EOB
route add 203.0.113.0/24 dev veth2 table 1000
route add 198.51.100.0/24 nexthop via 10.255.0.2 weight 2 nexthop via 10.254.0.2 weight 3
route add blackhole 192.0.2.0/25
route add unreachable 192.0.2.128/25 table 7
route add prohibit 2001:db8:dead::/48
route add 2001:db8:97::/48 nexthop via fd00::2 weight 1 nexthop via fd01::2 weight 5
route add 2001:db8:98::/48 via fd01::2 mtu 1400 table 4000000
route add 2001:db8:99::/48 via fd01::2 metric 50
route add 2001:db8:99::/48 via fd00::2 metric 60
EOB
t0=$(date +%s.%N)
$N ip -batch "$TMP/load.batch"
t1=$(date +%s.%N)
echo "kernel load: $(echo "$t1 - $t0" | bc) s for $(wc -l < "$TMP/load.batch") routes"
$N "$DUMP" > "$TMP/m1.jsonl" 2> "$TMP/m1.err"
cat "$TMP/m1.err"
compare "$TMP/m1.jsonl"

# Silent purges: veth2 down drops IPv4 routes via it without a message.
$N "$DUMP" -w > "$TMP/m2.jsonl" 2> "$TMP/m2.err" &
pid=$!
while ! grep -q ready "$TMP/m2.err" 2>/dev/null; do sleep 0.2; done
$N ip link set veth2 down
$N ip addr del 10.255.0.1/24 dev veth0
sleep 0.5
kill -USR1 $pid
wait $pid
tail -1 "$TMP/m2.err"
compare "$TMP/m2.jsonl"
$N ip link set veth2 up
$N ip addr add 10.255.0.1/24 dev veth0
$N ip addr add 10.254.0.1/24 dev veth2 2>/dev/null || true

# Storm: 60k changes against a 16 KiB receive buffer.
awk 'BEGIN {
	for (i = 0; i < 20000; i++) {
		a = int(i / 250); b = i % 250;
		printf "route add 100.%d.%d.0/24 via 10.255.0.2 table 100\n", a, b
		printf "route replace 100.%d.%d.0/24 via 10.254.0.2 table 100\n", a, b
		if (i % 3) printf "route del 100.%d.%d.0/24 table 100\n", a, b
		printf "route add 2001:db8:%x::/48 via fd00::2 table 100\n", i
		if (i % 2) printf "route del 2001:db8:%x::/48 table 100\n", i
	}
}' > "$TMP/storm.batch"
$N "$DUMP" -w -r 16384 > "$TMP/m3.jsonl" 2> "$TMP/m3.err" &
pid=$!
while ! grep -q ready "$TMP/m3.err" 2>/dev/null; do sleep 0.2; done
# Stop the mirror while the kernel churns, so its 16 KiB buffer overflows
# whatever the machine's speed: ENOBUFS is then certain, not a race.
kill -STOP $pid
$N ip -batch "$TMP/storm.batch"
kill -CONT $pid
kill -USR1 $pid
wait $pid
tail -1 "$TMP/m3.err"
grep -q '"enobufs":[1-9]' "$TMP/m3.err" || { echo "mirror.sh: no ENOBUFS forced"; exit 1; }
compare "$TMP/m3.jsonl"
echo "mirror.sh: ok"
