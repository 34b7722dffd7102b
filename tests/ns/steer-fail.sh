#!/bin/bash
# steer-fail.sh - `steering auto` whose rules cannot be installed at start
# refuses to run (fail closed: unsteered, tenant packets would follow the
# kernel's routes natively).  The failure is made by a table ip6 srv6d
# that another process owns (nft's `flags owner`: nobody else may delete
# it, EPERM).  Checked: srv6d exits non-zero at start, says why and what
# to do, and leaves the owner's table; once the owner is gone srv6d
# starts, its steering installed; after its stop no table srv6d is left.
T=steer-fail
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 60
need_srv6d
need_tools nft
STEERING=auto

printf 'queue 0\nsid fc00:1::e/128 action End\nsteering auto\n' >"$TMPD/srv6d.conf"
ns_setup || { fail "topology setup"; ns_finish; }

# the owner: an interactive nft holding its socket (and so the table)
mkfifo "$TMPD/nft.in"
ip netns exec "$GW" nft -i <"$TMPD/nft.in" >"$TMPD/nft.out" 2>&1 &
OWNER=$!
exec 3>"$TMPD/nft.in"
echo 'add table ip6 srv6d { flags owner; }' >&3
for _ in $(seq 1 40); do
	nsx "$GW" nft list tables 2>/dev/null | grep -q "ip6 srv6d" && break
	sleep 0.05
done
if nsx "$GW" nft delete table ip6 srv6d 2>/dev/null; then
	fail "the owner's table could be deleted: this kernel does not refuse"
fi

if srv6d_start "$TMPD/srv6d.conf" 2>/dev/null; then
	fail "srv6d runs although its steering could not be installed"
	srv6d_stop
else
	pass "srv6d refuses to start when its steering cannot be installed"
fi
if grep -q "steering: installing the rules of table srv6d: Operation not permitted: refusing to run unsteered (fail closed; with rules of your own, 'steering no')" "$LOG"; then
	pass "it says why, and what to do"
else
	fail "no such error in its log: $(grep -i steering "$LOG" | tr '\n' ' ')"
fi
expect_eq "the owner's table is left as it was" \
	"$(nsx "$GW" nft list tables | grep -c "ip6 srv6d")" 1

# the owner goes: its table with it
exec 3>&-
wait "$OWNER"
expect_eq "the owner gone, its table too" \
	"$(nsx "$GW" nft list tables | grep -c srv6d)" 0
if srv6d_start "$TMPD/srv6d.conf"; then
	pass "srv6d starts now"
	expect_eq "its steering installed" \
		"$(ctl_get "s['steering']['state']")" installed
	expect_eq "the batch counter counts the rules' batch only (not the probe's)" \
		"$(ctl_get "s['steering']['batches']")" 1
	srv6d_stop || fail "srv6d stop"
else
	fail "srv6d does not start once the table is free"
fi
expect_eq "after the stop no table srv6d" \
	"$(nsx "$GW" nft list tables | grep -c srv6d)" 0
ns_finish
