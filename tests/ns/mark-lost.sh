#!/bin/bash
# mark-lost.sh - a mark that does not survive never leaks a packet (issue
# 19 item 3, src/route/markguard.h): srv6d hands the kernel's End
# (kernel-end) and seg6 encap (kernel-encap) their super-packets by
# mark; a rule after srv6d's hook that rewrites the mark must not send
# them to the main table un-rewritten or unencapsulated.
#
#   gen (iperf3) -> gw (srv6d: End fc00:100::1, policy fd00:8::/64 encap
#   segs fc00:9::d6) -> s1 (kernel End.DT6 fc00:9::d6; iperf3 servers
#   fd00:9::1 and fd00:8::1)
#
# The leak: the gateway's main table sends the SID prefix and the
# customer prefix to sink2 (s2), which counts what arrives for the SID
# and the customer (un-rewritten End packets, unencapsulated customer
# packets); frames leaving the gateway by gw2 are counted too.
# Disturbances, each under a 2 s transfer of each way:
# - `ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark`
#   (full mask: the connection's mark 0 replaces srv6d's);
# - an operator's `MARK --set-mark 0x1` (for the SID and customer
#   prefixes) and `ip -6 rule priority 100
#   fwmark 0x1/0x1 lookup 50` (table 50: default to sink2), srv6d's
#   rule-priority 90 before it.
# Checks, for each: nothing arrives at sink2 and no frame leaves by gw2;
# each transfer keeps >= 50% of its undisturbed bytes; srv6d's End falls
# back to userspace (status kernel_end held, holds 1 more), logged once;
# a ping to the SID is answered.  The disturbance removed, within 1 s the
# hold ends without a reload and the End goes to the kernel again (kend
# counts, the catch table counts nothing new).  After the stop no catch
# rule or route of srv6d's is left, and an operator's rule identical to
# its catch (another protocol) is.
T=mark-lost
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 300
need_srv6d
need_tools iperf3 ethtool nstat tcpdump tshark ping
PRIO=90

ns_setup || { fail "topology setup"; ns_finish; }
tcp_end_setup
tcp_end_via fc00:100::1 || fail "seg6 encap route at gen"
# the customer: fd00:8::1 behind s1's End.DT6 (table 255), plain from gen
nsx "$S1" ip -6 addr add fd00:8::1/128 dev lo
nsx "$S1" iperf3 -s -D -B fd00:8::1 >/dev/null 2>&1
nfq_steer6 fd00:8::/64 || fail "NFQUEUE rule for the customer"
# the leak: the SID and customer prefixes by main to sink2, counted there
nsx "$GW" ip -6 route replace fc00:100::/32 via fc00:3::2 dev gw2 &&
	nsx "$GW" ip -6 route replace fd00:8::/64 via fc00:3::2 dev gw2 ||
	fail "leak routes"
nsx "$S2" ip6tables -t raw -A PREROUTING -d fc00:100::1/128 -j DROP &&
	nsx "$S2" ip6tables -t raw -A PREROUTING -d fd00:8::1/128 -j DROP ||
	fail "sink2's counting rules"
nsx "$GW" ip -6 route add default via fc00:3::2 dev gw2 table 50 ||
	fail "table 50"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:3::1
rule-priority $PRIO
sid fc00:100::1/128 action End
route fd00:8::/64 encap seg6 mode encap segs fc00:9::d6
EOF
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

M1=$(nsx "$GW" ip -6 route show table all | awk '/^fc00:100::1 .*seg6local action End / { for (i = 1; i < NF; i++) if ($i == "table") print $(i + 1) }' | sort -n | head -1)
C1=$((M1 + 65536))	# its catch table (markguard_catch_table())
[ -n "$M1" ] || fail "no seg6local route at start"
say "kernel-end: $(ctl_get "s['kernel_end']['why']"), kernel-encap: $(ctl_get "s['kernel_encap']['why']")"
expect_eq "a catch rule for the SID right after srv6d's fwmark rules" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 1)) | grep -c "to fc00:100::1 lookup $C1 proto \(srv6d\|93\)")" 1
expect_eq "a catch rule for the customer prefix to its encapsulation's table" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 1)) | grep -c "to fd00:8::/64 lookup [0-9]* proto \(srv6d\|93\)")" 1
nsx "$GW" ip -6 route show table $C1 | sed "s/^/$T:   table $C1: /"
expect_eq "the catch table holds the SID's seg6local End and its blackhole" \
	"$(nsx "$GW" ip -6 route show table $C1 | grep -c "^fc00:100::1 .*encap seg6local action End.T table main \|^blackhole fc00:100::1 ")" 2

