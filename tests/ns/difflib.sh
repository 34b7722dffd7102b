# shellcheck shell=bash disable=SC2034,SC2086
# difflib.sh - what the differential tests (diff-*.sh) share: the same
# packets through the kernel's seg6/seg6local (phase 1) and through srv6d
# (phase 2), compared.  Source after lib.sh.
#
# A script lists its cases with diff_def, its kernel routes in KROUTES
# (`ip` arguments, "-6 route add ..."), then:
#   diff_kernel_routes fail|skip; diff_run KOUT [check]   phase 1
#   diff_srv6d_begin; (start srv6d); diff_run SOUT        phase 2
#   diff_same NAME [none-ok]                              per same case
ORDER=()
KROUTES=()
declare -A CLASS DESC KWORDS SWORDS ARGS KOUT SOUT

# diff_def NAME CLASS DESC KWORDS SWORDS ARGS...
#   CLASS same: srv6d must produce the kernel's bytes;
#         icmp: both answer with an ICMP error, fields SWORDS must match on
#               both sides, byte differences are reported (not failed);
#         rfc:  the kernel drops silently, srv6d answers with SWORDS.
#   KWORDS: "LABEL word..." the kernel's frame must show, or "none".
#   ARGS: pkt_xchg's arguments (the packet).
diff_def() {
	local n=$1
	ORDER+=("$n")
	CLASS[$n]=$2 DESC[$n]=$3 KWORDS[$n]=$4 SWORDS[$n]=$5
	shift 5
	ARGS[$n]="$*"
}

check_words() {	# desc out "LABEL words..." or "none"
	local w=$3
	if [ "$w" = none ]; then
		expect_none "$1: dropped" "$2"
	else
		expect_fields "$1" "$2" $w
	fi
}

# diff_kernel_routes fail|skip: add KROUTES in the gateway; one the kernel
# or iproute2 refuses is a failure, or with skip a skipped case.
diff_kernel_routes() {
	local r
	for r in "${KROUTES[@]}"; do
		ip -n "$GW" $r 2>"$TMPD/ip.err" && continue
		if [ "$1" = skip ]; then
			skip_case "kernel: iproute2 cannot express '$r': $(cat "$TMPD/ip.err")"
		else
			fail "kernel: iproute2/kernel refuses '$r': $(cat "$TMPD/ip.err")"
		fi
	done
}

# diff_run KOUT|SOUT [check]: send every case, keep what left; with check
# (phase 1), each kernel output is checked against its KWORDS.
diff_run() {
	local -n out=$1
	local n
	for n in "${ORDER[@]}"; do
		out["$n"]=$(pkt_xchg --tag "$n" ${ARGS[$n]})
		[ "${2:-}" = check ] &&
			check_words "kernel: ${DESC[$n]}" "${out["$n"]}" "${KWORDS[$n]}"
	done
}

# diff_srv6d_begin: phase 2 (skipped, exit 77, when srv6d is not built):
# the kernel's routes and tunnel source go.
diff_srv6d_begin() {
	local r
	if [ ! -x "$SRV6D" ] || [ ! -x "$SRV6CTL" ]; then
		say "srv6d is not built ($SRV6D): phase 2 skipped"
		[ "$NFAIL" -eq 0 ] && { echo "$T: $NPASS checks passed, 0 failed"; exit 77; }
		ns_finish
	fi
	say "phase 2: srv6d"
	for r in "${KROUTES[@]}"; do
		ip -n "$GW" ${r/ add / del } 2>/dev/null
	done
	nsx "$GW" ip sr tunsrc set ::
}

# diff_same NAME [none-ok]: srv6d left the kernel's bytes for case NAME
# (with none-ok, both leaving nothing where the kernel's KWORDS is none
# counts as the same).
diff_same() {
	local n=$1 k=${KOUT[$1]} s=${SOUT[$1]}
	if [ "$k" = "$s" ] && { [ -n "$k" ] ||
		{ [ "${2:-}" = none-ok ] && [ "${KWORDS[$n]}" = none ]; }; }; then
		pass "same bytes: ${DESC[$n]}"
	else
		fail "same bytes: ${DESC[$n]}"
		echo "     kernel:"
		_explain "$k" | sed 1d
		echo "     srv6d:"
		_explain "$s" | sed 1d
	fi
}
