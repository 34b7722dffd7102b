#!/bin/bash
# own.sh - what srv6d puts in the kernel is its own, by a tag, and it
# touches nothing else (issue 19): every rule and route it installs has
# protocol 93 (RTPROT_SRV6D, `proto srv6d` with iproute2's rt_protos.d
# entry), its veth ends the alias srv6d; the sweep at start, reload and
# stop goes by that tag, whatever mark-base or rule-priority was in force.
#
# Before srv6d starts, the gateway holds an operator's objects inside
# srv6d's range: an IPv6 rule at srv6d's priority with a fwmark in the
# range, a `not fwmark` rule, an IPv4 rule with a `from` selector, a rule
# identical to one srv6d makes, a `default via` (both families) in a
# table of the range (also in mark-base's own, where srv6d probes whether
# seg6 routes keep a source), and a veth pair named as srv6d names a VRF
# SID's.
# Checks:
# - with a config of End, End.X, End.DT6, End.DT4, a kernel-encap policy
#   (encap-source) and `kernel-routes yes`: every rule and route srv6d
#   added has protocol 93, its veth ends the alias; the operator's
#   objects are there, unchanged, after the start and after a reload that
#   moves End.X to another next hop; the log has no warning about
#   srv6d's own kernel-end routes (`kernel route ... not applied`), and
#   status counts no kernel SRv6 route;
# - the tunsrc: on a kernel whose seg6 routes take no source of their
#   own (6.18), srv6d sets it to encap-source and records it; changed
#   under srv6d at run time, status says the encapsulations are held back
#   within 1.5 s and the log says so, set back they go to the kernel again;
#   where the routes take one, the tunsrc is never touched;
# - after a stop, `ip rule`, `ip -6 rule`, `ip route show table all`,
#   `ip -6 route show table all`, `ip link` and `ip sr tunsrc` are what
#   they were before the start;
# - kill -9, then a start with another mark-base, rule-priority and
#   encap-source: nothing of the first instance's is left (no rule at the
#   old priority, no route in the old range), kernel-encap is on with the
#   new encap-source (srv6d's own leftover tunsrc is not taken for the
#   operator's), and after its stop the snapshots are the first ones again
#   (the tunsrc the one from before the first start);
# - an operator's route in a table srv6d fills (End.X's) makes the start
#   fail with the reason, and nothing changes.
T=own
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

BASE=$((0x5d6f0000))	# mark-base's default
BASE2=$((0x6d6f0000))	# the restart's
PROTO=93		# RTPROT_SRV6D

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"

conf() {	# MARK-BASE PRIORITY ENCAP-SOURCE END.X-NEXT-HOP
	cat <<EOF
queue 0
mark-base $1
rule-priority $2
encap-source $3
kernel-routes yes
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 $4
sid fc00:100::6/128 action End.DT6 table 100
sid fc00:100::8/128 action End.DT4 table 100
route fc00:9:5::/64 encap seg6 mode encap segs fc00:9::a1,fc00:9::a2
EOF
}
conf 0x5d6f0000 1000 fc00:1::2 fc00:3::2 >"$TMPD/a.conf"
conf 0x5d6f0000 1000 fc00:1::2 fc00:2::2 >"$TMPD/a2.conf"
conf 0x6d6f0000 2000 fc00:3::1 fc00:3::2 >"$TMPD/b.conf"
# End.X is the second SID: its mark and table are mark-base + 2 at start
# (a reload that changes its next hop gives it another); End.DT6's mark
# mark-base + 3 (End takes none).  Under the default mark-mask 0xffff0000
# a mark's rule is `fwmark $(mark_fw N)` (lib.sh): the operator's rule
# identical to End.DT6's names it so.
MX=$((BASE + 2)) MDT6=$((BASE + 3))

# ---- the operator's objects inside srv6d's range ---------------------------
OPT=$((BASE + 0x20))	# a table of the range srv6d does not use here
op_ok=true
{ nsx "$GW" ip -6 rule add priority 1000 fwmark $((BASE + 0x10)) lookup 100 &&
  nsx "$GW" ip -6 rule add priority 1000 not fwmark $((BASE + 0x11)) lookup 250 &&
  nsx "$GW" ip -4 rule add priority 1000 from 10.99.0.0/16 fwmark $((BASE + 0x12)) lookup 100 &&
  nsx "$GW" ip -6 rule add priority 1000 fwmark "$(mark_fw $MDT6)" lookup 100 &&
  nsx "$GW" ip -6 route add default via fc00:2::2 dev gw1 table $OPT &&
  nsx "$GW" ip -4 route add default via 198.51.100.2 dev gw1 table $OPT &&
  nsx "$GW" ip -6 route add default via fc00:3::2 dev gw2 table $BASE &&
  ip -n "$GW" link add srv6d5d6f0030 type veth peer name srv6d5d6f0030t; } ||
	op_ok=false
