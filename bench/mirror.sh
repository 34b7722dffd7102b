#!/bin/sh
# mirror.sh - route mirror benchmarks (root for the kernel part):
#   1. fib-bench: build time, memory, lookups/s per core (IPv4/IPv6, random
#      and realistic keys), lookup rate while 100k updates/s are applied;
#   2. time from start to a complete mirror of the full table loaded into
#      a namespace's kernel (tests/ns/mirror-dump).
# Usage: bench/mirror.sh [BUILDDIR]   (BUILDDIR has bench/fib-bench and
#        tests/ns/mirror-dump; default: the source tree)
# The table: $SRV6D_PREFIXES, else bgp-prefixes.txt.gz of ../shared/data
# beside the clone (tests/prefixes.sh); without it, exit 77.
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$top_srcdir}
. "$top_srcdir/tests/prefixes.sh"
prefixes_find "$top_srcdir" ||
	{ echo "mirror.sh: no bgp-prefixes.txt.gz: looked for $PREFIXES_TRIED"; exit 77; }
DATA=$PREFIXES

echo "== fib-bench"
"$B/bench/fib-bench" "$DATA" 100000

[ "$(id -u)" = 0 ] || { echo "(not root: kernel mirror timing skipped)"; exit 0; }
echo "== full table into a namespace's kernel, then mirror it"
NS=srv6d-mbench-$$
TMP=$(mktemp -d)
trap 'ip netns del $NS 2>/dev/null; rm -rf $TMP' EXIT
ip netns add "$NS"
N="ip netns exec $NS"
$N ip link add veth0 type veth peer name veth1
$N ip link set veth0 up; $N ip link set veth1 up
$N ip addr add 10.255.0.1/24 dev veth0
$N ip -6 addr add fd00::1/64 dev veth0 nodad
gzip -dc "$DATA" | awk '/:/ { print "route add " $1 " via fd00::2"; next }
	{ print "route add " $1 " via 10.255.0.2" }' > "$TMP/load.batch"
t0=$(date +%s.%N)
$N ip -batch "$TMP/load.batch"
echo "kernel: ip -batch of $(wc -l < "$TMP/load.batch") routes: $(echo "$(date +%s.%N) - $t0" | bc) s"
for i in 1 2 3; do
	$N "$B/tests/ns/mirror-dump" 2>&1 >/dev/null | tail -1
done
