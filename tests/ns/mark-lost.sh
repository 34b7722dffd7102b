#!/bin/bash
# mark-lost.sh - a mark that does not survive never leaks a packet (issue
# 19 item 3, src/route/markguard.h): srv6d hands the kernel's End
# (kernel-end) and seg6 encap (kernel-encap) their super-packets by
# mark; a rule after srv6d's hook that rewrites the mark must not send
# them to the main table un-rewritten or unencapsulated, and srv6d takes
# them back to its own ways within 1 s until the marks survive again.
#
#   gen (iperf3) -> gw (srv6d: End fc00:100::1, policy fd00:8::/64 encap
#   segs fc00:9::d6) -> s1 (kernel End.DT6 fc00:9::d6; iperf3 servers
#   fd00:9::1, fd00:8::1 and fd00:7::1)
#   gen g1 -> gwt: a tenant's link, its packets looked up in table 200
#   (`iif gwt lookup 200`, its underlay in main as l3vpn.sh's), whose
#   policy fd00:7::/64 table 200 encapsulates the same way
#
# srv6d's own steering (STEERING=auto): kernel-encap's catch is watched
# by the counters of its steering tables' guard chain (markguard.h).
#
# The leak: the gateway's main table sends the SID prefix and the
# customer prefix to sink2 (s2), table 200 the tenant's prefix; s2
# counts what arrives for the SID, the customer and the tenant
# (un-rewritten End packets, unencapsulated customer or tenant packets);
# frames leaving the gateway by gw2 are counted too.  Disturbances, each
# under a 2 s transfer of each way:
# - `ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark`
#   (full mask: the connection's mark 0 replaces srv6d's), the tenant's
#   transfer too;
# - an operator's `MARK --set-mark 0x1` (for the SID, customer and
#   End.DT6 result prefixes) and `ip -6 rule priority 100
#   fwmark 0x1/0x1 lookup 50` (table 50: default to sink2), srv6d's
#   rule-priority 90 before it.
# - the same restore-mark with a rule that also clears skb->priority
#   (nft, prerouting priority 0): the mark's second carrier lost too, to
#   mark 0 (the probe: `zeroed`); the End's packets get their SID's mark
#   back from the guard's G0K, the kernel's End goes on;
# - at a core MTU of 9000 (kernel-encap hands over the original by
#   mark) the same, and an operator's `MARK --set-mark 0x1` on all but
#   the core's packets with the priority cleared (the probe: `lost`, to
#   a foreign mark): kernel-end held by the probe, the policy's
#   super-packets by srv6d0;
# - the same restore-mark with a priority set before srv6d's hook: the
#   End.DT6 SID's results then go by srv6d0 (seen there), still none
#   leaked;
# Checks, for each: nothing arrives at sink2 and no frame leaves by gw2;
# each transfer keeps >= 50% of its undisturbed bytes; a ping to the SID
# is answered.  The End's hand-off to the kernel (the verdict's mark) is
# not held: the verdict gave its mark again as skb->priority and the
# steering guard's G0P puts it back right before routing (session 11,
# without it: held, srv6d's own End); where the priority is cleared too
# and the mark is 0, G0K gives it back (session 14, without G0K: held
# by the probe, srv6d's own End at 0.50-0.71 of the rate); only a
# foreign mark with the priority cleared holds it (srv6d's own End).  The encapsulations are never held: their inner
# super-packets go into srv6d0 marked and the guard's first rule (G0)
# puts the mark back from the frame's source address, so the guard
# counts nothing and kernel-encap goes on (session 10, without G0: held,
# 0.05-0.41 of undisturbed).  An End.DT6 SID's results (the verdict's
# payload with the SID's mark: table 200's route to sink1, main's to
# sink2) all reach sink1 (session 11, without G0P: every one at sink2
# under restore-mark).  The disturbance removed under transfers of both
# ways, within 1 s any hold ends without a reload and the End and the
# encapsulations go to the kernel (kend and kencap count, the catch
# table and the guard count nothing new).  An operator's rule before srv6d's (priority 50) is
# warned about once and shown in status (rules_before), an `iif lo` one
# is not.  After the stop no catch rule or route of srv6d's is left, and
# an operator's rule identical to its catch (another protocol) is.
T=mark-lost
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 540
need_srv6d
need_tools iperf3 ethtool nstat tcpdump tshark ping nft
PRIO=90
STEERING=auto	# srv6d's own steering: the guard chain is in its tables

