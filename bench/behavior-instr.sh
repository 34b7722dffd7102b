#!/bin/bash
# behavior-instr.sh - instructions per packet of each SID behavior against
# End's, counted by callgrind: a figure that does not move with the load
# of a shared machine, where bench/behavior-cost's nanoseconds do.
#
#   top_builddir=$PWD bench/behavior-instr.sh [PACKETS]    (default 20000)
#
# Each run of bench/behavior-cost (PACKETS packets a row, one round)
# counts only what srv6_process() executes (--toggle-collect): the
# put-back of the packet, the verdict and the kernel are not in it.  The
# run without a row selected processes End's packets alone, so End's
# figure is its count / PACKETS; a row's is (its run's count - that) /
# PACKETS.  A proxy's "back" row runs after its "to service" row (End.AD
# learns its headers there): it is counted as the pair less the latter.
# The OAM rows (RFC 9259) are left out: their copies follow the clock
# (oam-rate), which callgrind slows; behavior-cost times them.
set -euo pipefail
B=${top_builddir:-.}/bench/behavior-cost
N=${1:-20000}
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
[ -x "$B" ] || { echo "$B: build it first (make bench/behavior-cost)" >&2; exit 1; }

ir() {	# total Ir of srv6_process() for a run selecting row "$1"
	local out
	out=$(mktemp)
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect=srv6_process "$B" "$N" 1 "$1" >/dev/null 2>&1
	callgrind_annotate "$out" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
	rm -f "$out"
}

labels=$(grep -o '{ "[^"]*", b_' "$(dirname "$0")/behavior-cost.c" |
	sed 's/{ "\(.*\)", b_/\1/' | tail -n +3 | grep -v -i 'oam\|O-flag\|End.OP')
base=$(ir "=no such row")
end=$((base / N))
printf '# behavior-instr: instructions per packet in srv6_process(), %s packets a row\n' "$N"
printf '%-24s %8s %8s\n' behavior instr "x End"
printf '%-24s %8d %8.2f\n' End "$end" 1
declare -A seen
while IFS= read -r l; do
	case $l in
	*" back")	# the pair (substring match), less the way there
		p=${l% back}
		v=$(( ($(ir "$p") - base) / N - ${seen["$p to service"]} )) ;;
	*)	v=$(( ($(ir "=$l") - base) / N )) ;;
	esac
	seen["$l"]=$v
	printf '%-24s %8d %8.2f\n' "$l" "$v" "$(echo "$v / $end" | bc -l)"
done <<<"$labels"