if $op_ok; then
	pass "the operator's rules, routes and veth pair inside the range made"
else
	fail "cannot make the operator's objects"
fi

# snapshot: everything srv6d could leave behind, one block.
snapshot() {
	echo "== ip rule"; ip -n "$GW" -4 rule show
	echo "== ip -6 rule"; ip -n "$GW" -6 rule show
	echo "== ip route"; ip -n "$GW" -4 route show table all
	echo "== ip -6 route"; ip -n "$GW" -6 route show table all
	echo "== ip link"; ip -n "$GW" -o link show | sed 's/^[0-9]*: //'
	echo "== ip sr tunsrc"; nsx "$GW" ip sr tunsrc show
}
# operator_objects: the operator's objects above, as `ip` prints them.
operator_objects() {
	ip -n "$GW" -6 rule show priority 1000 | grep -v "proto \($PROTO\|srv6d\)"
	ip -n "$GW" -4 rule show priority 1000 | grep -v "proto \($PROTO\|srv6d\)"
	ip -n "$GW" -6 route show table $OPT
	ip -n "$GW" -4 route show table $OPT
	ip -n "$GW" -6 route show table $BASE
	ip -n "$GW" -br link show | awk '$1 ~ /^srv6d5d6f0030/ { print $1 }'
}
# added_untagged BEFORE: rules and routes now present that were not in the
# snapshot BEFORE and do not carry srv6d's protocol (none may; the
# kernel's own for srv6d's devices, proto kernel, aside).
added_untagged() {
	snapshot | awk '/^== ip (rule|-6 rule|route|-6 route)$/ { s = 1; next }
		/^== / { s = 0 } s' | grep -v "proto \($PROTO\|srv6d\|kernel\)" |
		grep -vxF -f <(printf '%s\n' "$1") || true
}
# own_links: srv6d's veth ends (alias srv6d), "NAME" a line.
own_links() {
	ip -n "$GW" -o link show | awk '/ alias srv6d( |$)/ {
		n = $2; sub(/:$/, "", n); sub(/@.*/, "", n); print n }' | sort
}

S0=$(snapshot)
OP0=$(operator_objects)
say "the operator's objects:"; printf '%s\n' "$OP0" | sed "s/^/$T:   /"
expect_eq "the tunsrc before srv6d" "$(nsx "$GW" ip sr tunsrc show)" "tunsrc addr ::"

# ---- start --------------------------------------------------------------------
srv6d_start "$TMPD/a.conf" || { fail "srv6d start"; ns_finish; }
expect_eq "kernel-encap active" "$(ctl_get 's["kernel_encap"]["active"]')" True
expect_eq "kernel-end active" "$(ctl_get 's["kernel_end"]["active"]')" True
n_own=$( { ip -n "$GW" -6 rule; ip -n "$GW" -4 rule; } | grep -c "proto \($PROTO\|srv6d\)")
n_own_rt=$( { ip -n "$GW" -6 route show table all; ip -n "$GW" -4 route show table all; } |
	grep -c "proto \($PROTO\|srv6d\)")
if [ "$n_own" -ge 8 ] && [ "$n_own_rt" -ge 6 ]; then
	pass "srv6d's rules ($n_own) and routes ($n_own_rt) carry protocol $PROTO"
else
	fail "srv6d's rules and routes with protocol $PROTO: $n_own rules, $n_own_rt routes"
	snapshot
fi
bad=$(added_untagged "$S0")
expect_eq "no rule or route srv6d added without its protocol" "$bad" ""
expect_eq "srv6d's veth ends have the alias srv6d" "$(own_links | tr '\n' ' ')" "srv6d0 srv6d0t "
expect_eq "the operator's objects untouched by the start" "$(operator_objects)" "$OP0"
# kernel-routes yes: srv6d's own seg6local routes (kernel-end) are not
# kernel routes to apply or warn about.
expect_eq "no warning about srv6d's own routes" \
	"$(grep -c 'kernel route .* not applied' "$LOG")" 0
expect_eq "kernel routes: none counted" "$(ctl_get 's["kernel_routes"]["routes"]')" 0