ns_setup || { fail "topology setup"; ns_finish; }
tcp_end_setup
nfq_flush	# srv6d's steering queues, not the test's rules
tcp_end_via fc00:100::1 || fail "seg6 encap route at gen"
# the customer: fd00:8::1 behind s1's End.DT6 (table 255), plain from gen
nsx "$S1" ip -6 addr add fd00:8::1/128 dev lo
nsx "$S1" iperf3 -s -D -B fd00:8::1 >/dev/null 2>&1
# the tenant: fd00:7::1 behind the same End.DT6, from gen by g1 -> gwt
nsx "$S1" ip -6 addr add fd00:7::1/128 dev lo
nsx "$S1" iperf3 -s -D -B fd00:7::1 >/dev/null 2>&1
ip -n "$GEN" link add g1 type veth peer name gwt netns "$GW" &&
	ip -n "$GEN" link set g1 up && ip -n "$GW" link set gwt up &&
	ip -n "$GEN" -6 addr add fc00:70::1/64 dev g1 nodad &&
	ip -n "$GW" -6 addr add fc00:70::2/64 dev gwt nodad &&
	_wait_up "$GEN" g1 && _wait_up "$GW" gwt &&
	nsx "$GEN" ip -6 route add fd00:7::/64 via fc00:70::2 dev g1 src fc00:1::1 &&
	nsx "$GW" ip -6 rule add pref 1500 iif gwt to fc00::/16 lookup main &&
	nsx "$GW" ip -6 rule add pref 2000 iif gwt lookup 200 &&
	nsx "$GW" ip -6 rule add pref 2001 iif gwt unreachable &&
	nsx "$GW" ip -6 route add fd00:7::/64 via fc00:3::2 dev gw2 table 200 ||
	fail "the tenant's link and table 200"
for ns_if in "$GEN:g1" "$GW:gwt"; do
	nsx "${ns_if%%:*}" ethtool -K "${ns_if#*:}" gro on >/dev/null 2>&1 ||
		skip_test "ethtool -K ${ns_if#*:} gro on failed"
done
# the leak: the SID and customer prefixes by main to sink2, counted there
nsx "$GW" ip -6 route replace fc00:100::/32 via fc00:3::2 dev gw2 &&
	nsx "$GW" ip -6 route replace fd00:8::/64 via fc00:3::2 dev gw2 ||
	fail "leak routes"
nsx "$S2" ip6tables -t raw -A PREROUTING -d fc00:100::1/128 -j DROP &&
	nsx "$S2" ip6tables -t raw -A PREROUTING -d fd00:8::1/128 -j DROP &&
	nsx "$S2" ip6tables -t raw -A PREROUTING -d fd00:7::1/128 -j DROP ||
	fail "sink2's counting rules"
nsx "$GW" ip -6 route add default via fc00:3::2 dev gw2 table 50 ||
	fail "table 50"
# End.DT6 fc00:100::d6 table 200: its results are the verdict's payload
# with the SID's mark; table 200 sends fd00:66::/64 to sink1, main (the
# leak) to sink2, both count
nsx "$GW" ip -6 route add fd00:66::/64 via fc00:2::2 dev gw1 table 200 &&
	nsx "$GW" ip -6 route add fd00:66::/64 via fc00:3::2 dev gw2 &&
	nsx "$S1" ip6tables -t raw -A PREROUTING -d fd00:66::1/128 -j DROP &&
	nsx "$S2" ip6tables -t raw -A PREROUTING -d fd00:66::1/128 -j DROP &&
	nsx "$GEN" ip -6 route add fd00:66::1/128 encap seg6 mode encap \
		segs fc00:100::d6 via fc00:1::2 dev g0 ||
	fail "the End.DT6 SID's routes"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:3::1
rule-priority $PRIO
sid fc00:100::1/128 action End
sid fc00:100::d6/128 action End.DT6 table 200
route fd00:8::/64 encap seg6 mode encap segs fc00:9::d6
route fd00:7::/64 table 200 encap seg6 mode encap segs fc00:9::d6
EOF
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

M1=$(nsx "$GW" ip -6 route show table all | awk '/^fc00:100::1 .*seg6local action End / { for (i = 1; i < NF; i++) if ($i == "table") print $(i + 1) }' | sort -n | head -1)
C1=$((M1 + 65536))	# its catch table (markguard_catch_table())
[ -n "$M1" ] || fail "no seg6local route at start"
say "kernel-end: $(ctl_get "s['kernel_end']['why']"), kernel-encap: $(ctl_get "s['kernel_encap']['why']")"
say "kernel-encap's catch: $(ctl_get "s['kernel_encap']['watch']")"
nsx "$GW" ip -6 rule | sed "s/^/$T:   /"
expect_eq "a catch rule for the SID right after srv6d's fwmark rules" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 1)) | grep -c "to fc00:100::1 lookup $C1 proto \(srv6d\|93\)")" 1
expect_eq "a catch rule for the customer prefix to its encapsulation's table, after the tenant's" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 3)) | grep -c "to fd00:8::/64 lookup [0-9]* proto \(srv6d\|93\)")" 1
expect_eq "a catch rule for the tenant's prefix by its in-interface" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 1)) | grep -c "to fd00:7::/64 iif gwt lookup [0-9]* proto \(srv6d\|93\)")" 1
expect_eq "the tenant's packets skip the main table's catch (a goto, its target)" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 2)) | grep -c "iif gwt goto $((PRIO + 4)) proto \(srv6d\|93\)"),$(nsx "$GW" ip -6 rule show priority $((PRIO + 4)) | grep -c "nop proto \(srv6d\|93\)")" 1,1
nsx "$GW" nft list chain ip6 srv6d guard 2>&1 | sed "s/^/$T:   /"
expect_eq "the guard chain counts the customer's and the tenant's prefixes" \
	"$(nsx "$GW" nft list chain ip6 srv6d guard 2>/dev/null | grep -c 'daddr fd00:[78]::/64 counter name "kencap_caught" accept')" 3
