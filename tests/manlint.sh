#!/bin/sh
# manlint.sh - the man pages are clean mdoc and match the code.
#
#  1. `mandoc -Tlint -Wwarning` says nothing about man/*.[58] (style
#     notes about manuals of other packages not installed here are not
#     counted; cross-references between srv6d's own pages are checked
#     below instead).
#  2. What the code knows, the pages say: every srv6d and srv6ctl option
#     letter (their getopt strings), every srv6ctl command (its commands[]
#     table), every exit status (EXIT_* / DAEMON_EXIT_* values), every
#     signal srv6d handles, every config directive, SID attribute and
#     behavior (config.c's tables), every drop reason (stats.c) and every
#     worker counter of the JSON documents (ctl_json.c).
#  3. Every examples/*.conf and the default config (etc/srv6d.conf, as
#     make fills it in) parse (srv6d -t), when srv6d is built.
#  4. The pages name no file of the source tree: what they cite is
#     installed (README.md and BENCHMARKS.md by their path in docdir).
#
# The pages are those of the build tree (man/*.[58], filled in from their
# .in by make with the configured paths).  Exit 77 (skipped) when mandoc
# is not installed or the pages are not made.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
cd "$top_srcdir" || exit 1
MANDOC=${MANDOC:-mandoc}
command -v "$MANDOC" >/dev/null 2>&1 || {
	echo "manlint.sh: SKIP: mandoc not found (apt-get install mandoc)"
	exit 77
}
MAN=$top_builddir/man
for page in srv6d.8 srv6ctl.8 srv6d.conf.5; do
	[ -f "$MAN/$page" ] || {
		echo "manlint.sh: SKIP: $MAN/$page not made (make)"
		exit 77
	}
done

npass=0
nfail=0
ok() { npass=$((npass + 1)); }
bad() {
	nfail=$((nfail + 1))
	echo "FAIL - $*"
}

SRV6D8=$MAN/srv6d.8
SRV6CTL8=$MAN/srv6ctl.8
CONF5=$MAN/srv6d.conf.5

# ---- 1. mandoc -Tlint --------------------------------------------------------
for page in "$SRV6D8" "$SRV6CTL8" "$CONF5"; do
	out=$("$MANDOC" -Tlint -Wwarning "$page" 2>&1)
	if [ -z "$out" ]; then
		ok
	else
		bad "mandoc -Tlint $page:"
		echo "$out" | sed 's/^/     /'
	fi
done
# .Xr to srv6d's own pages: only pages that exist.
for page in "$SRV6D8" "$SRV6CTL8" "$CONF5"; do
	grep -o '^\.Xr srv6[a-z.]* [0-9]' "$page" | sort -u |
	while read -r _ name sec; do
		[ -f "$MAN/$name.$sec" ] || echo "$page: .Xr $name $sec"
	done >"${TMPDIR:-/tmp}/manlint.$$"
	if [ -s "${TMPDIR:-/tmp}/manlint.$$" ]; then
		bad "cross-references to missing pages:"
		sed 's/^/     /' "${TMPDIR:-/tmp}/manlint.$$"
	else
		ok
	fi
	rm -f "${TMPDIR:-/tmp}/manlint.$$"
done

# ---- 2. the pages match the code ------------------------------------------------

# need PAGE WHAT REGEX: the page has a line matching the extended REGEX.
need() {
	if grep -Eq "$3" "$1"; then
		ok
	else
		bad "$1 does not document $2"
	fi
}

# Option letters of a getopt() string in FILE.
opt_letters() {
	sed -n 's/.*getopt(argc, argv, "\([^"]*\)").*/\1/p' "$1" |
		tr -d ':' | fold -w1
}

for l in $(opt_letters src/daemon/main.c); do
	need "$SRV6D8" "option -$l" "^\.It Fl $l( |$)"
	need "$SRV6D8" "option -$l in SYNOPSIS" "^\.Op Fl [a-zA-Z]*$l|^\.Op Fl $l( |$)"
done
for l in $(opt_letters src/client/srv6ctl.c); do
	need "$SRV6CTL8" "option -$l" "^\.It Fl $l( |$)"
	need "$SRV6CTL8" "option -$l in SYNOPSIS" "^\.Op Fl [a-zA-Z]*$l|^\.Op Fl $l( |$)"
done

# srv6ctl commands: the names in commands[].
cmds=$(sed -n '/^} commands\[\] = {/,/^};/p' src/client/srv6ctl.c |
	sed -n 's/^[[:space:]]*{ "\([a-z]*\)".*/\1/p')
[ -n "$cmds" ] || bad "no command found in src/client/srv6ctl.c (extraction broken)"
for c in $cmds; do
	need "$SRV6CTL8" "command '$c'" "^\.It Cm $c( |$)"
done

