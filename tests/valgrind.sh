#!/bin/sh
# valgrind.sh - unit tests whose bug only shows as a read of freed memory:
# run them under valgrind, which fails on any invalid read or write.
#   check_engine: engine_start() after a failed allocation (issue 8).
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not found"; exit 77; }
rc=0
for t in check_engine; do
	bin=$top_builddir/tests/$t
	[ -x "$bin" ] || { echo "FAIL: $bin not built"; rc=1; continue; }
	# Check's fork mode would hide the child's errors from valgrind.
	if CK_FORK=no valgrind -q --error-exitcode=3 --leak-check=no \
		"$bin" > "$top_builddir/tests/$t.valgrind" 2>&1; then
		echo "ok   - $t under valgrind"
	else
		echo "FAIL - $t under valgrind:"
		cat "$top_builddir/tests/$t.valgrind"
		rc=1
	fi
done
exit $rc