nsx "$GW" ip -6 route show table $C1 | sed "s/^/$T:   table $C1: /"
expect_eq "the catch table holds the SID's seg6local End and its blackhole" \
	"$(nsx "$GW" ip -6 route show table $C1 | grep -c "^fc00:100::1 .*encap seg6local action End.T table main \|^blackhole fc00:100::1 ")" 2

# transfer NAME DST: a 2 s transfer to DST captured leaving by gw2 (the
# leak's way); sets BYTES, FRAMES (what left by gw2), SINK (sink2's count
# for DST's way) and prints a line.
transfer() {
	local s0 s1c k=fc00:100::1
	case $2 in fd00:[78]::1) k=$2 ;; esac
	s0=$(sink_count "$S2" "$k")
	BYTES=$(tcp_transfer "$TMPD/$1.pcap" gw2 \
		"ip6 dst net fc00:100::/32 or ip6 dst net fd00:8::/64 or ip6 dst net fd00:7::/64" \
		-6 "$2")
	FRAMES=$(tshark -r "$TMPD/$1.pcap" 2>/dev/null | wc -l)
	[ "$FRAMES" = 0 ] || tshark -r "$TMPD/$1.pcap" 2>/dev/null | head -3 | sed "s/^/$T:   /"
	s1c=$(sink_count "$S2" "$k")
	SINK=$((s1c - s0))
	say "$1: $BYTES bytes to $2, $FRAMES frames out by gw2, $SINK packets at sink2"
}

# no_leak LABEL: FRAMES and SINK 0.
no_leak() {
	expect_eq "$1: no packet reached sink2 (un-rewritten or unencapsulated)" "$SINK" 0
	expect_eq "$1: no frame left by the main table's way (gw2)" "$FRAMES" 0
}

# rate LABEL BASE: BYTES >= BASE / 2.
rate() {
	if [ "$BYTES" -ge $(($2 / 2)) ] && [ "$BYTES" -gt 0 ]; then
		pass "$1: $BYTES bytes, >= 50% of $2"
	else
		fail "$1: $BYTES bytes, < 50% of $2"
	fi
}

# guard_packets: what the guard chains counted (both families).
guard_packets() {
	local n6 n4
	n6=$(nsx "$GW" nft list counter ip6 srv6d kencap_caught 2>/dev/null |
		awk '/packets/ { print $2 }')
	n4=$(nsx "$GW" nft list counter ip srv6d kencap_caught 2>/dev/null |
		awk '/packets/ { print $2 }')
	echo $((${n6:-0} + ${n4:-0}))
}

# unmarked_packets: what the guard chains counted with no mark at all
# (kencap_unmarked: the catch is srv6d's result, nothing held).
unmarked_packets() {
	local n6
	n6=$(nsx "$GW" nft list counter ip6 srv6d kencap_unmarked 2>/dev/null |
		awk '/packets/ { print $2 }')
	echo "${n6:-0}"
}

# restore_mark_prio_add: both carriers lost, `CONNMARK --restore-mark`
# (mangle) and an nft rule at prerouting priority 0 that clears the
# priority (table ip6 prioclear)
restore_mark_prio_add() {
	nsx "$GW" ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark &&
		nsx "$GW" nft -f - <<'EOF'
table ip6 prioclear {
	chain pre {
		type filter hook prerouting priority 0; policy accept;
		meta priority set 0
	}
}
EOF
}

# dt6 LABEL: 20 pings by the End.DT6 SID to fd00:66::1 (unanswered: the
# sinks drop them) all reach sink1 by table 200, none sink2 by main.
dt6() {
	local a0 b0 a b
	a0=$(sink_count "$S1" fd00:66::1)
	b0=$(sink_count "$S2" fd00:66::1)
	nsx "$GEN" timeout 5 ping -6 -c 20 -i 0.02 -W 1 fd00:66::1 >/dev/null 2>&1
	sleep 0.3
	a=$(($(sink_count "$S1" fd00:66::1) - a0))
	b=$(($(sink_count "$S2" fd00:66::1) - b0))
	say "$1: End.DT6's results: $a at sink1 (table 200), $b at sink2 (main)"
	expect_eq "$1: End.DT6's results routed by its table, none leaked into main" "$a,$b" 20,0
}

# probe_wait STATE: wait (1 s at most) for the mark probe's state
# (markprobe.h) to be STATE; prints the milliseconds waited, or "never".
probe_wait() {
	local t0 ms
	t0=$(date +%s%N)
	while :; do
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ "$(ctl_get "s['mark_probe']['state']")" = "$1" ] &&
			{ echo "$ms"; return; }
		[ "$ms" -gt 1000 ] && { echo never; return; }
		sleep 0.02
	done
}

# expect_probe LABEL STATE: the probe finds STATE within 1 s.
expect_probe() {
	local ms
	ms=$(probe_wait "$2")
	if [ "$ms" = never ]; then
		fail "$1: the mark probe is not '$2' within 1 s ($(ctl_get "s['mark_probe']"))"
	else
		pass "$1: the mark probe is '$2' within $ms ms"
	fi
}