# Exit statuses: every value, under .Sh EXIT STATUS.
exit_section() {
	sed -n '/^\.Sh EXIT STATUS/,/^\.Sh /p' "$1"
}
ctl_exits="0 $(sed -n 's/^#define EXIT_[A-Z_]*[[:space:]]*\([0-9][0-9]*\).*/\1/p' src/client/srv6ctl.c)"
for v in $ctl_exits; do
	if exit_section "$SRV6CTL8" | grep -q "^\.It $v$"; then
		ok
	else
		bad "$SRV6CTL8 EXIT STATUS lacks $v"
	fi
done
d_exits=$(sed -n 's/^#define DAEMON_EXIT_[A-Z_]*[[:space:]]*\([0-9][0-9]*\).*/\1/p' src/daemon/daemon.h)
[ -n "$d_exits" ] || bad "no DAEMON_EXIT_* in src/daemon/daemon.h (extraction broken)"
for v in $d_exits; do
	if exit_section "$SRV6D8" | grep -q "^\.It $v$"; then
		ok
	else
		bad "$SRV6D8 EXIT STATUS lacks $v"
	fi
done

# Signals srv6d handles.
sigs=$(sed -n 's/.*sigaddset(&set, \(SIG[A-Z]*\)).*/\1/p' src/daemon/daemon.c)
[ -n "$sigs" ] || bad "no signal found in src/daemon/daemon.c (extraction broken)"
for s in $sigs; do
	need "$SRV6D8" "signal $s" "^\.It .*Dv $s( |,|$)"
done

# Config directives, SID attributes, behaviors.
dirs=$(sed -n '/^} directives\[\] = {/,/^};/p' src/config/config.c |
	sed -n 's/^[[:space:]]*{ "\([a-z0-9-]*\)".*/\1/p')
[ -n "$dirs" ] || bad "no directive found in src/config/config.c (extraction broken)"
for d in $dirs; do
	need "$CONF5" "directive '$d'" "Ic $d( |$)"
done
attrs=$(sed -n '/sid_attr_names\[[A-Z_]*\] = {/,/};/p' src/config/config.c |
	grep -o '"[a-z0-9-]*"' | tr -d '"')
[ -n "$attrs" ] || bad "no SID attribute found in src/config/config.c (extraction broken)"
for a in $attrs; do
	need "$CONF5" "SID attribute '$a'" "Cm $a( |$)"
done
bhvs=$(sed -n 's/^[[:space:]]*\.name = "\([^"]*\)",.*/\1/p' src/config/behavior_table.c)
[ -n "$bhvs" ] || bad "no behavior found in src/config/behavior_table.c (extraction broken)"
for b in $bhvs; do
	need "$CONF5" "behavior '$b'" "Cm (action )?$b( |$)"
done

# Drop reasons and worker counters, in srv6ctl(8)'s JSON description.
reasons=$(sed -n 's/^[[:space:]]*\[DROP_[A-Z0-9_]*\] = "\([a-z0-9_]*\)".*/\1/p' src/common/stats.c)
[ -n "$reasons" ] || bad "no drop reason found in src/common/stats.c (extraction broken)"
for r in $reasons; do
	need "$SRV6CTL8" "drop reason '$r'" "^\.(It )?Li $r( |,|$)"
done
fields=$(sed -n '/^#define WORKER_STATS_FIELDS/,/^$/p' src/daemon/ctl_json.c |
	grep -o 'X([a-z_]*)' | sed 's/X(\(.*\))/\1/')
[ -n "$fields" ] || bad "no worker counter found in src/daemon/ctl_json.c (extraction broken)"
for f in $fields; do
	need "$SRV6CTL8" "counter '$f'" "^\.Li $f( |,|$)"
done

# ---- 3. the example configurations parse --------------------------------------
SRV6D=${top_builddir:-$top_srcdir}/src/srv6d
if [ -x "$SRV6D" ]; then
	for f in examples/*.conf "$top_builddir/etc/srv6d.conf"; do
		if out=$("$SRV6D" -t -c "$f" 2>&1); then
			ok
		else
			bad "srv6d -t -c $f:"
			echo "$out" | sed 's/^/     /'
		fi
	done
else
	echo "manlint.sh: $SRV6D not built: examples not parsed"
fi

# ---- 4. no file of the source tree cited ----------------------------------------
for page in "$SRV6D8" "$SRV6CTL8" "$CONF5"; do
	cites=$(grep -nE '(^|[ (])(README|BENCHMARKS)\.md|(^|[ (])(docs|tests|bench|src|examples)/' \
		"$page")
	if [ -n "$cites" ]; then
		bad "$page cites files that are not installed:"
		echo "$cites" | sed 's/^/     /'
	else
		ok
	fi
	if grep -n '@[a-z]*@' "$page"; then
		bad "$page: placeholders left"
	else
		ok
	fi
done

echo "manlint.sh: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
