#!/bin/sh
# verify.sh - `systemd-analyze verify` of srv6d.service, filled in with the
# binaries of this build and with the man pages of this tree behind its
# Documentation= lines: any message is a failure.  Then `systemd-analyze
# security --offline=yes` of the same file: an exposure level above 2.0
# is a failure.  Exit 77 (skipped) without systemd-analyze.  Boots
# nothing: both only read files.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
command -v systemd-analyze >/dev/null 2>&1 || {
	echo "verify.sh: SKIP: systemd-analyze not found"
	exit 77
}
for b in src/srv6d src/srv6ctl; do
	[ -x "$top_builddir/$b" ] || {
		echo "verify.sh: SKIP: $top_builddir/$b not built"
		exit 77
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srv6d-verify.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/man/man5" "$tmp/man/man8" "$tmp/unit"
cp "$top_srcdir/man/srv6d.8" "$top_srcdir/man/srv6ctl.8" "$tmp/man/man8/"
cp "$top_srcdir/man/srv6d.conf.5" "$tmp/man/man5/"
sed -e "s|@sbindir@|$top_builddir/src|g" \
	-e "s|@bindir@|$top_builddir/src|g" \
	-e "s|@sysconfdir@|/etc|g" \
	"$top_srcdir/systemd/srv6d.service.in" >"$tmp/unit/srv6d.service"
if grep -n '@[a-z]*@' "$tmp/unit/srv6d.service"; then
	echo "verify.sh: FAIL: placeholders left in the unit"
	exit 1
fi
out=$(cd "$tmp/unit" && MANPATH="$tmp/man" systemd-analyze verify \
	./srv6d.service 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ -n "$out" ]; then
	echo "$out"
	echo "verify.sh: FAIL: systemd-analyze verify exited $rc"
	exit 1
fi
echo "verify.sh: systemd-analyze verify srv6d.service: clean"

# The unit's exposure, as `systemd-analyze security` scores it (0.0 to 10.0,
# lower is better): at most $max.  --offline (systemd 250) scores the file
# itself, not a loaded unit.
max=2.0
if ! systemd-analyze --help 2>&1 | grep -q -- '--offline'; then
	echo "verify.sh: systemd-analyze has no --offline: security score not checked"
	exit 0
fi
sec=$(cd "$tmp/unit" && systemd-analyze security --offline=yes \
	./srv6d.service 2>&1)
score=$(printf '%s\n' "$sec" |
	sed -n 's/.*Overall exposure level for [^ ]*: \([0-9][0-9.]*\).*/\1/p')
if [ -z "$score" ]; then
	echo "$sec"
	echo "verify.sh: FAIL: no exposure level in systemd-analyze security's output"
	exit 1
fi
if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
	printf '%s\n' "$sec" | grep '✗'
	echo "verify.sh: FAIL: systemd-analyze security srv6d.service: exposure $score, above $max"
	exit 1
fi
echo "verify.sh: systemd-analyze security srv6d.service: exposure $score (at most $max)"
exit 0
