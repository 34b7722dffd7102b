#!/bin/sh
# layers.sh - the architecture, checked on the sources' includes and on
# the built objects' symbols.
#
#  1. No circle between modules.  A module is a header and the sources
#     that implement it: foo.h with foo.c, and foo_bar.c when there is no
#     foo_bar.h (behavior_end.c is behavior.h's).  A circle (a includes b,
#     b includes ... a) is reported with its modules.
#  2. No folder of src/ includes a header of a higher layer:
#        common < config < srv6, route < io < daemon < client
#     nor one of the folder beside it (srv6 and route side by side: the
#     packet path asks the route mirror, the daemon's rules know nothing
#     of SRv6).  The exceptions the tree needs today are listed in
#     ALLOWED with the reason.
#  3. The same at link level: a symbol that an object of src/<folder>/
#     uses and another object of src/ defines is defined in the same
#     folder, a lower one or one ALLOWED names (the same list as for the
#     includes), and no two modules use each other's symbols in a circle.
#     An include rule alone misses a declaration written where it is
#     used (a table below the packet path naming its functions).  The
#     objects are those of the build tree (top_builddir: the source tree
#     itself, or a VPATH build's): libtool keeps the ones of libsrv6d.la
#     in src/<folder>/ (libsrv6d_la-foo.o, and in src/<folder>/.libs/ when
#     it builds them shared), the programs' beside them.  The test skips
#     (77) when a source's object is not built or is older than it, and
#     only then.
set -u
LC_ALL=C; export LC_ALL	# sort and join agree on the order
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
NM=${LAYERS_NM:-nm}
cd "$top_srcdir/src" || exit 1

# folder:folder/name pairs: what a folder may include (name.h) and link
# (name.c's symbols) of a higher folder or of the one beside it.
#   srv6:route/egress, srv6:route/rtmirror, srv6:route/fib,
#   srv6:route/kpolicy: the packet path asks the route mirror (route, next
#               hop, link, MTU, source address; the steering table; the
#               FIB's lookups; the kernel's seg6 routes' policies); the
#               rest of route (the rules and routes srv6d owns) is not
#               the packet path's, and route uses nothing of srv6.
ALLOWED="srv6:route/egress srv6:route/rtmirror srv6:route/fib \
srv6:route/kpolicy"

rank() {
	case $1 in
	common) echo 0 ;; config) echo 1 ;; srv6|route) echo 2 ;;
	io) echo 3 ;; daemon) echo 4 ;; client) echo 5 ;; *) echo 9 ;;
	esac
}

# May a file of folder $1 use folder $2's header or source named $3?
# Prints nothing when it may, else why not (higher, beside).
refused() {
	[ "$1" != "$2" ] || return 0
	case " $ALLOWED " in *" $1:$2/$3 "*) return 0 ;; esac
	r1=$(rank "$1"); r2=$(rank "$2")
	if [ "$r2" -gt "$r1" ]; then echo higher
	elif [ "$r2" -eq "$r1" ]; then echo beside
	fi
}

# The folder/header of every header, by its name.
headers=$(find . -name '*.h' | sed 's|^\./||' | sort)
where() {
	printf '%s\n' "$headers" | grep "/$1\$" | head -n 1
}

# Module of a file: its header's name without .h.
module() {
	b=$(basename "$1"); b=${b%.*}
	while :; do
		if [ -n "$(where "$b.h")" ]; then echo "$b"; return; fi
		case $b in *_*) b=${b%_*} ;; *) basename "${1%.*}"; return ;; esac
	done
}

# circle EDGES WHAT: tsort names the modules of every circle it meets on
# stderr; a FAIL line for them.  Returns 1 on a circle.
circle() {
	if ! sort -u "$1" | tsort >/dev/null 2>"$1.loop"; then
		echo "layers.sh: FAIL: modules $2 in a circle:"
		grep -v 'input contains a loop' "$1.loop" | sed 's/^tsort: /  /'
		rm -f "$1.loop"
		return 1
	fi
	rm -f "$1.loop"
}