# ---- tunsrc --------------------------------------------------------------------
src_kind=$(ctl_get 's["kernel_encap"]["source"]')
if [ "$src_kind" = route ]; then
	expect_eq "encap-source on srv6d's routes: the tunsrc untouched" \
		"$(nsx "$GW" ip sr tunsrc show)" "tunsrc addr ::"
	skip_case "tunsrc changed at run time (this kernel's seg6 routes take their own source)"
else
	expect_eq "the kernel's seg6 routes take no source: the tunsrc is encap-source" \
		"$(nsx "$GW" ip sr tunsrc show)" "tunsrc addr fc00:1::2"
	expect_eq "recorded beside the control socket" \
		"$(grep -v '^#' "$TMPD/srv6d.tunsrc" 2>/dev/null | tr '\n' ' ')" "orig :: set fc00:1::2 "
	expect_eq "encapsulations not held back" "$(ctl_get 's["kernel_encap"]["held"]')" False
	nsx "$GW" ip sr tunsrc set fc00:1::77
	t0=$(date +%s%N)
	held=
	# srv6d polls the tunsrc every 500 ms (TUNSRC_POLL_MS); each
	# ctl_get costs a python and an srv6ctl, hundreds of ms on a loaded
	# machine: 2.5 s (1.5 s before) is five polls
	for _ in $(seq 1 60); do
		held=$(ctl_get 's["kernel_encap"]["held"]')
		[ "$held" = True ] && break
		sleep 0.05
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	say "tunsrc changed: status says held after $ms ms"
	if [ "$held" = True ] && [ "$ms" -le 2500 ]; then
		pass "tunsrc changed under srv6d: held back within 2.5 s ($ms ms)"
	else
		fail "tunsrc changed under srv6d: held $held after $ms ms"
	fi
	expect_eq "status names the kernel's tunsrc" \
		"$(ctl_get 's["kernel_encap"]["kernel_tunsrc"]')" "fc00:1::77"
	expect_eq "logged once" "$(grep -c "tunsrc (ip sr tunsrc) changed under srv6d to fc00:1::77" "$LOG")" 1
	if timeout 5 "$SRV6CTL" -s "$SOCK" status | grep -q "changed under srv6d to fc00:1::77"; then
		pass "srv6ctl status says why the encapsulations are cut"
	else
		fail "srv6ctl status: $(timeout 5 "$SRV6CTL" -s "$SOCK" status | grep kernel-encap)"
	fi
	nsx "$GW" ip sr tunsrc set fc00:1::2
	for _ in $(seq 1 15); do
		held=$(ctl_get 's["kernel_encap"]["held"]')
		[ "$held" = False ] && break
		sleep 0.1
	done
	expect_eq "tunsrc back: the encapsulations go to the kernel again" "$held" False
fi

# ---- a refused reload that would turn kernel-encap off ------------------------
# Its resolve no longer needs the tunsrc, but its install fails (a
# vrftable without its VRF device): the running config, which still
# hands encapsulations to the kernel, keeps srv6d's tunsrc.
if [ "$src_kind" != route ]; then
	cp "$TMPD/a.conf" "$TMPD/a.keep"
	{ cat "$TMPD/a.keep"; echo "kernel-encap no"
	  echo "sid fc00:100::9/128 action End.DT6 vrftable 999"; } >"$TMPD/a.conf"
	if timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null 2>&1; then
		fail "a reload with a vrftable without its VRF device is refused"
	else
		pass "a reload with a vrftable without its VRF device is refused"
	fi
	expect_eq "the refused reload leaves srv6d's tunsrc to the running config" \
		"$(nsx "$GW" ip sr tunsrc show)" "tunsrc addr fc00:1::2"
	expect_eq "kernel-encap still active after the refused reload" \
		"$(ctl_get 's["kernel_encap"]["active"]')" True
	cp "$TMPD/a.keep" "$TMPD/a.conf"
fi

# ---- reload --------------------------------------------------------------------
cp "$TMPD/a2.conf" "$TMPD/a.conf"
if timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null; then
	pass "reload (End.X to another next hop)"
else
	fail "reload refused"
fi
expect_eq "End.X's new table follows the reload" \
	"$(ip -n "$GW" -6 route show table all | grep -c "^default via fc00:2::2 .*proto \($PROTO\|srv6d\)")" 1
expect_eq "the operator's objects untouched by the reload" "$(operator_objects)" "$OP0"
expect_eq "no rule or route without srv6d's protocol after the reload" "$(added_untagged "$S0")" ""