PROBE_LOST_LOG="mark probe: a rule between srv6d's hook and routing rewrites both the mark and the priority srv6d gives its verdicts: "
PROBE_ZEROED_LOG="mark probe: a rule between srv6d's hook and routing rewrites both the mark and the priority srv6d gives its verdicts, the mark to 0"
PROBE_CARRIED_LOG="mark probe: a rule between srv6d's hook and routing rewrites the mark"

# ---- undisturbed ---------------------------------------------------------
say "the mark probe at start: $(ctl_get "s['mark_probe']")"
expect_probe "undisturbed" kept
expect_eq "undisturbed: the probe's rules queue it first and judge it first in the guard" \
	"$(nsx "$GW" nft list chain ip6 srv6d prerouting 2>/dev/null | grep -A1 'type filter hook prerouting' | tail -1 | grep -c 'iifname "srv6d0" ip6 daddr 100::5d6f:2 queue'),$(nsx "$GW" nft list chain ip6 srv6d guard 2>/dev/null | grep -c 'ip6 daddr 100::5d6f:2 .*counter name "probe_[a-z]*" drop')" 1,4
dt6 undisturbed
transfer base-end fd00:9::1
BASE_END=$BYTES
no_leak "undisturbed End"
kernel_end_reset "$M1" "$S1"
transfer base-encap fd00:8::1
BASE_ENC=$BYTES
no_leak "undisturbed encapsulation"
[ "$(ctl_get "s['totals']['kencap']")" -gt 10 ] &&
	pass "the kernel encapsulated the customer's super-packets" ||
	fail "kencap: $(ctl_get "s['totals']['kencap']")"
transfer base-tenant fd00:7::1
BASE_TEN=$BYTES
no_leak "undisturbed tenant"
expect_eq "undisturbed: nothing held, the guard counted nothing" \
	"$(ctl_get "s['kernel_end']['held'], s['kernel_encap']['mark_held']"),$(guard_packets),$(unmarked_packets)" "(False, False),0,0"
# both ways at once for 4 s, undisturbed: what the End transfer under
# the removal (both at once too) is compared with
nsx "$GEN" timeout 20 iperf3 -6 -c fd00:9::1 -t 4 -J >"$TMPD/base-4s.json" 2>/dev/null &
ip=$!
nsx "$GEN" timeout 20 iperf3 -6 -c fd00:8::1 -t 4 -J >"$TMPD/base-4se.json" 2>/dev/null
wait $ip

# released LABEL: wait (2 s at most) for both holds to end; each's time.
released() {
	local t0 t1 ms e_ms='' n_ms='' st
	t0=$(date +%s%N)
	while :; do
		st=$(ctl_get "s['kernel_end']['held'], s['kernel_encap']['mark_held']")
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		[ -z "$e_ms" ] && [ "${st%%,*}" = "(False" ] && e_ms=$ms
		[ -z "$n_ms" ] && [ "${st##* }" = "False)" ] && n_ms=$ms
		[ -n "$e_ms" ] && [ -n "$n_ms" ] && break
		[ "$ms" -gt 2000 ] && break
		sleep 0.05
	done
	for w in "kernel-end:$e_ms" "kernel-encap:$n_ms"; do
		if [ -z "${w#*:}" ]; then
			fail "$1: ${w%%:*} still held 2 s after"
		elif [ "${w#*:}" -le 1000 ]; then
			pass "$1: ${w%%:*} released ${w#*:} ms after (<= 1 s)"
		else
			fail "$1: ${w%%:*} released ${w#*:} ms after (> 1 s)"
		fi
	done
}

# bytes4 FILE: the bytes an iperf3 -J run received.
bytes4() {
	"$PYTHON" -c 'import json,sys
try: print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"]))
except Exception: print(0)' "$1"
}

BASE_BOTH_END=$(bytes4 "$TMPD/base-4s.json")
say "undisturbed, both ways at once for 4 s: End $BASE_BOTH_END bytes, encapsulation $(bytes4 "$TMPD/base-4se.json") bytes"

END_LOG="packets for its SIDs reached routing without srv6d's mark"
ENC_LOG="packets for its policies reached routing without srv6d's mark"
BARE_LOG="packets for its policies reached routing with no mark at all"

