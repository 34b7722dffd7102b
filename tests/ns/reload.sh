#!/bin/bash
# reload.sh - live reload under traffic, and what an operator relies on
# around it: 100 reloads (SIGHUP and `srv6ctl reload`, alternating between
# two configurations that renumber the SIDs and change the daemon's ip
# rules) while steady streams go through an End SID and three End.X SIDs:
# two whose lines are swapped and renumbered by every reload (each packet
# must leave by its own SID's next hop: counted per sink, none misrouted)
# and one whose next hop changes with every reload (to a destination the
# main table does not route: a packet whose mark lost its rule too early
# is lost).  No packet may be lost or left without a verdict because of a
# reload: the sender's count, the gateway's NFQUEUE rule, the kernel's
# queue (id sequence, drops, waiting), srv6d's SID counters (carried over
# every swap) and the sinks must all agree; malformed control requests
# sent meanwhile change nothing.  Then: a bad file changes nothing and `srv6ctl reload` says
# why (file:line, exit 1); members of control-group read but cannot
# reload, others cannot connect; the daemon runs with CAP_NET_ADMIN and
# CAP_NET_RAW only, in every thread; systemd hears READY/RELOADING/STOPPING and keepalives.
T=reload
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 300
need_srv6d
command -v setpriv >/dev/null 2>&1 || skip_test "setpriv (util-linux) missing"

RELOADS=${RELOADS:-100}
RATE=${RATE:-4000}		# packets per second, over the 4 streams
MAXPKTS=${MAXPKTS:-60000}	# the sender stops here at the latest

CGID=4321			# control-group: a group nobody else uses
CONF="$TMPD/srv6d.conf"
A="$TMPD/a.conf"
B="$TMPD/b.conf"
cat >"$A" <<EOF
# reload test, config A: the End SID is index 0; End.X SIDs (ip rules and
# routes in the daemon's tables): ::11 to sink1, ::12 to sink2, ::13 to
# sink1
queue 0
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::11/128 action End.X nh6 fc00:2::2
sid fc00:100::12/128 action End.X nh6 fc00:3::2
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::13/128 action End.X nh6 fc00:2::2
control-group $CGID
EOF
cat >"$B" <<EOF
# reload test, config B: the End SID moves to index 2; ::11 and ::12
# swapped and renumbered (each with its own next hop still), ::13 now to
# sink2; End.T instead of End.X (another rule), and a policy
queue 0
encap-source fc00:1::2
sid fc00:100::2/128 action End flavors psp
sid fc00:100::12/128 action End.X nh6 fc00:3::2
sid fc00:100::1/128 action End
sid fc00:100::11/128 action End.X nh6 fc00:2::2
sid fc00:100::4/128 action End.T table 100
sid fc00:100::13/128 action End.X nh6 fc00:3::2
route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2
control-group $CGID
EOF

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
# The sinks count what arrives for each stream's last segment (and drop
# it): fc00:9::c1 the End SID's (sink1, by the main table), fc00:9::d1
# End.X ::11's (sink1), fc00:9::d2 End.X ::12's (sink2; the main table
# would say sink1), fc00:77::1 End.X ::13's (either sink, by the config in
# force; the main table has no route to it).
sink_count_rules fc00:9::c1 fc00:9::d1 fc00:9::d2 fc00:77::1 ||
	fail "sink counter rules"
# systemd's side of sd_notify(); WATCHDOG_USEC asks for keepalives.
notify_start || fail "the sd_notify listener did not start"
cp "$A" "$CONF"
NOTIFY_SOCKET=$NOTIFY WATCHDOG_USEC=400000 srv6d_start "$CONF" ||
	{ fail "srv6d start"; ns_finish; }
pass "srv6d started (pid $SRV6D_PID)"