# transfer NAME DST: a 2 s transfer to DST captured leaving by gw2 (the
# leak's way); sets BYTES, FRAMES (what left by gw2), SINK (sink2's count
# for DST's way) and prints a line.
transfer() {
	local s0 s1c k=fc00:100::1
	[ "$2" = fd00:8::1 ] && k=fd00:8::1
	s0=$(sink_count "$S2" "$k")
	BYTES=$(tcp_transfer "$TMPD/$1.pcap" gw2 \
		"ip6 dst net fc00:100::/32 or ip6 dst net fd00:8::/64" -6 "$2")
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

# ---- undisturbed ---------------------------------------------------------
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

# released: wait (2 s at most) for the hold to end; print how long.
released() {
	local t0 t1
	t0=$(date +%s%N)
	while [ "$(ctl_get "s['kernel_end']['held']")" = True ]; do
		t1=$(date +%s%N)
		if [ $(((t1 - t0) / 1000000)) -gt 2000 ]; then
			fail "$1: kernel-end still held 2 s after"
			return 1
		fi
		sleep 0.05
	done
	t1=$(date +%s%N)
	if [ $(((t1 - t0) / 1000000)) -le 1000 ]; then
		pass "$1: kernel-end released $(((t1 - t0) / 1000000)) ms after (<= 1 s)"
	else
		fail "$1: kernel-end released $(((t1 - t0) / 1000000)) ms after (> 1 s)"
	fi
	return 0
}

# disturbed LABEL: the checks under a disturbance that is in place, then
# UNDO (a command string) removes it and the checks after.
disturbed() {
	local label=$1 undo=$2 h0 l0 l1 kd0 c0 kd c ip
	h0=$(ctl_get "s['kernel_end']['holds']")
	l0=$(grep -c "reached routing without srv6d's mark" "$LOG")
	transfer "$label-end" fd00:9::1
	no_leak "$label: End"
	rate "$label: End" "$BASE_END"
	expect_eq "$label: kernel-end held once (status holds)" \
		"$(ctl_get "s['kernel_end']['holds']")" $((h0 + 1))
	l1=$(grep -c "reached routing without srv6d's mark" "$LOG")
	expect_eq "$label: logged once" $((l1 - l0)) 1
	if nsx "$GEN" ping -6 -c 3 -i 0.2 -W 1 fc00:100::1 >/dev/null 2>&1; then
		pass "$label: a ping to the SID is answered"
	else
		fail "$label: a ping to the SID is not answered"
	fi
	transfer "$label-encap" fd00:8::1
	no_leak "$label: encapsulation"
	# kernel-encap's catch is not watched (seg6 encap routes count
	# nothing): under a mark the operator routes by, the caught packets
	# are encapsulated but routed by the operator's rule (markguard.h)
	if [ "$label" = restore-mark ]; then
		rate "$label: encapsulation" "$BASE_ENC"
	else
		say "$label: encapsulation: $BYTES bytes of $BASE_ENC (not held: not asserted)"
	fi
	# the disturbance removed under a 4 s transfer: within 1 s (a second
	# of the watch) the End goes to the kernel again, no reload
	nsx "$GEN" timeout 20 iperf3 -6 -c fd00:9::1 -t 4 -J >"$TMPD/$label-4s.json" 2>/dev/null &
	ip=$!
	sleep 1.5
	eval "$undo"
	released "$label removed under a transfer" || { wait $ip; return; }
	wait $ip
	BYTES=$("$PYTHON" -c 'import json,sys
try: print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"]))
except Exception: print(0)' "$TMPD/$label-4s.json")
	rate "$label, removed under a 4 s transfer" $((2 * BASE_END))
	kd0=$(ctl_get "s['totals']['kend']")
	read -r c0 _ <<<"$(route_packets "$C1")"
	transfer "$label-after" fd00:9::1
	no_leak "$label removed"
	rate "$label removed" "$BASE_END"
	kd=$(($(ctl_get "s['totals']['kend']") - kd0))
	read -r c _ <<<"$(route_packets "$C1")"
	[ "$kd" -gt 10 ] && pass "$label removed: the End goes to the kernel again ($kd)" ||
		fail "$label removed: kend $kd"
	expect_eq "$label removed: the catch table took nothing" $((c - c0)) 0
	expect_eq "$label removed: no reload" "$(grep -c 'reload' "$LOG")" 0
}

# ---- CONNMARK --restore-mark ---------------------------------------------
nsx "$GW" ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark ||
	fail "CONNMARK rule"
disturbed restore-mark \
	'nsx "$GW" ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark'

# ---- an operator's MARK and fwmark rule -----------------------------------
nsx "$GW" ip6tables -t mangle -A PREROUTING -d fc00:100::/32 -j MARK --set-mark 0x1 &&
	nsx "$GW" ip6tables -t mangle -A PREROUTING -d fd00:8::/64 -j MARK --set-mark 0x1 &&
	nsx "$GW" ip -6 rule add priority 100 fwmark 0x1/0x1 lookup 50 ||
	fail "the operator's MARK and rule"
disturbed operator-mark \
	'nsx "$GW" ip6tables -t mangle -D PREROUTING -d fc00:100::/32 -j MARK --set-mark 0x1 &&
	 nsx "$GW" ip6tables -t mangle -D PREROUTING -d fd00:8::/64 -j MARK --set-mark 0x1'
expect_eq "the operator's rule is left alone by srv6d" \
	"$(nsx "$GW" ip -6 rule show priority 100 | grep -c "fwmark 0x1/0x1 lookup 50")" 1
nsx "$GW" ip -6 rule del priority 100 fwmark 0x1/0x1 lookup 50

# an operator's rule identical to srv6d's catch (another protocol): left
nsx "$GW" ip -6 rule add priority $((PRIO + 1)) to fc00:100::1/128 lookup $C1 proto static ||
	fail "the operator's rule like the catch"
srv6d_stop || fail "srv6d exit"
expect_eq "no catch rule of srv6d's left after it stops" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 1)) | grep -vc "proto static")" 0
expect_eq "the operator's rule identical to the catch is left alone" \
	"$(nsx "$GW" ip -6 rule show priority $((PRIO + 1)) | grep -c "to fc00:100::1 lookup $C1 proto static")" 1
expect_eq "no catch table route left after srv6d stops" \
	"$(nsx "$GW" ip -6 route show table $C1 2>/dev/null | wc -l)" 0
ns_finish