# disturbed LABEL UNDO LOST: the checks under a disturbance that is in
# place, then UNDO (a command string) removes it and the checks after.
# LOST: `zeroed` where both carriers are lost to mark 0 (the priority
# cleared too), else 0.
disturbed() {
	local label=$1 undo=$2 lost=$3 h0 e0 l0 kd0 ke0 c0 g0 r0 kd ke c ip ip2
	h0=$(ctl_get "s['kernel_end']['holds']")
	e0=$(ctl_get "s['kernel_encap']['holds']")
	r0=$(ctl_get "s['kernel_end']['restored']")
	l0=$(grep -c "$END_LOG" "$LOG")
	g0=$(guard_packets)
	read -r c0 _ <<<"$(route_packets "$C1")"
	if [ "$lost" = 0 ]; then
		expect_probe "$label" "${probe:-kept}"
	else
		expect_probe "$label" zeroed
		expect_eq "$label: the probe's fallback on, not foreign, logged once" \
			"$(ctl_get "s['mark_probe']['fallback'], s['mark_probe']['foreign']"),$(grep -c "$PROBE_ZEROED_LOG" "$LOG")" "(True, False),1"
	fi
	transfer "$label-end" fd00:9::1
	no_leak "$label: End"
	rate "$label: End" "$BASE_END"
	read -r c _ <<<"$(route_packets "$C1")"
	if [ "$lost" = 0 ]; then
		# the mark put back from the priority (G0P): the kernel's End
		# goes on, nothing caught
		expect_eq "$label: kernel-end not held, nothing logged (holds, log lines)" \
			"$(ctl_get "s['kernel_end']['holds']"),$(($(grep -c "$END_LOG" "$LOG") - l0))" "$h0,0"
	else
		# the mark cleared with the priority: the guard's G0K gives
		# the End's packets their SID's mark back, the kernel's End
		# goes on at its speed, its catch takes nothing, nothing is
		# held (session 14, the probe's `lost` then: held by it,
		# srv6d's own End at 0.50-0.71 of the rate)
		expect_eq "$label: kernel-end not held, its catch took nothing (held, holds, caught, log lines)" \
			"$(ctl_get "s['kernel_end']['held'], s['kernel_end']['holds']"),$((c - c0)),$(($(grep -c "$END_LOG" "$LOG") - l0))" "(False, $h0),0,0"
		r=$(($(ctl_get "s['kernel_end']['restored']") - r0))
		[ "$r" -gt 10 ] &&
			pass "$label: the guard gave $r End packets their SID's mark back (G0K)" ||
			fail "$label: kernel_end restored $r"
	fi
	# End.DT6's results: by the priority (G0P), or, the probe lost, by
	# srv6d0 (G0); either way by table 200 (session 12, both carriers
	# lost: no catch, every one by main)
	dt6 "$label"
	if nsx "$GEN" ping -6 -c 3 -i 0.2 -W 1 fc00:100::1 >/dev/null 2>&1; then
		pass "$label: a ping to the SID is answered"
	else
		fail "$label: a ping to the SID is not answered"
	fi
	transfer "$label-encap" fd00:8::1
	no_leak "$label: encapsulation"
	# its inner super-packets go into srv6d0 marked, and the guard's G0
	# puts the mark back from their source address right before
	# routing: the kernel encapsulates them at its speed, not held
	# (session 10, without G0: held, srv6d cut them, 0.05-0.41)
	rate "$label: encapsulation (the mark put back, not held)" "$BASE_ENC"
	transfer "$label-tenant" fd00:7::1
	no_leak "$label: the tenant's encapsulation (table 200)"
	# (without the tenant's catch the flow moved 57,288 bytes)
	rate "$label: the tenant's encapsulation (the mark put back)" "$BASE_TEN"
	expect_eq "$label: kernel-encap not held, the guard counted nothing (holds, mark_held, guard)" \
		"$(ctl_get "s['kernel_encap']['holds'], s['kernel_encap']['mark_held']"),$(($(guard_packets) - g0))" "($e0, False),0"
	# the disturbance removed under 4 s transfers of both ways: within
	# 1 s both go to the kernel again, no reload
	nsx "$GEN" timeout 20 iperf3 -6 -c fd00:9::1 -t 4 -J >"$TMPD/$label-4s.json" 2>/dev/null &
	ip=$!
	nsx "$GEN" timeout 20 iperf3 -6 -c fd00:8::1 -t 4 -J >"$TMPD/$label-4se.json" 2>/dev/null &
	ip2=$!
	sleep 1.5
	eval "$undo"
	released "$label removed under transfers"
	expect_probe "$label removed" kept
	wait $ip $ip2
	BYTES=$(bytes4 "$TMPD/$label-4s.json")
	say "$label removed: 4 s End transfer $BYTES bytes, encapsulation $(bytes4 "$TMPD/$label-4se.json") bytes (both at once)"
	rate "$label, removed under 4 s transfers (both ways at once): End" "$BASE_BOTH_END"
	BYTES=$(bytes4 "$TMPD/$label-4se.json")
	say "$label, removed under 4 s transfers: encapsulation $BYTES bytes (not asserted)"
	kd0=$(ctl_get "s['totals']['kend']")
	ke0=$(ctl_get "s['totals']['kencap']")
	read -r c0 _ <<<"$(route_packets "$C1")"
	g0=$(guard_packets)
	transfer "$label-after" fd00:9::1
	no_leak "$label removed: End"
	rate "$label removed: End" "$BASE_END"
	transfer "$label-after-encap" fd00:8::1
	no_leak "$label removed: encapsulation"
	say "$label removed: encapsulation $BYTES bytes of $BASE_ENC undisturbed (not asserted: a flow that lost packets to table 50 recovers slowly)"
	kd=$(($(ctl_get "s['totals']['kend']") - kd0))
	ke=$(($(ctl_get "s['totals']['kencap']") - ke0))
	read -r c _ <<<"$(route_packets "$C1")"
	[ "$kd" -gt 10 ] && pass "$label removed: the End goes to the kernel again ($kd)" ||
		fail "$label removed: kend $kd"
	[ "$ke" -gt 10 ] && pass "$label removed: the encapsulations go to the kernel again ($ke)" ||
		fail "$label removed: kencap $ke"
	expect_eq "$label removed: the catch table and the guard took nothing" \
		"$((c - c0)),$(($(guard_packets) - g0))" 0,0
	expect_eq "$label removed: no reload" "$(grep -c 'reload' "$LOG")" 0
}

