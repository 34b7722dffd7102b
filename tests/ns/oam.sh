#!/bin/bash
# oam.sh - RFC 9259 through srv6d on a real kernel: every O-flag packet to
# a SID is copied once, with a timestamp, to the OAM process (a datagram
# socket this test reads: `oam-copy unix`), and forwarded all the same; a
# flood above oam-rate has its extra copies counted as rate-limited, every
# original forwarded; End.OP punts its packets there, counted per SID.
# Packets go gen -> gw (srv6d via NFQUEUE) -> sink1 (End) / sink2
# (End.DT6, table 100).
T=oam
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

OAMSOCK="$TMPD/oam.sock"
cat >"$TMPD/srv6d.conf" <<EOF
queue 0
oam-copy unix $OAMSOCK
oam-copy-len 512
oam-rate 200
oam-burst 200
sid fc00:100::1/128 action End
sid fc00:100::6/128 action End.DT6 table 100
sid fc00:100::7/128 action End.OP
EOF

ns_setup || { fail "topology setup"; ns_finish; }
# The OAM process's socket lives in the gateway: a queue long enough for a
# batch of copies (the default is 10 datagrams).
nsx "$GW" sysctl -qw net.unix.max_dgram_qlen=512 || fail "max_dgram_qlen"
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
sink_count_rules fc00:9::c1 fc00:9::99 fc00:9::c7 || fail "sink counter rules"

# ---- the OAM process: every datagram, one hex line ---------------------------
nsx "$GW" "$PYTHON" - "$OAMSOCK" "$TMPD/copies" "$TMPD/oam.stop" <<'PY' &
import os, socket, sys
path, out, stop = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind(path)
s.settimeout(0.1)
with open(out, "w") as f:
    while not os.path.exists(stop):
        try:
            m = s.recv(65536)
        except socket.timeout:
            continue
        f.write(m.hex() + "\n")
        f.flush()
PY
READER=$!
for _ in $(seq 50); do [ -S "$OAMSOCK" ] && break; sleep 0.1; done
[ -S "$OAMSOCK" ] || fail "the OAM process's socket"

srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# build KIND N: N packets (hex, one a line) with tags KIND0..KINDN-1.
build() {
	"$PYTHON" - "$1" "$2" <<'PY'
import sys
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting, UDP
from scapy.packet import Raw
kind, n = sys.argv[1], int(sys.argv[2])
sid = {"end": "fc00:100::1", "plain": "fc00:100::1", "dt6": "fc00:100::6",
       "op": "fc00:100::7", "flood": "fc00:100::1"}[kind]
for i in range(n):
    pay = UDP(sport=40000, dport=50000) / Raw(("%s%d" % (kind, i)).encode())
    if kind == "dt6":
        inner = IPv6(src="fc00:1::1", dst="fc00:9::99") / pay
        p = IPv6(src="fc00:1::1", dst=sid) / IPv6ExtHdrSegmentRouting(
            addresses=[sid], segleft=0, lastentry=0, oam=1, nh=41) / inner
    else:
        nxt = "fc00:9::c7" if kind == "op" else "fc00:9::c1"
        p = IPv6(src="fc00:1::1", dst=sid) / IPv6ExtHdrSegmentRouting(
            addresses=[nxt, sid], segleft=1, lastentry=1,
            oam=0 if kind == "plain" else 1) / pay
    print(bytes(p).hex())
PY
}

# send RATE HEXFILE: the packets of HEXFILE from gen, RATE a second; sets
# T0 and T1 (CLOCK_REALTIME ns) around the sending.
send() {
	local hexes
	mapfile -t hexes <"$2"
	T0=$(date +%s%N)
	pkt_paced_start "$TMPD/paced" "$1" "${#hexes[@]}" "${hexes[@]}" ||
		fail "sender"
	wait "$PACED"
	PACED=
	T1=$(date +%s%N)
}

