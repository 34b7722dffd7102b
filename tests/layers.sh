#!/bin/sh
# layers.sh - the sources' include graph is the architecture, checked.
#
#  1. No circle between modules.  A module is a header and the sources
#     that implement it: foo.h with foo.c, and foo_bar.c when there is no
#     foo_bar.h (behavior_end.c is behavior.h's).  A circle (a includes b,
#     b includes ... a) is reported with its modules.
#  2. No folder of src/ includes a header of a higher layer:
#        common < config < srv6, route < io < daemon < client
#     (srv6 and route side by side: the packet path asks the route
#     mirror, the daemon's rules know nothing of SRv6).  The exceptions
#     the tree needs today are listed in ALLOWED with the reason.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir/src" || exit 1

# folder:header pairs a lower folder may include from a higher one.
#   io/pktsock.h: rtrules.c checks, before it sets up a SID's veth pair,
#               that this process can open the packet socket the workers
#               will send into it with (a clear error at start, not a
#               drop per packet later).
ALLOWED="route:io/pktsock.h"

rank() {
	case $1 in
	common) echo 0 ;; config) echo 1 ;; srv6|route) echo 2 ;;
	io) echo 3 ;; daemon) echo 4 ;; client) echo 5 ;; *) echo 9 ;;
	esac
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

nfail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
	from=$(module "$f")
	dir=${f%%/*}
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		h=$(where "$inc")
		[ -n "$h" ] || continue
		to=$(module "$h")
		[ "$to" = "$from" ] || echo "$from $to" >>"$edges"
		hdir=${h%%/*}
		if [ "$(rank "$hdir")" -gt "$(rank "$dir")" ]; then
			case " $ALLOWED " in
			*" $dir:$h "*) ;;
			*) echo "layers.sh: FAIL: $f includes $h (higher)"
			   nfail=$((nfail + 1)) ;;
			esac
		fi
	done
done
# tsort names the modules of every circle it meets on stderr.
if ! sort -u "$edges" | tsort >/dev/null 2>"$edges.loop"; then
	echo "layers.sh: FAIL: modules include each other in a circle:"
	grep -v 'input contains a loop' "$edges.loop" | sed 's/^tsort: /  /'
	nfail=$((nfail + 1))
fi
rm -f "$edges.loop"
[ "$nfail" -eq 0 ] || exit 1
echo "layers.sh: PASS: $(sort -u "$edges" | wc -l) module edges, no circle, layers kept"