# ---- CONNMARK --restore-mark ---------------------------------------------
nsx "$GW" ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark ||
	fail "CONNMARK rule"
probe=carried disturbed restore-mark \
	'nsx "$GW" ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark' 0
expect_eq "restore-mark: the probe said once that the priority carries the mark" \
	"$(grep -c "$PROBE_CARRIED_LOG" "$LOG")" 1

# ---- restore-mark, and the priority cleared: both carriers lost ----------
# (to mark 0: the probe says `zeroed`; the End's packets get their mark
# back from the guard's G0K, its encapsulations by srv6d0's G0)
restore_mark_prio_add || fail "CONNMARK and the priority-clearing rule"
disturbed restore-mark-prio \
	'nsx "$GW" ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark &&
	 nsx "$GW" nft delete table ip6 prioclear' zeroed
expect_eq "restore-mark-prio removed: the probe's fallback off, the recovery logged" \
	"$(ctl_get "s['mark_probe']['fallback']"),$(grep -c "mark probe: srv6d's marks reach routing again" "$LOG")" "False,1"
expect_eq "the probe's counts in status: kept, carried and zeroed probes, none lost to a foreign mark, one loss" \
	"$(ctl_get "[s['mark_probe'][k] > 0 for k in ('kept', 'carried', 'zeroed', 'lost')], s['mark_probe']['losses'], s['mark_probe']['send_errors']")" "([True, True, True, False], 1, 0)"

# ---- a core MTU of 9000: kernel-encap hands over the original by mark ----
# The sender's segments fit gw1 (9000) with the encapsulation: srv6d
# hands the kernel's seg6 the original super-packet with the list's mark
# (the verdict's: REINJECT_KERNEL), not its inner packet by srv6d0.
# With both carriers lost (the probe: lost) the policy, of one list,
# still hands over the original by the mark: the mark restored to 0,
# the catch (`to fd00:8::/64 lookup` the list's table) encapsulates it
# as the kernel would, counted apart (kencap_unmarked), nothing held, at
# the kernel's speed (session 13's first try sent the inner packets by
# srv6d0 instead: 0.65-0.71 of the undisturbed rate, against 0.93-1.02 so).  A
# policy of several lists goes by srv6d0 then (check_egress
# test_kencap_facts): its catch has the first list only.
nsx "$GW" ip link set gw1 mtu 9000 && nsx "$S1" ip link set s1 mtu 9000 ||
	fail "MTU 9000 on gw1 and s1"
inj() { ctl_get "s['totals']['injected']"; }
i0=$(inj) k0=$(ctl_get "s['totals']['kencap']")
transfer core-encap fd00:8::1
BASE_CORE=$BYTES
no_leak "core MTU 9000, undisturbed encapsulation"
i1=$(inj) k1=$(ctl_get "s['totals']['kencap']")
say "core MTU 9000: $((k1 - k0)) encapsulations by the kernel, $((i1 - i0)) results injected"
[ $((k1 - k0)) -gt 10 ] && [ $((i1 - i0)) -lt $(((k1 - k0) / 2)) ] &&
	pass "core MTU 9000: the kernel encapsulates the originals handed over by mark ($((k1 - k0)) kencap, $((i1 - i0)) injected)" ||
	fail "core MTU 9000: kencap $((k1 - k0)), injected $((i1 - i0))"
restore_mark_prio_add ||
	fail "CONNMARK and the priority-clearing rule (core MTU)"
expect_probe "core MTU 9000, restore-mark-prio" zeroed
g0=$(guard_packets) u0=$(unmarked_packets) e0=$(ctl_get "s['kernel_encap']['holds']")
i0=$(inj) k0=$(ctl_get "s['totals']['kencap']")
transfer core-encap-prio fd00:8::1
no_leak "core MTU 9000, restore-mark-prio: encapsulation"
rate "core MTU 9000, restore-mark-prio: encapsulation (the originals by the catch)" "$BASE_CORE"
i1=$(inj) k1=$(ctl_get "s['totals']['kencap']") u1=$(unmarked_packets)
say "core MTU 9000, both carriers lost: $((k1 - k0)) encapsulations by the kernel, $((i1 - i0)) results injected, $((u1 - u0)) caught unmarked"
expect_eq "core MTU 9000, restore-mark-prio: nothing caught with a foreign mark, kernel-encap not held (guard, holds, mark_held)" \
	"$(($(guard_packets) - g0)),$(ctl_get "s['kernel_encap']['holds'], s['kernel_encap']['mark_held']")" "0,($e0, False)"
