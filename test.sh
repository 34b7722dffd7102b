#!/bin/sh
# The whole test suite: install what is missing, build, run `make check`
# (unit tests, namespace tests against the real kernel, brief fuzzing).
# Run as root so the namespace tests run instead of being skipped.
set -e
cd "$(dirname "$0")"
if [ "$(id -u)" -eq 0 ]; then
	./.ci/install-deps.sh
else
	echo "test.sh: not root: namespace tests will be skipped" >&2
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"
if ! make -j1 check; then
	echo "=== failed tests: logs ==="
	for log in $(grep -l -E '^:test-result: (FAIL|ERROR)' tests/*.trs tests/*/*.trs 2>/dev/null); do
		echo "----- ${log%.trs}.log"
		cat "${log%.trs}.log"
	done
	exit 1
fi