# copies_check FROM KIND SENT T0 T1 SIDHEX PLEN: the copies from line FROM
# on: prints "n once ok": how many, whether each sent packet came exactly
# once and byte for byte, whether each header is right (kind, SID, lengths,
# worker 0, a timestamp within [T0, T1 + 0.2 s]).
copies_check() {
	"$PYTHON" - "$TMPD/copies" "$@" <<'PY'
import struct, sys
copies, first, kind, sent, t0, t1, sid, plen = sys.argv[1:9]
lines = open(copies).read().split("\n")[int(first) - 1:]
sent = [bytes.fromhex(h) for h in open(sent).read().split()]
t0, t1, plen = int(t0), int(t1) + 2 * 10**8, int(plen)
seen = {}
ok = True
n = 0
for line in lines:
    if not line.strip():
        continue
    c = bytes.fromhex(line.strip())
    v, k, hl, w, pl, fl, ts, orig, cap = struct.unpack("!BBHHBBQII", c[:24])
    pkt = c[hl:]
    n += 1
    good = (v == 1 and k == int(kind) and hl == 40 and w == 0 and
            pl == plen and fl == 0 and c[24:40].hex() == sid and
            orig == cap == len(pkt) and t0 <= ts <= t1)
    if not good:
        print("bad header", v, k, hl, w, pl, fl, ts, orig, cap,
              c[24:40].hex(), t0, t1, file=sys.stderr)
    ok = ok and good
    seen[pkt] = seen.get(pkt, 0) + 1
once = all(seen.get(p) == 1 for p in sent) and len(seen) == len(set(sent))
print(n, int(once), int(ok))
PY
}

ncopies() { wc -l <"$TMPD/copies"; }
wait_copies() {	# N: until the file has N lines (2 s at most)
	local _
	for _ in $(seq 20); do
		[ "$(ncopies)" -ge "$1" ] && return 0
		sleep 0.1
	done
}
SID1=fc000100000000000000000000000001
SID6=fc000100000000000000000000000006
SID7=fc000100000000000000000000000007

# ---- O-flag at End: each copied once, each forwarded -------------------------
N=100
build end $N >"$TMPD/end.hex"
c0=$(ncopies)
send 200 "$TMPD/end.hex"
wait_copies $((c0 + N))
read -r n once ok < <(copies_check $((c0 + 1)) 1 "$TMPD/end.hex" "$T0" "$T1" $SID1 128)
expect_eq "End: one copy per O-flag packet" "$n" $N
expect_eq "End: every packet copied exactly once, byte for byte as received" "$once" 1
expect_eq "End: every copy's header (kind 1, the SID, worker, lengths, timestamp in the send window)" "$ok" 1
expect_eq "End: every original forwarded to sink1" "$(sink_count "$S1" fc00:9::c1)" $N
expect_eq "oam_sent counted them" "$(ctl_get "s['totals']['oam_sent']")" $N
expect_eq "the SID counted every packet" "$(ctl_get "sid('fc00:100::1/128')['packets']")" $N
expect_eq "the SID counted every copy (oam_copies), none uncopied" \
	"$(ctl_get "(sid('fc00:100::1/128').get('oam_copies'), sid('fc00:100::1/128').get('oam_uncopied'))")" "($N, 0)"
expect_eq "srv6ctl sid show prints them" \
	"$(timeout 5 "$SRV6CTL" -s "$SOCK" sid show fc00:100::1 | grep -c "^    oam copies $N uncopied 0$")" 1

# ---- no O-flag: no copy ----------------------------------------------------------
build plain 20 >"$TMPD/plain.hex"
c0=$(ncopies)
send 200 "$TMPD/plain.hex"
sleep 0.5
expect_eq "no O-flag: no copy" "$(ncopies)" "$c0"
expect_eq "no O-flag: forwarded" "$(sink_count "$S1" fc00:9::c1)" $((N + 20))

# ---- O-flag at End.DT6: the encapsulated packet copied, the inner forwarded ----
build dt6 20 >"$TMPD/dt6.hex"
c0=$(ncopies)
send 100 "$TMPD/dt6.hex"
wait_copies $((c0 + 20))
read -r n once ok < <(copies_check $((c0 + 1)) 1 "$TMPD/dt6.hex" "$T0" "$T1" $SID6 128)
expect_eq "End.DT6: one copy per O-flag packet, as received, header right" "$n $once $ok" "20 1 1"
expect_eq "End.DT6: every inner packet forwarded (table 100: sink2)" "$(sink_count "$S2" fc00:9::99)" 20

# ---- End.OP: punted, counted, not forwarded --------------------------------------
sleep 1	# the bucket full again
build op 30 >"$TMPD/op.hex"
c0=$(ncopies)
inj0=$(ctl_get "s['totals']['injected']")
send 100 "$TMPD/op.hex"
wait_copies $((c0 + 30))
read -r n once ok < <(copies_check $((c0 + 1)) 2 "$TMPD/op.hex" "$T0" "$T1" $SID7 128)
expect_eq "End.OP: every packet punted once, as received (kind 2)" "$n $once $ok" "30 1 1"
expect_eq "End.OP: counted per SID" "$(ctl_get "sid('fc00:100::7/128')['packets']")" 30
expect_eq "End.OP: counted injected" "$(($(ctl_get "s['totals']['injected']") - inj0))" 30
expect_eq "End.OP: nothing forwarded" "$(sink_count "$S1" fc00:9::c7)" 0

