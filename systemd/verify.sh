#!/bin/sh
# verify.sh - `systemd-analyze verify` of srv6d.service, filled in with the
# binaries of this build and with its man pages (as make fills them in)
# behind its Documentation= lines: any message is a failure.  Then `systemd-analyze
# security --offline=yes` of the same file: an exposure level above 2.0
# is a failure.  Between them, the unit as make filled it in, srv6d -h,
# srv6ctl -h and the man pages must name the same configuration file and
# control socket.  Exit 77 (skipped) without systemd-analyze.  Boots
# nothing: all of it only reads files.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
command -v systemd-analyze >/dev/null 2>&1 || {
	echo "verify.sh: SKIP: systemd-analyze not found"
	exit 77
}
for b in src/srv6d src/srv6ctl man/srv6d.8 man/srv6ctl.8 man/srv6d.conf.5; do
	[ -f "$top_builddir/$b" ] || {
		echo "verify.sh: SKIP: $top_builddir/$b not built"
		exit 77
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srv6d-verify.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/man/man5" "$tmp/man/man8" "$tmp/unit"
cp "$top_builddir/man/srv6d.8" "$top_builddir/man/srv6ctl.8" "$tmp/man/man8/"
cp "$top_builddir/man/srv6d.conf.5" "$tmp/man/man5/"
sed -e "s|@sbindir@|$top_builddir/src|g" \
	-e "s|@bindir@|$top_builddir/src|g" \
	-e "s|@sysconfdir@|/etc|g" \
	-e "s|@runstatedir@|/run|g" \
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

# The unit as make filled it in, srv6d's and srv6ctl's defaults and the
# man pages name the same configuration file and control socket, whatever
# configure was given.
unit=$top_builddir/systemd/srv6d.service
u_conf=$(sed -n 's/^ExecStart=.* -c \([^ ]*\) .*/\1/p' "$unit")
u_sock=$(sed -n 's/^ExecStart=.* -s \([^ ]*\).*/\1/p' "$unit")
r_sock=$(sed -n 's/^ExecReload=.* -s \([^ ]*\) .*/\1/p' "$unit")
d_conf=$("$top_builddir/src/srv6d" -h |
	sed -n 's/.*configuration file (default \(.*\))$/\1/p')
d_sock=$("$top_builddir/src/srv6d" -h |
	sed -n 's/.*control socket (default \(.*\))$/\1/p')
c_sock=$("$top_builddir/src/srv6ctl" -h 2>&1 |
	sed -n 's/.*control socket (default \(.*\))$/\1/p')
if [ -z "$u_conf" ] || [ "$u_conf" != "$d_conf" ] ||
	[ -z "$u_sock" ] || [ "$u_sock" != "$d_sock" ] ||
	[ "$u_sock" != "$r_sock" ] || [ "$u_sock" != "$c_sock" ]; then
	echo "verify.sh: FAIL: config: unit $u_conf, srv6d $d_conf;" \
		"socket: unit $u_sock (reload $r_sock), srv6d $d_sock," \
		"srv6ctl $c_sock"
	exit 1
fi
for page in srv6d.8 srv6ctl.8; do
	if ! grep -q "^\.It Pa $u_sock\$" "$top_builddir/man/$page"; then
		echo "verify.sh: FAIL: $page's FILES do not name $u_sock"
		exit 1
	fi
done
if ! grep -q "^\.It Pa $u_conf\$" "$top_builddir/man/srv6d.8"; then
	echo "verify.sh: FAIL: srv6d.8's FILES do not name $u_conf"
	exit 1
fi
echo "verify.sh: the unit, srv6d, srv6ctl and the man pages agree: $u_conf, $u_sock"

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