# ---- capabilities: CAP_NET_ADMIN (bit 12) and CAP_NET_RAW (bit 13) only,
# in every thread ----------------------------------------------------------------
bad=
for st in /proc/"$SRV6D_PID"/task/*/status; do
	for f in CapEff CapPrm CapInh CapAmb CapBnd; do
		v=$(awk -v f="$f:" '$1 == f { print $2 }' "$st")
		case $f in
		CapInh | CapAmb) want=0000000000000000 ;;
		*) want=0000000000003000 ;;
		esac
		[ "$v" = "$want" ] || bad="$bad ${st#/proc/}:$f=$v"
	done
done
if [ -z "$bad" ]; then
	pass "every thread: CapEff=CapPrm=CapBnd=CAP_NET_ADMIN+CAP_NET_RAW, no inheritable/ambient"
else
	fail "capabilities not reduced:$bad"
fi
nnp=$(awk '$1 == "NoNewPrivs:" { print $2 }' "/proc/$SRV6D_PID/status")
expect_eq "no_new_privs is set" "$nnp" 1

# ---- counters before ----------------------------------------------------------
rule_pkts() { nsx "$GW" ip6tables -t raw -L PREROUTING -v -x -n | awk '/NFQUEUE/ { print $1; exit }'; }
sink_pkts() { sink_count "$S1" fc00:9::c1; }
seq0=$(nfq_stat 8) qd0=$(nfq_stat 6) ud0=$(nfq_stat 7) rule0=$(rule_pkts) sink0=$(sink_pkts)
sidp0=$(ctl_get "sid('fc00:100::1/128')['packets']")
x1p0=$(ctl_get "sid('fc00:100::11/128')['packets']")
x2p0=$(ctl_get "sid('fc00:100::12/128')['packets']")

# ---- traffic + reloads -----------------------------------------------------------
HEX=$(pkt_build --tag reload --src fc00:1::1 --segs fc00:100::1,fc00:9::c1 --ul udp)
HX1=$(pkt_build --tag reloadx1 --src fc00:1::1 --segs fc00:100::11,fc00:9::d1 --ul udp)
HX2=$(pkt_build --tag reloadx2 --src fc00:1::1 --segs fc00:100::12,fc00:9::d2 --ul udp)
HX3=$(pkt_build --tag reloadx3 --src fc00:1::1 --segs fc00:100::13,fc00:77::1 --ul udp)
SENT="$TMPD/sent"
# A steady sender: RATE packets per second, the streams in turn, until
# pkt_paced_stop (MAXPKTS at most); prints how many it sent in all and of
# each stream.
pkt_paced_start "$SENT" "$RATE" "$MAXPKTS" "$HEX" "$HX1" "$HX2" "$HX3" ||
	{ fail "the sender did not start"; ns_finish; }

reloads_done() { ctl_get "s['reloads']"; }
# Malformed requests on the control socket (bad magic, oversized length,
# unknown type): each must get its error reply, while traffic flows.
garbage() {
	"$PYTHON" - "$SOCK" <<'PY'
import socket, struct, sys
def ask(hdr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    s.sendall(hdr)
    h = s.recv(12)
    s.close()
    return struct.unpack("=IHHI", h)[2] if len(h) == 12 else -1
codes = [ask(struct.pack("=IHHI", 0xdeadbeef, 1, 1, 0)),
         ask(struct.pack("=IHHI", 0x53364354, 1, 1, 1 << 30)),
         ask(struct.pack("=IHHI", 0x53364354, 1, 99, 0))]
print(" ".join(map(str, codes)))
PY
}
say "reloading $RELOADS times while $RATE packets/s flow"
t0=$(date +%s.%N)
ctlfail=0 hupfail=0 garbfail=0
for i in $(seq 1 "$RELOADS"); do
	if [ $((i % 10)) -eq 0 ]; then
		[ "$(garbage)" = "1 1 2" ] || garbfail=$((garbfail + 1))
	fi
	if [ $((i % 2)) -eq 1 ]; then cp "$B" "$CONF"; else cp "$A" "$CONF"; fi
	if [ $((i % 4)) -lt 2 ]; then
		timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null || ctlfail=$((ctlfail + 1))
	else
		kill -HUP "$SRV6D_PID"
		ok=
		for _ in $(seq 1 100); do
			[ "$(reloads_done)" = "$i" ] && { ok=1; break; }
			sleep 0.02
		done
		[ -n "$ok" ] || hupfail=$((hupfail + 1))
	fi
done
t1=$(date +%s.%N)
sender_pid=$PACED
pkt_paced_stop
read -r total sent sx1 sx2 sx3 <"$SENT"
say "$RELOADS reloads in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; sender sent $total packets: $sent End, $sx1 + $sx2 + $sx3 End.X"
expect_eq "every srv6ctl reload exited 0" "$ctlfail" 0
expect_eq "every SIGHUP reload completed" "$hupfail" 0
expect_eq "malformed control requests got their error replies" "$garbfail" 0
expect_eq "srv6d counted $RELOADS reloads" "$(reloads_done)" "$RELOADS"
expect_eq "no reload refused" "$(ctl_get "s['reload_failures']")" 0
if kill -0 "$sender_pid" 2>/dev/null || [ -z "$total" ] || [ "$total" -ge "$MAXPKTS" ]; then
	fail "the sender did not run through all the reloads ($total packets)"
fi

# Let the last packets through, then compare.
waiting=
for _ in $(seq 1 50); do
	waiting=$(nfq_stat 3)
	[ "$waiting" = 0 ] && [ "$(sink_pkts)" -ge $((sink0 + sent)) ] &&
		[ "$(sink_count "$S2" fc00:9::d2)" -ge "$sx2" ] && break
	sleep 0.1
done
expect_eq "queue 0: no packet left waiting for a verdict" "$waiting" 0
expect_eq "the gateway's NFQUEUE rule saw every packet sent" \
	"$(($(rule_pkts) - rule0))" "$total"
expect_eq "the kernel queued every packet (id sequence)" "$(($(nfq_stat 8) - seq0))" "$total"
expect_eq "no kernel queue-full drop" "$(($(nfq_stat 6) - qd0))" 0
expect_eq "no kernel socket (user) drop" "$(($(nfq_stat 7) - ud0))" 0
expect_eq "End SID counter kept counting across $RELOADS swaps" \
	"$(($(ctl_get "sid('fc00:100::1/128')['packets']") - sidp0))" "$sent"
expect_eq "srv6d gave a verdict to everything it received" \
	"$(ctl_get "s['totals']['verdicts']")" "$(ctl_get "s['totals']['rx_packets']")"
expect_eq "the sink received every packet sent" "$(($(sink_pkts) - sink0))" "$sent"
expect_eq "no drop at the End SID" "$(ctl_get "sid('fc00:100::1/128')['errors']")" 0
# End.X ::11 and ::12 swap lines (and marks, before srv6d kept them) on
# every reload: a packet marked by the old config and routed by the new
# one's rules would leave by the other SID's next hop.
expect_eq "End.X ::11: every packet left by its next hop (sink1)" \
	"$(sink_count "$S1" fc00:9::d1)" "$sx1"
expect_eq "End.X ::11: none misrouted to sink2" "$(sink_count "$S2" fc00:9::d1)" 0
expect_eq "End.X ::12: every packet left by its next hop (sink2)" \
	"$(sink_count "$S2" fc00:9::d2)" "$sx2"
expect_eq "End.X ::12: none misrouted to sink1" "$(sink_count "$S1" fc00:9::d2)" 0
expect_eq "End.X ::11 and ::12 counted every packet across the swaps" \
	"$(($(ctl_get "sid('fc00:100::11/128')['packets']") - x1p0)) $(($(ctl_get "sid('fc00:100::12/128')['packets']") - x2p0))" \
	"$sx1 $sx2"
# End.X ::13's next hop changes on every reload: a new mark each time;
# the old one's rule must outlive every packet the old config marked.
expect_eq "End.X ::13 (next hop changed by every reload): no packet lost" \
	"$(($(sink_count "$S1" fc00:77::1) + $(sink_count "$S2" fc00:77::1)))" "$sx3"

# The config in force is A (even count): its End.X rule is there, not B's.
if nsx "$GW" ip -6 rule | grep -q "lookup 100"; then
	fail "B's End.T rule (lookup 100) left after reloading A"
else
	pass "B's End.T rule removed after the last reload (A)"
fi
# What only B used is gone once A is in force: A's 4 End.X rules and
# tables remain, no more (the mark range starts at 0x5d6f0000).  With
# offload yes (the default), End ::1 (plain End, in A and B) also has the
# kernel's End for its super-packets (kernel-end auto: one more fwmark
# rule and table, srv6ctl status' kernel_end.sids).  Results that go
# payload-free (`reinject auto` on 7.2, every super-packet result that is
# not the kernel's) come in on srv6d0 with their mark: no iif rule, with
# any reinject.payload.
rules=$(nsx "$GW" ip -6 rule show priority 1000)
nkend=$(ctl_get "s['kernel_end']['sids']")
expect_eq "kernel-end: End ::1's rule and table" "$nkend" 1
expect_eq "A's 4 End.X fwmark rules (and End ::1's) at priority 1000" \
	"$(grep -c fwmark <<<"$rules")" $((4 + nkend))
expect_eq "nothing else at priority 1000 (no iif rule)" \
	"$(grep -vc fwmark <<<"$rules") $(grep -c ' iif ' <<<"$rules")" \
	"0 0"
tables=$(nsx "$GW" ip -6 route show table all | awk '
	{ for (i = 1; i < NF; i++) if ($i == "table" && $(i + 1) ~ /^[0-9]+$/ &&
	      $(i + 1) >= 1567555584 && $(i + 1) < 1567621120) n++ }
	END { print n + 0 }')
# (End ::1's table: its seg6local route and the SID's blackhole behind it)
expect_eq "A's 4 End.X tables (and End ::1's) and no other table of the daemon's" \
	"$tables" $((4 + 2 * nkend))

# ---- a bad file changes nothing -------------------------------------------------
before=$(ctl_get "[e['sid'] for e in s['sids']]")
{ cat "$A"; echo "sid fc00:100::9/128 action End.Q"; echo "queue 0-"; } >"$CONF"
rc=0
timeout 10 "$SRV6CTL" -s "$SOCK" reload >"$TMPD/r.out" 2>"$TMPD/r.err" || rc=$?
expect_eq "srv6ctl reload of a bad file exits 1" "$rc" 1
na=$(wc -l <"$A")
for l in $((na + 1)) $((na + 2)); do
	if grep -q "^$CONF:$l: " "$TMPD/r.err"; then
		pass "srv6ctl reload reports $CONF:$l"
	else
		fail "srv6ctl reload did not report line $l:"
		sed 's/^/     /' "$TMPD/r.err"
	fi
done
expect_eq "the SIDs in force are unchanged" "$(ctl_get "[e['sid'] for e in s['sids']]")" "$before"
expect_eq "the refused reload is counted" "$(ctl_get "s['reload_failures']")" 1
rc=0
timeout 10 "$SRV6CTL" -s "$SOCK" -j reload >"$TMPD/r.json" 2>/dev/null || rc=$?
n=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["errors"]))' "$TMPD/r.json" 2>/dev/null)
if [ "$rc" = 1 ] && [ "${n:-0}" -ge 2 ]; then
	pass "srv6ctl -j reload: exit 1 and the errors as JSON ($n)"
else
	fail "srv6ctl -j reload: exit $rc, errors '$n'"
fi

# ---- who may do what ----------------------------------------------------------------
expect_eq "control socket: mode 0660, group control-group" \
	"$(stat -c '%a %g' "$SOCK")" "660 $CGID"
cp "$A" "$CONF"
chmod 0755 "$TMPD"
as() {	# as GID CMD...: srv6ctl as uid 65534 with primary group GID
	local g=$1
	shift
	setpriv --reuid=65534 --regid="$g" --clear-groups \
		"$SRV6CTL" -s "$SOCK" "$@" >/dev/null 2>&1
}
rc=0; as 65534 status || rc=$?
expect_eq "outside the control group: cannot even connect (exit 4)" "$rc" 4
rc=0; as "$CGID" sid show fc00:100::1 || rc=$?
expect_eq "a member of the control group reads (exit 0)" "$rc" 0
rc=0; as "$CGID" reload || rc=$?
expect_eq "a member of the control group cannot reload (exit 4)" "$rc" 4
chmod 0700 "$TMPD"
expect_eq "the refused attempts changed nothing" "$(ctl_get "s['reloads']")" "$RELOADS"
sed "s/^control-group .*/control-group $((CGID + 1))/" "$A" >"$CONF"
rc=0
timeout 10 "$SRV6CTL" -s "$SOCK" reload >/dev/null 2>"$TMPD/r.err" || rc=$?
if [ "$rc" = 1 ] && grep -q "'control-group' changed, which needs a restart" "$TMPD/r.err"; then
	pass "a reload that changes control-group is refused: it needs a restart"