# ---- a flood above oam-rate ------------------------------------------------------
F=3000
build flood $F >"$TMPD/flood.hex"
sleep 1.1	# the bucket full: 200
c0=$(ncopies)
rl0=$(ctl_get "s['totals']['oam_ratelimited']")
se0=$(ctl_get "s['totals']['oam_send_errors']")
fw0=$(sink_count "$S1" fc00:9::c1)
sc0=$(ctl_get "sid('fc00:100::1/128')['oam_copies'] + sid('fc00:100::1/128')['oam_uncopied'] * 100000")
send 20000 "$TMPD/flood.hex"
secs=$(( (T1 - T0) / 1000000 ))
sleep 0.5
made=$(( $(ncopies) - c0 ))
rl=$(( $(ctl_get "s['totals']['oam_ratelimited']") - rl0 ))
se=$(( $(ctl_get "s['totals']['oam_send_errors']") - se0 ))
say "flood: $F packets in $secs ms: $made copies read, $rl rate-limited, $se refused"
expect_eq "flood: every packet either copied (read back), rate-limited or refused, counted" \
	"$((made + rl + se))" $F
[ "$rl" -gt 0 ] && pass "flood: copies above oam-rate were rate-limited ($rl)" ||
	fail "flood: no copy rate-limited"
max=$(( 200 + 200 * (secs + 1000) / 1000 ))
[ "$made" -le "$max" ] && pass "flood: at most burst + rate x time copies ($made <= $max)" ||
	fail "flood: $made copies, more than $max"
expect_eq "flood: every original forwarded" "$(( $(sink_count "$S1" fc00:9::c1) - fw0 ))" $F
sc=$(( $(ctl_get "sid('fc00:100::1/128')['oam_copies'] + sid('fc00:100::1/128')['oam_uncopied'] * 100000") - sc0 ))
say "flood at the SID: $((sc % 100000)) copied, $((sc / 100000)) uncopied"
expect_eq "flood: the SID counted each packet copied or uncopied" \
	"$(( sc % 100000 + sc / 100000 ))" $F
[ $((sc / 100000)) -ge "$rl" ] && [ $((sc % 100000)) -ge "$made" ] &&
	pass "flood: the SID's uncopied cover the rate-limited, its copies those read" ||
	fail "flood: the SID's counts ($sc) against $made read, $rl rate-limited"

# End.OP above the rate: a counted drop per SID.
build op 400 >"$TMPD/op2.hex"
sleep 1.1
send 20000 "$TMPD/op2.hex"
sleep 0.3
pk=$(ctl_get "sid('fc00:100::7/128')['packets']")
dr=$(ctl_get "drop(sid('fc00:100::7/128'), 'oam_ratelimited')")
sd=$(ctl_get "drop(sid('fc00:100::7/128'), 'oam_send')")
say "End.OP flood: $((pk - 30)) punted, $dr rate-limited, $sd refused"
expect_eq "End.OP flood: every packet punted or a counted drop" "$((pk - 30 + dr + sd))" 400
[ "$dr" -gt 0 ] && pass "End.OP flood: drops for oam_ratelimited ($dr)" ||
	fail "End.OP flood: no oam_ratelimited drop"
expect_eq "End.OP: the SID's drops add up to its errors" \
	"$(ctl_get "sum(sid('fc00:100::7/128')['drops'].values()) == sid('fc00:100::7/128')['errors']")" True

# The totals still add up, and srv6d is alive.
expect_eq "accepted + forwarded + injected + dropped + bounced == rx_packets" \
	"$(ctl_get "sum(s['totals'][k] for k in ('accepted','forwarded','injected','dropped','bounced')) == s['totals']['rx_packets']")" True
kill -0 "$SRV6D_PID" 2>/dev/null && pass "srv6d alive after the floods" || fail "srv6d died"

# ---- no OAM process: copies refused and counted, originals forwarded -------------
: >"$TMPD/oam.stop"
wait "$READER"
rm -f "$OAMSOCK"
build end 20 >"$TMPD/gone.hex"
sleep 1.1
se0=$(ctl_get "s['totals']['oam_send_errors']")
fw0=$(sink_count "$S1" fc00:9::c1)
send 100 "$TMPD/gone.hex"
sleep 0.3
expect_eq "no OAM process: the copies refused, counted" \
	"$(( $(ctl_get "s['totals']['oam_send_errors']") - se0 ))" 20
expect_eq "no OAM process: every original forwarded" \
	"$(( $(sink_count "$S1" fc00:9::c1) - fw0 ))" 20

srv6d_stop || fail "srv6d exit status"
ns_finish
