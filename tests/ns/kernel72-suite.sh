#!/bin/bash
# kernel72-suite.sh - the namespace tests that prove behaviors, run again
# with this 6.18 kernel judging srv6d's verdicts as Linux 7.2 does
# (SRV6D_KERNEL=7.2: tests/kernel72/nfq72.c, whose uname() says 7.2, so
# that srv6d's default `reinject auto` decides as on 7.2).  Each test keeps
# its own config: those that set no `reinject` run srv6d's default, those
# that set one run it (they must pass under 7.2's rule too).  Two run at a
# time; each one's log is kept in $T.d/ beside this test's log and its
# tail printed when it fails.  Then a few again as in a network namespace
# outside the initial user namespace on 7.1+ (NFQ72_USERNS=1: no payload
# at all, and a uid_map that makes auto decide so).
T=kernel72-suite
SUITE="transit headend decap binding hmac diff-kernel diff-decap diff-binding
l3vpn reload ptb mobile userns:transit userns:headend userns:decap userns:l3vpn
userns:mobile"
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "$T: SKIP - needs root"; exit 77; }
if [ -n "${top_builddir:-}" ] &&
	[ ! -f "$top_builddir/tests/kernel72/nfq72.so" ]; then
	echo "$T: SKIP - the 7.2 shim is not built"
	exit 77
fi
logdir=${TMPDIR:-/tmp}/$T.$$
mkdir -p "$logdir" || exit 99
npass=0 nfail=0 nskip=0
declare -A pids

finish_one() {	# finish_one NAME: wait for it, count, report
	local name=$1 rc

	wait "${pids[$name]}"
	rc=$?
	unset "pids[$name]"
	case $rc in
	0) npass=$((npass + 1)); echo "ok   - $name under the emulated kernel" ;;
	77) nskip=$((nskip + 1)); echo "skip - $name (skipped)" ;;
	*)	nfail=$((nfail + 1))
		echo "FAIL - $name under 7.2's rule (exit $rc):"
		grep -E '^(FAIL|not ok)' "$logdir/${name/:/-}.log" | head -20
		tail -5 "$logdir/${name/:/-}.log" ;;
	esac
}

start=$(date +%s)
for name in $SUITE; do
	while [ "${#pids[@]}" -ge 2 ]; do
		wait -n 2>/dev/null
		for n in "${!pids[@]}"; do
			kill -0 "${pids[$n]}" 2>/dev/null || finish_one "$n"
		done
	done
	userns=0 test=$name
	case $name in userns:*) userns=1 test=${name#userns:} ;; esac
	SRV6D_KERNEL=7.2 NFQ72_USERNS=$userns \
		NFQ72_STATS="$logdir/${name/:/-}.stats" \
		timeout --kill-after=30 600 "$here/$test.sh" \
		>"$logdir/${name/:/-}.log" 2>&1 &
	pids[$name]=$!
done
for n in "${!pids[@]}"; do
	finish_one "$n"
done
echo "$T: $npass passed, $nfail failed, $nskip skipped in" \
	"$(($(date +%s) - start)) s (logs in $logdir)"
[ "$nfail" -eq 0 ] || exit 1
[ "$npass" -gt 0 ] || exit 77
rm -rf "$logdir"
exit 0
