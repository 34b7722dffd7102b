#!/bin/sh
# run-fuzz.sh - build every tests/fuzz/fuzz_*.c as a libFuzzer target with
# ASan and UBSan, run each on a copy of its seed corpus
# (tests/fuzz/corpus-NAME/), fail if any crashed, leaked or hung, and print
# per target: executions, executions per second, coverage (edges, features,
# corpus size) and crashes.
#
#   run-fuzz.sh                    `make check`: FUZZ_SECONDS per target
#   run-fuzz.sh --minutes N [T...] the long run anyone can start: N minutes
#                                  per target (T...: only these targets,
#                                  e.g. packet), one after the other
#
# A target's run stops at its first crash (the reproducer is kept and
# named in the report), so "crashes" is 0 or 1 per target.
#
# Environment (set by Makefile.am's AM_TESTS_ENVIRONMENT):
#   CLANG         clang to build with; empty: skipped (exit 77); unset:
#                 clang from PATH
#   top_srcdir    source tree (default: two levels above this script)
#   top_builddir  build tree; binaries and logs go to its tests/fuzz/
#                 (default: the source tree)
#   FUZZ_SECONDS  seconds per target (default 20; --minutes wins)
#   FUZZ_ARGS     extra libFuzzer arguments
set -u

usage() {
	echo "usage: $0 [--minutes N] [TARGET...]" >&2
	exit 2
}
seconds=${FUZZ_SECONDS:-20}
only=
while [ $# -gt 0 ]; do
	case $1 in
	--minutes)
		[ $# -ge 2 ] || usage
		case $2 in '' | *[!0-9]* | 0) usage ;; esac
		seconds=$(($2 * 60))
		shift 2
		;;
	--minutes=*)
		m=${1#--minutes=}
		case $m in '' | *[!0-9]* | 0) usage ;; esac
		seconds=$((m * 60))
		shift
		;;
	-h | --help) usage ;;
	-*) usage ;;
	*)
		only="$only $1"
		shift
		;;
	esac
done

if [ -z "${CLANG+set}" ]; then
	CLANG=$(command -v clang 2>/dev/null)
fi
if [ -z "$CLANG" ]; then
	echo "SKIP: no clang (CLANG is empty): the fuzz targets are not built"
	exit 77
fi
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
out=$top_builddir/tests/fuzz
summary=$out/fuzz_summary.txt

# Library sources each target links, relative to top_srcdir: SRC_<name>
# for tests/fuzz/fuzz_<name>.c (read through eval below).
# shellcheck disable=SC2034
# The packet path: every library source below the daemon (the daemon's
# rules, the control protocol and the worker threads are not fuzzed here).
# shellcheck disable=SC2034
SRC_packet=$(cd "$top_srcdir" && ls src/common/*.c src/config/*.c \
	src/srv6/*.c src/route/*.c src/io/*.c |
	grep -v -e '^src/io/worker\.c$' \
		-e '^src/common/ctl_proto\.c$' | tr '\n' ' ')
# The config: its own layer and the one below (tests/layers.sh checks
# that it links nothing higher).
# shellcheck disable=SC2034
SRC_config=$(cd "$top_srcdir" && ls src/common/*.c src/config/*.c |
	grep -v -e '^src/common/ctl_proto\.c$' | tr '\n' ' ')

libs=$(pkg-config --libs libmnl libnftnl liburcu-qsbr libnetfilter_queue)
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
	# srv6d's folders, then the build tree's paths.h (the configured
	# paths, made by make).
	incs=
	for d in common config srv6 route io daemon; do
		incs="$incs -I$top_srcdir/src/$d"
	done
	# shellcheck disable=SC2086
	$CLANG $CFLAGS_FUZZ $incs -I"$top_builddir" \
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
	report "$name" "$log" "$rc"
	if [ $rc -ne 0 ]; then
		echo "FAIL: fuzz_$name exited $rc; reproducer:"
		sed -n 's/.*Test unit written to \(.*\)$/  \1/p' "$log"
		echo "  (rerun: $out/fuzz_$name <file>)"
		echo "---- sanitizer report ($log) ----"
		awk 'f || /ERROR: |runtime error|deadly signal|[Tt]imeout|out-of-memory/ { f = 1; print }' \
			"$log" | head -80
		return 1
	fi
	return 0
}

# report NAME LOG RC: one line of the summary from libFuzzer's log (the
# final stats, and the last status line for coverage).
report() {
	awk -v name="fuzz_$1" -v rc="$3" -v secs="$seconds" '
		/^stat::number_of_executed_units:/ { execs = $2 }
		/^stat::average_exec_per_sec:/ { eps = $2 }
		/^#[0-9]+/ && / cov: / {
			for (i = 1; i < NF; i++) {
				if ($i == "cov:") cov = $(i + 1)
				if ($i == "ft:") ft = $(i + 1)
				if ($i == "corp:") { corp = $(i + 1); sub("/.*", "", corp) }
			}
			if (execs == "") { n = $1; sub("#", "", n); last = n }
		}
		# "SUMMARY: libFuzzer: out-of-memory", "SUMMARY: AddressSanitizer:
		# heap-buffer-overflow /path...": the kind of failure.
		/^SUMMARY: / && kind == "" {
			if ($2 == "libFuzzer:") {
				kind = $3
				if ($4 != "") kind = kind " " $4
			} else {
				kind = $2 " " $3
				sub(":", "", kind)
			}
		}
		END {
			if (execs == "") execs = last + 0
			crash = rc == 0 ? "0" : "1 (" (kind == "" ? "exit " rc : kind) ")"
			printf "%-12s %6ss %12s %9s %7s %8s %7s  %s\n", name, secs,
				execs, eps + 0, cov + 0, ft + 0, corp + 0, crash
		}' "$2" >>"$summary"
}

targets=
for f in "$top_srcdir"/tests/fuzz/fuzz_*.c; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .c)
	targets="$targets ${n#fuzz_}"
done
if [ -n "$only" ]; then
	for t in $only; do
		case " $targets " in
		*" $t "*) ;;
		*) echo "$0: no target $t (have:$targets)" >&2; exit 2 ;;
		esac
	done
	targets=$only
fi
if [ -z "$targets" ]; then
	echo "SKIP: no tests/fuzz/fuzz_*.c"
	exit 77
fi

printf "%-12s %7s %12s %9s %7s %8s %7s  %s\n" target time executions \
	exec/s cov ft corpus crashes >"$summary"
passed=0
failed=0
for t in $targets; do
	if build "$t" && run "$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "---- fuzz summary ($summary) ----"
cat "$summary"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