[ $((k1 - k0)) -gt 10 ] && [ $((i1 - i0)) -lt $(((k1 - k0) / 2)) ] &&
	[ $((u1 - u0)) -gt 10 ] &&
	pass "core MTU 9000, restore-mark-prio: one list's originals still by the mark, the catch encapsulates them ($((k1 - k0)) kencap, $((i1 - i0)) injected, $((u1 - u0)) unmarked)" ||
	fail "core MTU 9000, restore-mark-prio: kencap $((k1 - k0)), injected $((i1 - i0)), unmarked $((u1 - u0))"
nsx "$GW" ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark
nsx "$GW" nft delete table ip6 prioclear
expect_probe "core MTU 9000, restore-mark-prio removed" kept

# ---- both carriers lost to a foreign mark ----------------------------------
# An operator's `MARK --set-mark 0x1` on what does not come from the core
# (the probe's packets from srv6d0 too) and the priority cleared: the
# probe says `lost`, foreign.  kernel-end is held by it (the catch would
# route the kernel's result by the foreign mark, which an operator's
# rule may route by), and the policy of one list has its super-packets
# go as inner packets by srv6d0, whose G0 puts their mark back: never
# the original by the mark, whose catch would count it and hold
# kernel-encap (session 14: caught and held, srv6d cut every
# super-packet, 0.21-0.41 of the rate).  No operator rule routes by 0x1
# here: the End's rate under srv6d's own End (0.5-0.8 on this 2-core box)
# is printed, not asserted; the issue's disturbances above assert it.
# (2 s after the last recovery: a loss sooner is the same disturbance,
# not logged again, markprobe.h)
sleep 2.1
nsx "$GW" ip6tables -t mangle -A PREROUTING ! -i gw1 -j MARK --set-mark 0x1 &&
	nsx "$GW" nft -f - <<'EOF' || fail "the foreign MARK and the priority-clearing rule"
table ip6 prioclear {
	chain pre {
		type filter hook prerouting priority 0; policy accept;
		meta priority set 0
	}
}
EOF
expect_probe "core MTU 9000, foreign mark" lost
expect_eq "core MTU 9000, foreign mark: the probe's fallback on, foreign, logged once" \
	"$(ctl_get "s['mark_probe']['fallback'], s['mark_probe']['foreign']"),$(grep -c "$PROBE_LOST_LOG" "$LOG")" "(True, True),1"
h0=$(ctl_get "s['kernel_end']['holds']")
read -r c0 _ <<<"$(route_packets "$C1")"
transfer core-foreign-end fd00:9::1
no_leak "core MTU 9000, foreign mark: End"
read -r c _ <<<"$(route_packets "$C1")"
say "core MTU 9000, foreign mark: End $BYTES bytes of $BASE_END undisturbed by srv6d's own End (not asserted)"
expect_eq "core MTU 9000, foreign mark: kernel-end held by the probe, its catch took nothing (held, holds, caught)" \
	"$(ctl_get "s['kernel_end']['held'], s['kernel_end']['holds']"),$((c - c0))" "(True, $h0),0"
g0=$(guard_packets) e0=$(ctl_get "s['kernel_encap']['holds']")
i0=$(inj) k0=$(ctl_get "s['totals']['kencap']")
transfer core-foreign-encap fd00:8::1
no_leak "core MTU 9000, foreign mark: encapsulation"
# the rate against the same way undisturbed (BASE_ENC: the inner packets
# by srv6d0 at MTU 1500), not against the hand-off by mark (BASE_CORE),
# which is faster (0.49-1.05 of it here)
rate "core MTU 9000, foreign mark: encapsulation (the inner packets by srv6d0, against the undisturbed srv6d0 way)" "$BASE_ENC"
i1=$(inj) k1=$(ctl_get "s['totals']['kencap']")
say "core MTU 9000, foreign mark: $((k1 - k0)) encapsulations by the kernel, $((i1 - i0)) inner packets by srv6d0"
expect_eq "core MTU 9000, foreign mark: nothing caught, kernel-encap not held (guard, holds, mark_held)" \
	"$(($(guard_packets) - g0)),$(ctl_get "s['kernel_encap']['holds'], s['kernel_encap']['mark_held']")" "0,($e0, False)"
[ $((k1 - k0)) -gt 10 ] && [ $((i1 - i0)) -gt $(((k1 - k0) / 2)) ] &&
	pass "core MTU 9000, foreign mark: one list's super-packets by srv6d0, not by the mark ($((k1 - k0)) kencap, $((i1 - i0)) injected)" ||
	fail "core MTU 9000, foreign mark: kencap $((k1 - k0)), injected $((i1 - i0))"
nsx "$GW" ip6tables -t mangle -D PREROUTING ! -i gw1 -j MARK --set-mark 0x1
nsx "$GW" nft delete table ip6 prioclear
expect_probe "core MTU 9000, foreign mark removed" kept
nsx "$GW" ip link set gw1 mtu 1500 && nsx "$S1" ip link set s1 mtu 1500 ||
	fail "MTU 1500 again"

