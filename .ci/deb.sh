#!/bin/sh
# deb.sh - build srv6d's Debian package from the committed tree (git
# archive of HEAD, in a temporary directory: the work tree and its build
# are left alone, so `git status` stays clean) with dpkg-buildpackage
# -us -uc -b, without its test suite (DEB_BUILD_OPTIONS=nocheck: CI runs
# the tests already), then check it: lintian with no error or warning,
# and, by dpkg-deb -c / -I, that it holds the daemon, the CLI, the unit,
# the sysusers file, the man pages and the default config as its one
# conffile, that its postinst creates the user and neither enables nor
# starts the unit.  KEEP=DIR keeps the .deb files there; DEB_WORKTREE=1
# builds the work tree's files as they are, committed or not.
set -eu
cd "$(dirname "$0")/.."
for c in dpkg-buildpackage dh lintian git; do
	command -v "$c" >/dev/null 2>&1 || {
		echo "deb.sh: $c not found (.ci/install-deps.sh installs it)" >&2
		exit 1
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srv6d-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${DEB_WORKTREE:-}" ]; then	# the work tree's files, committed or not
	mkdir "$tmp/srv6d"
	git ls-files -co --exclude-standard | tar -cf - -T - | tar -x -C "$tmp/srv6d"
else
	git archive --format=tar --prefix=srv6d/ HEAD | tar -x -C "$tmp"
fi
if ! (cd "$tmp/srv6d" && DEB_BUILD_OPTIONS=nocheck \
	dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
	tail -n 60 "$tmp/build.log"
	echo "deb.sh: dpkg-buildpackage failed"
	exit 1
fi
deb=$(ls "$tmp"/srv6d_*.deb)
changes=$(ls "$tmp"/srv6d_*.changes)
echo "deb.sh: built $(basename "$deb")"

npass=0 nfail=0
bad() {
	echo "FAIL - $*"
	nfail=$((nfail + 1))
}
good() {
	echo "ok   - $*"
	npass=$((npass + 1))
}

# lintian (it warns that it runs as root: not a finding)
if lintian --fail-on error,warning "$changes" >"$tmp/lintian.log" 2>&1; then
	good "lintian: no error, no warning"
else
	grep -v 'root privileges' "$tmp/lintian.log"
	bad "lintian found errors or warnings"
fi

# What the package holds: dpkg-deb -c.
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd)
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/sbin/srv6d /usr/bin/srv6ctl "$unitdir/srv6d.service" \
	/usr/lib/sysusers.d/srv6d.conf /etc/srv6d/srv6d.conf \
	/usr/share/man/man8/srv6d.8.gz /usr/share/man/man8/srv6ctl.8.gz \
	/usr/share/man/man5/srv6d.conf.5.gz \
	/usr/share/doc/srv6d/README.md /usr/share/doc/srv6d/BENCHMARKS.md \
	/usr/share/doc/srv6d/copyright /usr/share/doc/srv6d/examples/srv6d.conf; do
	if grep -qxF "$f" "$tmp/files"; then
		good "holds $f"
	else
		bad "does not hold $f"
	fi
done

# Its control part: dpkg-deb -I.
dpkg-deb -I "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\): //p' |
	sed 's/^/     /'
# The files under /etc: srv6d's config and the name of its routing
# protocol for iproute2 (rt_protos.d), nothing else.
conffiles=$(dpkg-deb -I "$deb" conffiles | sort | tr '\n' ' ')
if [ "$conffiles" = "/etc/iproute2/rt_protos.d/srv6d.conf /etc/srv6d/srv6d.conf " ]; then
	good "conffiles: /etc/srv6d/srv6d.conf and /etc/iproute2/rt_protos.d/srv6d.conf, alone"
else
	bad "conffiles: '$conffiles'"
fi
postinst=$(dpkg-deb -I "$deb" postinst)
if printf '%s\n' "$postinst" | grep -q '^ *systemd-sysusers .*srv6d\.conf'; then
	good "postinst creates the srv6d user (systemd-sysusers srv6d.conf)"
else
	bad "postinst does not run systemd-sysusers srv6d.conf"
fi
if printf '%s\n' "$postinst" | grep -Eq 'invoke-rc\.d|systemctl .*start|deb-systemd-invoke'; then
	bad "postinst starts the unit"
else
	good "postinst does not start the unit"
fi
# an enable only under "if deb-systemd-helper --quiet was-enabled" (an
# upgrade keeps the admin's choice), never on a first install
if printf '%s\n' "$postinst" | awk '
	/deb-systemd-helper enable/ && prev !~ /was-enabled/ { bad = 1 }
	$0 !~ /^[[:space:]]*(#|$)/ { prev = $0 }
	END { exit bad }'; then
	good "postinst enables the unit only where it was enabled before"
else
	bad "postinst enables the unit on install"
fi
# The unit and the binaries name the same paths (as configure gave them).
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./${unitdir#/}/srv6d.service" >"$tmp/unit"
if grep -qx 'ExecStart=/usr/sbin/srv6d -c /etc/srv6d/srv6d.conf -s /run/srv6d/srv6d.sock' "$tmp/unit"; then
	good "the unit runs /usr/sbin/srv6d with /etc/srv6d/srv6d.conf and /run/srv6d/srv6d.sock"
else
	grep '^ExecStart=' "$tmp/unit"
	bad "the unit's ExecStart="
fi
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP" && cp "$tmp"/*.deb "$KEEP"/
	echo "deb.sh: kept in $KEEP"
fi
echo "deb.sh: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