else
	fail "reload changing control-group: exit $rc"
	sed 's/^/     /' "$TMPD/r.err"
fi

# ---- stop ----------------------------------------------------------------------------
rc=0
srv6d_stop || rc=$?
expect_eq "SIGTERM: srv6d exits 0" "$rc" 0

# ---- what systemd heard ------------------------------------------------------------
sleep 0.3
notify_stop
first=$(notify_messages | head -n 1)
case $first in
READY=1\|STATUS=*) pass "first notification: READY=1 with a STATUS= line ($first)" ;;
*) fail "first notification is '$first', want READY=1|STATUS=..." ;;
esac
# 100 good reloads and 3 refused ones, each RELOADING=1 then READY=1.
expect_eq "RELOADING=1 once per reload" \
	"$(notify_messages | grep -c '^RELOADING=1')" $((RELOADS + 3))
expect_eq "READY=1 at start and after each reload" \
	"$(notify_messages | grep -c '^READY=1')" $((RELOADS + 4))
expect_eq "a STATUS= line for each refused reload" \
	"$(notify_messages | grep -c '^STATUS=reload of .* failed')" 3
expect_eq "STOPPING=1 last" \
	"$(notify_messages | tail -n 1 | cut -d'|' -f1)" STOPPING=1
wd=$(notify_messages | grep -c '^WATCHDOG=1$')
if [ "$wd" -ge 5 ]; then
	pass "watchdog keepalives while the workers ran ($wd)"
else
	fail "only $wd watchdog keepalives"
fi
ns_finish