# ---- restore-mark, and a priority set before srv6d's hook ----------------
# (nft, prerouting priority -300): the packet comes with a priority of its
# own, so the verdict's mark gets no second carrier; the End.DT6 SID's
# results go by srv6d0 instead, whose frames carry the mark for G0
nsx "$GW" ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark &&
	nsx "$GW" nft -f - <<'EOF' || fail "CONNMARK and the priority-setting rule"
table ip6 prioset {
	chain pre {
		type filter hook prerouting priority -300; policy accept;
		ip6 daddr fc00:100::d6 meta priority set 1:1
	}
}
EOF
nsx "$GW" timeout 10 tcpdump -i srv6d0 -n -s 0 -w "$TMPD/prioset.pcap" -c 100 "ip6 dst fd00:66::1" >/dev/null 2>&1 &
tp=$!
sleep 1
dt6 "restore-mark, a priority set before srv6d's hook"
sleep 0.3
kill -INT $tp 2>/dev/null
wait $tp 2>/dev/null
expect_eq "a priority set before srv6d's hook: End.DT6's results went by srv6d0 (frames seen)" \
	"$(tshark -r "$TMPD/prioset.pcap" 2>/dev/null | wc -l)" 20
nsx "$GW" ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark
nsx "$GW" nft delete table ip6 prioset

# ---- an operator's MARK and fwmark rule -----------------------------------
nsx "$GW" ip6tables -t mangle -A PREROUTING -d fc00:100::/32 -j MARK --set-mark 0x1 &&
	nsx "$GW" ip6tables -t mangle -A PREROUTING -d fd00:8::/64 -j MARK --set-mark 0x1 &&
	nsx "$GW" ip6tables -t mangle -A PREROUTING -d fd00:66::/64 -j MARK --set-mark 0x1 &&
	nsx "$GW" ip -6 rule add priority 100 fwmark 0x1/0x1 lookup 50 ||
	fail "the operator's MARK and rule"
disturbed operator-mark \
	'nsx "$GW" ip6tables -t mangle -D PREROUTING -d fc00:100::/32 -j MARK --set-mark 0x1 &&
	 nsx "$GW" ip6tables -t mangle -D PREROUTING -d fd00:8::/64 -j MARK --set-mark 0x1 &&
	 nsx "$GW" ip6tables -t mangle -D PREROUTING -d fd00:66::/64 -j MARK --set-mark 0x1' 0
expect_eq "the operator's rule is left alone by srv6d" \
	"$(nsx "$GW" ip -6 rule show priority 100 | grep -c "fwmark 0x1/0x1 lookup 50")" 1
expect_eq "the operator's rule after srv6d's is not warned about" \
	"$(grep -c "rule priority 100 .*comes before srv6d's rules" "$LOG"),$(ctl_get "len(s['rules_before'])")" 0,0
nsx "$GW" ip -6 rule del priority 100 fwmark 0x1/0x1 lookup 50

# ---- an operator's rule before srv6d's -------------------------------------
# priority 50 < rule-priority 90: it comes before srv6d's fwmark and catch
# rules; warned once, in status while it is there; an `iif lo` rule (no
# forwarded packet matches it) is not
nsx "$GW" ip -6 rule add priority 50 fwmark 0x1/0x1 lookup 50 ||
	fail "the operator's rule at 50"
sleep 0.5
nsx "$GW" ip -6 rule add priority 60 iif lo lookup 50 || fail "the iif lo rule"
sleep 0.5
grep "comes before srv6d's rules" "$LOG" | sed "s/^/$T:   /"
expect_eq "a rule before srv6d's: warned once" \
	"$(grep -c "IPv6 rule priority 50 fwmark 0x1/0x1 lookup 50 .*comes before srv6d's rules" "$LOG")" 1
expect_eq "a rule before srv6d's: in status (rules_before), the iif lo one not" \
	"$(ctl_get "[(r['priority'], r['rule']) for r in s['rules_before']]")" "[(50, 'fwmark 0x1/0x1 lookup 50')]"
nsx "$GW" ip -6 rule del priority 60 iif lo lookup 50
nsx "$GW" ip -6 rule del priority 50 fwmark 0x1/0x1 lookup 50
sleep 0.5
expect_eq "the rule gone: not in status any more" \
	"$(ctl_get "len(s['rules_before'])")" 0

# an operator's rule identical to srv6d's catch (another protocol): left
nsx "$GW" ip -6 rule add priority $((PRIO + 1)) to fc00:100::1/128 lookup $C1 proto static ||
	fail "the operator's rule like the catch"
srv6d_stop || fail "srv6d exit"
expect_eq "no catch rule of srv6d's left after it stops" \
	"$(nsx "$GW" ip -6 rule | grep -c "proto \(srv6d\|93\)")" 0
expect_eq "the operator's rule identical to the catch is left alone" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 1)) | grep -c "to fc00:100::1 lookup $C1 proto static")" 1
expect_eq "no catch table route left after srv6d stops" \
	"$(nsx "$GW" ip -6 route show table $C1 2>/dev/null | wc -l)" 0
expect_eq "no table srv6d (steering, guard) left after srv6d stops" \
	"$(nsx "$GW" nft list tables 2>/dev/null | grep -c srv6d)" 0

ns_finish