nfail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
edges=$tmp/include-edges

# ---- 1, 2: the includes
for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
	from=$(module "$f")
	dir=${f%%/*}
	# shellcheck disable=SC2013 # an include's name is one word
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		h=$(where "$inc")
		[ -n "$h" ] || continue
		to=$(module "$h")
		[ "$to" = "$from" ] || echo "$from $to" >>"$edges"
		hname=$(basename "$h" .h)
		why=$(refused "$dir" "${h%%/*}" "$hname")
		if [ -n "$why" ]; then
			echo "layers.sh: FAIL: $f includes $h ($why)"
			nfail=$((nfail + 1))
		fi
	done
done
circle "$edges" "include each other" || nfail=$((nfail + 1))
nincludes=$(sort -u "$edges" | wc -l)

# ---- 3: the objects' symbols
# The object of source src/$1 in the build tree (its path there), or
# nothing when there is none as new as the source: the program's, else
# libsrv6d.la's, else another target's (a test that compiles a source
# again, such as check_egress's counting gso.c).
object_of() {
	d=$top_builddir/src/${1%/*}; b=$(basename "$1" .c)
	for o in "$d/$b.o" "$d/libsrv6d_la-$b.o" "$d/.libs/libsrv6d_la-$b.o" \
		 "$d"/*-"$b.o" "$d"/.libs/*-"$b.o"; do
		[ -f "$o" ] || continue
		[ -z "$(find "$1" -newer "$o")" ] || return
		echo "${o#"$top_builddir"/}"
		return
	done
}

# "symbol folder name module object" for every symbol of kind $1 (-u:
# used and not defined, --defined-only: defined) of every object.
symbols() {
	while read -r o src; do
		d=${src%%/*}; n=$(basename "$src" .c); m=$(module "$src")
		"$NM" -P -g "$1" "$top_builddir/$o" >"$tmp/nm" || return 1
		awk -v d="$d" -v n="$n" -v m="$m" -v o="$o" \
			'{ print $1, d, n, m, o }' "$tmp/nm"
	done <"$tmp/objects" >"$tmp/symbols" || return 1
	sort -k1,1 "$tmp/symbols"
}

: >"$tmp/objects"
for src in $(find . -name '*.c' | sed 's|^\./||' | sort); do
	o=$(object_of "$src")
	if [ -z "$o" ]; then
		echo "layers.sh: SKIP: the link-level check needs the objects:" \
		     "src/$src is not built in $top_builddir (or is newer" \
		     "than its object): run make"
		[ "$nfail" -eq 0 ] || exit 1
		exit 77
	fi
	echo "$o $src" >>"$tmp/objects"
done
if ! symbols -u >"$tmp/used" ||
   ! symbols --defined-only >"$tmp/defined"; then
	echo "layers.sh: FAIL: $NM cannot read the objects"
	exit 1
fi
# symbol, user's folder name module object, definer's the same
join "$tmp/used" "$tmp/defined" >"$tmp/uses"
: >"$tmp/link-edges"
while read -r sym d n m o dd dn dm dobj; do
	[ "$dm" = "$m" ] || echo "$m $dm" >>"$tmp/link-edges"
	why=$(refused "$d" "$dd" "$dn")
	if [ -n "$why" ]; then
		echo "layers.sh: FAIL: $o uses $sym of $dobj ($why)"
		nfail=$((nfail + 1))
	fi
done <"$tmp/uses"
circle "$tmp/link-edges" "use each other's symbols" || nfail=$((nfail + 1))
[ "$nfail" -eq 0 ] || exit 1
echo "layers.sh: PASS: $nincludes module edges by include," \
     "$(sort -u "$tmp/link-edges" | wc -l) by symbol" \
     "($(wc -l <"$tmp/objects") objects), no circle, layers kept"
