#!/bin/sh
# promtool.sh - `promtool check metrics` (Debian's prometheus package)
# passes the metrics document srv6d serves (src/daemon/metrics.c): the one
# tests/check_metrics builds of its hand-built counters, which it also
# compares with tests/metrics.golden line by line.  Prometheus' own linter
# checks the text format and its conventions (HELP, TYPE, _total on
# counters, base units, label names).  tests/ns/status-metrics.sh runs it
# on a live srv6d's output too.
#
# Exit 77 (skipped) when promtool is not installed.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
command -v promtool >/dev/null 2>&1 || {
	echo "promtool.sh: SKIP: promtool not found (apt-get install prometheus)"
	exit 77
}
out=$(mktemp "${TMPDIR:-/tmp}/srv6d-metrics.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
if ! SRV6D_METRICS_OUT=$out "$top_builddir/tests/check_metrics" >/dev/null; then
	echo "FAIL - tests/check_metrics failed: its text is not checked"
	exit 1
fi
if [ ! -s "$out" ]; then
	echo "FAIL - tests/check_metrics wrote no metrics to $out"
	exit 1
fi
if msg=$(promtool check metrics <"$out" 2>&1); then
	echo "ok   - promtool check metrics: $(grep -c '^# TYPE' "$out") families, $(grep -vc '^#' "$out") samples"
	echo "promtool.sh: 1 passed, 0 failed"
	exit 0
fi
echo "FAIL - promtool check metrics:"
echo "$msg" | sed 's/^/     /'
echo "promtool.sh: 0 passed, 1 failed"
exit 1
