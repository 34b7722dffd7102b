#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# end-map.sh - End.MAP (RFC 9433 6.2, SID mapping) on a real kernel:
# gen -> gw (srv6d via NFQUEUE) -> sink1.
#
# Linux 6.18 has no End.MAP (a seg6local End.MAP was only proposed on
# netdev in 2026), so there is no kernel reference to compare with: the
# expected frames follow the RFC's S01-S06: the Hop Limit checked (Time
# Exceeded at <= 1) and decremented (by the kernel's forwarding), the DA
# replaced by the mapped SID, the SRH (if any) left as it came.
T=end-map
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 120
need_srv6d

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
MAP=fc00:100:1::/64

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
sid $MAP action End.MAP nh6 fc00:9::d6
EOF

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

expect_eq "srv6ctl: the SID's behavior" "$(ctl_get "sid('$MAP')['behavior']")" End.MAP
expect_eq "srv6ctl: the mapped SID" "$(ctl_get "sid('$MAP')['nh6']")" fc00:9::d6

# ---- an SRH: left as it is, only the DA changes (S05) -----------------------
L="fc00:9::c1,fc00:100:1::7"
out=$(pkt_xchg --tag msrh $S --srh-list $L --sl 1 --dst fc00:100:1::7 $IN6)
exp=$(pkt_build --tag msrh $S --srh-list $L --sl 1 --dst fc00:9::d6 --hlim 63 $IN6)
expect_frame "SRH SL 1: DA the mapped SID, SRH untouched, Hop Limit 63" "$out" s1 "$exp"

# ---- Segments Left 0 and no SRH: mapped all the same ------------------------
out=$(pkt_xchg --tag msl0 $S --srh-list fc00:100:1::7 --sl 0 --dst fc00:100:1::7 $IN6)
exp=$(pkt_build --tag msl0 $S --srh-list fc00:100:1::7 --sl 0 --dst fc00:9::d6 --hlim 63 $IN6)
expect_frame "SRH SL 0: mapped (End.MAP does not read the SRH)" "$out" s1 "$exp"
out=$(pkt_xchg --tag mnone $S --dst fc00:100:1::8 $IN6)
exp=$(pkt_build --tag mnone $S --dst fc00:9::d6 --hlim 63 $IN6)
expect_frame "no SRH: mapped" "$out" s1 "$exp"

# ---- S01-S03: Hop Limit 1 --------------------------------------------------
out=$(pkt_xchg --tag mhl $S --dst fc00:100:1::8 --hlim 1 $IN6)
expect_fields "Hop Limit 1: Time Exceeded code 0 to the source" \
	"$out" gen icmp6.type=3 icmp6.code=0

# ---- counters ---------------------------------------------------------------
expect_eq "the SID forwarded 3 packets" "$(ctl_get "sid('$MAP')['packets']")" 3
expect_eq "and counted the Hop Limit drop" "$(ctl_get "drop(sid('$MAP'), 'hop_limit')")" 1
rx=$(ctl_get "s['totals']['rx_packets']")
vd=$(ctl_get "s['totals']['verdicts']")
expect_eq "every received packet got a verdict (rx_packets == verdicts)" "$vd" "$rx"

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
