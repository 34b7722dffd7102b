#!/bin/sh
# run-fuzz.sh - `make check` test: build every tests/fuzz/fuzz_*.c as a
# libFuzzer target with ASan and UBSan, run each for a short time on a copy
# of its seed corpus (tests/fuzz/corpus-NAME/), and fail if any crashed,
# leaked or hung.
#
# Environment (set by Makefile.am's AM_TESTS_ENVIRONMENT):
#   CLANG         clang to build with; empty: the test is skipped (exit 77)
#   top_srcdir    source tree (default: two levels above this script)
#   top_builddir  build tree; binaries and logs go to its tests/fuzz/
#   FUZZ_SECONDS  seconds per target (default 20)
#   FUZZ_ARGS     extra libFuzzer arguments
set -u

: "${CLANG:=}"
if [ -z "$CLANG" ]; then
	echo "SKIP: no clang (CLANG is empty): the fuzz targets are not built"
	exit 77
fi
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
seconds=${FUZZ_SECONDS:-20}
out=$top_builddir/tests/fuzz

# Library sources each target links, relative to top_srcdir: SRC_<name>
# for tests/fuzz/fuzz_<name>.c (read through eval below).
# shellcheck disable=SC2034
# The packet path: every library source below the daemon (the daemon's
# rules, its control socket and the worker threads are not fuzzed here).
# The config links it too: its checks read the behavior table
# (src/srv6/behavior_table.c), whose rows name the behaviors' functions.
# shellcheck disable=SC2034
SRC_packet=$(cd "$top_srcdir" && ls src/common/*.c src/config/*.c \
	src/srv6/*.c src/route/*.c src/io/*.c |
	grep -v -e '^src/route/rtrules\.c$' -e '^src/io/worker\.c$' | tr '\n' ' ')
# shellcheck disable=SC2034
SRC_config=$SRC_packet

libs=$(pkg-config --libs libmnl liburcu-qsbr libnetfilter_queue)
CFLAGS_FUZZ="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"

mkdir -p "$out" || exit 99

# Can this clang build a libFuzzer binary at all (libclang-rt-*-dev)?
probe=$out/.probe
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	> "$probe.c"
# shellcheck disable=SC2086
if ! $CLANG $CFLAGS_FUZZ "$probe.c" -o "$probe" > "$probe.log" 2>&1; then
	echo "SKIP: $CLANG cannot build with -fsanitize=fuzzer" \
	     "(install libclang-rt-dev):"
	cat "$probe.log"
	rm -f "$probe" "$probe.c" "$probe.log"
	exit 77
fi
rm -f "$probe" "$probe.c" "$probe.log"

build() {	# build NAME -> $out/fuzz_NAME
	name=$1
	eval "srcs=\${SRC_$name-}"
	if [ -z "$srcs" ]; then
		echo "FAIL: fuzz_$name: no source list (set SRC_$name in $0)"
		return 1
	fi
	files=
	for s in $srcs; do
		files="$files $top_srcdir/$s"
	done
	echo "build fuzz_$name"
	# srv6d's folders before the build tree: src/config/config.h is
	# srv6d's config header, the build tree's config.h is autoconf's.
	incs=
	for d in common config srv6 route io daemon; do
		incs="$incs -I$top_srcdir/src/$d"
	done
	# shellcheck disable=SC2086
	$CLANG $CFLAGS_FUZZ $incs -I"$top_builddir" \
		-DSYSCONFDIR='"/etc"' -DRUNSTATEDIR='"/run"' \
		-o "$out/fuzz_$name" "$top_srcdir/tests/fuzz/fuzz_$name.c" $files \
		-lnettle $libs -pthread
}

run() {	# run NAME: fuzz a copy of the seed corpus for $seconds
	name=$1
	work=$out/corpus-$name.run
	log=$out/fuzz_$name.log
	dict=
	rm -rf "$work"
	mkdir -p "$work"
	if [ -d "$top_srcdir/tests/fuzz/corpus-$name" ]; then
		cp "$top_srcdir/tests/fuzz/corpus-$name"/* "$work"/ 2>/dev/null
	fi
	if [ -f "$top_srcdir/tests/fuzz/fuzz_$name.dict" ]; then
		dict=-dict=$top_srcdir/tests/fuzz/fuzz_$name.dict
	fi
	echo "run fuzz_$name for ${seconds}s on $(find "$work" -type f | wc -l) seeds"
	# shellcheck disable=SC2086
	"$out/fuzz_$name" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/fuzz_$name-" $dict ${FUZZ_ARGS:-} \
		"$work" > "$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: fuzz_$name exited $rc; reproducer:"
		sed -n 's/.*Test unit written to \(.*\)$/  \1/p' "$log"
		echo "  (rerun: $out/fuzz_$name <file>)"
		echo "---- sanitizer report ($log) ----"
		awk 'f || /ERROR: |runtime error|deadly signal|[Tt]imeout|out-of-memory/ { f = 1; print }' \
			"$log" | head -80
		return 1
	fi
	grep -E '^stat::number_of_executed_units' "$log" | \
		sed "s/^/  fuzz_$name /"
	return 0
}

targets=
for f in "$top_srcdir"/tests/fuzz/fuzz_*.c; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .c)
	targets="$targets ${n#fuzz_}"
done
if [ -z "$targets" ]; then
	echo "SKIP: no tests/fuzz/fuzz_*.c"
	exit 77
fi

passed=0
failed=0
for t in $targets; do
	if build "$t" && run "$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
