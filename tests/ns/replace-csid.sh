#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# replace-csid.sh - the REPLACE-C-SID flavor (RFC 9800 4.2) through a chain
# of srv6d SIDs on a real kernel: gen -> gw (srv6d via NFQUEUE) -> sink1.
#
# No kernel (and no VPP) implements REPLACE-C-SID, so there is no kernel
# reference to compare with: the expected frames are built from the RFC's
# rules (4.2.1 pseudocode), worked out by hand in the comments below.
#
# Locator-Block fc00:100:0::/48, 32-bit C-SIDs (4 a container), the index
# DA.Arg.Index in the destination's last 2 bits; C-SID i of a container
# is its bits [i*32..i*32+31] (bit 0 the most significant), so the
# container ::3:0:2:0 holds C-SID 3 = 0x00020000, C-SID 2 = 0x00030000 and
# C-SIDs 1 and 0 = 0 (the container ends).  SID k is fc00:100:0:k::/80.
# The chain runs inside one srv6d (a result whose destination is another
# local SID is processed again at once), so the hop limit goes down once,
# by the kernel's forwarding, as with srv6d's other local SID chains.
T=replace-csid
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 120
need_srv6d

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
sid fc00:100:0:1::/80 action End flavors replace-csid lblen 48 nflen 32
sid fc00:100:0:2::/80 action End flavors replace-csid
sid fc00:100:0:3::/80 action End flavors replace-csid
sid fc00:100:0:4::/80 action End flavors replace-csid,usd
EOF

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# ---- srv6ctl sid shows the flavor and its lengths -------------------------
expect_eq "srv6ctl: SID 1's flavors" \
	"$(ctl_get "sid('fc00:100:0:1::/80')['flavors']")" "['replace-csid']"
expect_eq "srv6ctl: SID 2's lengths (the RFC 9800 5.1/5.2 defaults)" \
	"$(ctl_get "(sid('fc00:100:0:2::/80')['lblen'], sid('fc00:100:0:2::/80')['nflen'])")" \
	"(48, 32)"

# ---- a chain of three SIDs, exact bytes ------------------------------------
# SRH (SRH order) [fc00:9::c1, ::3:0:2:0, ::1:0], Segments Left 2, DA
# fc00:100:0:1:: (C-SID 0x00010000, index 0).
#  SID 1: index 0 (S20): S21 SL 2 <= LE+1; S24 SL 1; S25 index 3; S28 C-SID
#         3 of Segment List[1] = 0x00020000 -> DA fc00:100:0:2::3.
#  SID 2: index 3 (S09): S10 SL 1 <= LE; S13 index 2; C-SID 2 = 0x00030000,
#         not 0 -> S28 DA fc00:100:0:3::2.
#  SID 3: index 2: S13 index 1; C-SID 1 = 0 (S14): S15 SL 0; S17 DA =
#         Segment List[0] = fc00:9::c1, routed to sink1.
L="fc00:9::c1,::3:0:2:0,::1:0"
out=$(pkt_xchg --tag rchain $S --srh-list $L --sl 2 --dst fc00:100:0:1:: $IN6)
exp=$(pkt_build --tag rchain $S --srh-list $L --sl 0 --dst fc00:9::c1 --hlim 63 $IN6)
expect_frame "SIDs 1, 2, 3: next container, next C-SID, a 0 C-SID ends the container" \
	"$out" s1 "$exp"

# ---- the last container, then Segments Left 0 with no C-SID left (S02) ------
# SRH [::4:0:1:0] (C-SID 3 = 0x00010000, C-SID 2 = 0x00040000), Segments
# Left 0, DA fc00:100:0:1::3.
#  SID 1: S02: SL 0 but C-SID 2 of Segment List[0] is not 0: go on; S13
#         index 2 -> DA fc00:100:0:4::2.
#  SID 4: S02: SL 0 and C-SID 1 is 0: the SRH is done; USD (RFC 9800
#         4.2.4, RFC 8986 4.16.3) decapsulates: the inner packet to sink1.
out=$(pkt_xchg --tag rlast $S --srh-list ::4:0:1:0 --sl 0 --dst fc00:100:0:1::3 $IN6)
exp=$(pkt_build --tag rlast --src fc00:1::1 --dst fc00:9::99 --hlim 63)
expect_frame "SIDs 1, 4: within the last container, then S02 and USD" "$out" s1 "$exp"

# ---- S10-S11: index != 0 and Segments Left > Last Entry ---------------------
# (RFC 8986's End check, SL > LE + 1, would let this one through.)
d0=$(ctl_get "drop(sid('fc00:100:0:1::/80'), 'bad_srh')")
out=$(pkt_xchg --tag rbad $S --srh-list fc00:9::c1,::1:0 --sl 2 --dst fc00:100:0:1::3 $IN6)
expect_fields "index 3 with SL 2 > LE 1: Parameter Problem code 0 at Segments Left" \
	"$out" gen icmp6.type=4 icmp6.code=0 icmp6.ptr=43
d1=$(ctl_get "drop(sid('fc00:100:0:1::/80'), 'bad_srh')")
expect_eq "SID 1 counted the drop as bad_srh" "$((d1 - d0))" 1

# ---- counters ---------------------------------------------------------------
expect_eq "SID 1 forwarded 2 packets" "$(ctl_get "sid('fc00:100:0:1::/80')['packets']")" 2
expect_eq "SID 2 forwarded 1" "$(ctl_get "sid('fc00:100:0:2::/80')['packets']")" 1
expect_eq "SID 3 forwarded 1" "$(ctl_get "sid('fc00:100:0:3::/80')['packets']")" 1
expect_eq "SID 4 decapsulated 1" "$(ctl_get "sid('fc00:100:0:4::/80')['packets']")" 1
rx=$(ctl_get "s['totals']['rx_packets']")
vd=$(ctl_get "s['totals']['verdicts']")
expect_eq "every received packet got a verdict (rx_packets == verdicts)" "$vd" "$rx"

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