# ---- stop ------------------------------------------------------------------------
srv6d_stop || fail "srv6d stop"
S1=$(snapshot)
if [ "$S1" = "$S0" ]; then
	pass "after the stop: rules, routes, links and tunsrc as before the start"
else
	fail "after the stop, not as before:"
	diff <(echo "$S0") <(echo "$S1") | sed "s/^/$T:   /"
fi
[ -e "$TMPD/srv6d.tunsrc" ] && fail "the tunsrc record is left after the stop"

# ---- kill -9, a start with another mark-base, priority and encap-source ----------
conf 0x5d6f0000 1000 fc00:1::2 fc00:3::2 >"$TMPD/a.conf"
srv6d_start "$TMPD/a.conf" || { fail "srv6d start (before kill -9)"; ns_finish; }
kill -KILL "$SRV6D_PID"
wait "$SRV6D_PID" 2>/dev/null
SRV6D_PID=
left=$(ip -n "$GW" -6 rule show priority 1000 | grep -c "proto \($PROTO\|srv6d\)")
if [ "$left" -gt 0 ] && ip -n "$GW" link show srv6d0 >/dev/null 2>&1; then
	pass "kill -9 left $left IPv6 rules at priority 1000 and srv6d0 (nobody removed them)"
else
	fail "kill -9 left nothing behind: the sweep below tests nothing"
fi
cp "$LOG" "$TMPD/a.log"
srv6d_start "$TMPD/b.conf" || { fail "srv6d start with another mark-base"; ns_finish; }
expect_eq "no rule left at the old priority 1000 but the operator's" \
	"$(ip -n "$GW" -6 rule show priority 1000; ip -n "$GW" -4 rule show priority 1000)" \
	"$(printf '%s\n' "$OP0" | grep '^1000:')"
old_routes=$( { ip -n "$GW" -6 route show table all; ip -n "$GW" -4 route show table all; } |
	awk -v b="$BASE" '{ for (i = 1; i < NF; i++) if ($i == "table" && $(i + 1) ~ /^[0-9]+$/ &&
		$(i + 1) >= b && $(i + 1) < b + 65536) print }' |
	grep -v "table \($OPT\|$BASE\) ")
expect_eq "no route left in the old range's tables but the operator's" "$old_routes" ""
# mark-base 0x6d6f0000's default mark-mask is 0xffff0000 too: its marks
# 0x6d700000/0xffff0000 up
expect_eq "new rules at priority 2000" \
	"$(ip -n "$GW" -6 rule show priority 2000 | grep -c "fwmark 0x[67][0-9a-f]\{7\}/0xffff0000 ")" \
	"$(ip -n "$GW" -6 rule show priority 2000 | grep -c .)"
expect_eq "kernel-encap active with the new encap-source (srv6d's leftover tunsrc is not the operator's)" \
	"$(ctl_get 's["kernel_encap"]["active"]')" True
expect_eq "the operator's objects untouched by the restart" "$(operator_objects)" "$OP0"
expect_eq "srv6d's veth ends after the restart" "$(own_links | tr '\n' ' ')" "srv6d0 srv6d0t "
srv6d_stop || fail "srv6d stop (after the restart)"
S2=$(snapshot)
if [ "$S2" = "$S0" ]; then
	pass "after kill -9, a restart with another mark-base and a stop: as before the first start"
else
	fail "after kill -9, restart and stop, not as before:"
	diff <(echo "$S0") <(echo "$S2") | sed "s/^/$T:   /"
fi

# ---- an operator's route where srv6d needs its own ------------------------------
nsx "$GW" ip -6 route add default via fc00:2::2 dev gw1 table $MX || fail "route in End.X's table"
S3=$(snapshot)
if srv6d_start "$TMPD/a.conf" 2>/dev/null; then
	fail "srv6d started over an operator's route in End.X's table $MX"
	srv6d_stop
else
	pass "srv6d refuses to start over an operator's route in a table it fills"
fi
if grep -q "table $MX ($(printf '%#x' $MX)) holds the IPv6 route ::/0 .*which srv6d did not make" "$LOG"; then
	pass "and says why: $(grep -o "table $MX .*did not make" "$LOG" | head -1)"
else
	fail "no reason logged: $(tail -3 "$LOG")"
fi
S4=$(snapshot)
if [ "$S4" = "$S3" ]; then
	pass "the refused start changed nothing (the operator's route stays)"
else
	fail "the refused start changed:"
	diff <(echo "$S3") <(echo "$S4") | sed "s/^/$T:   /"
fi

ns_finish
