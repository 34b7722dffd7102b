#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# diff-decap.sh - the decapsulating behaviors, differential: the same
# packets through the kernel's seg6local End.DX6, End.DX4 and End.DT6
# (`table`, the kernel's legacy mode, which needs no VRF device) and
# through srv6d must leave the gateway as the same bytes.  End.DT4 and
# End.DT46 need a VRF device in the kernel (CONFIG_NET_VRF is off here):
# tests/ns/decap.sh covers them against their tables.
#
# Phase 1 configures `encap seg6local` routes and checks what the kernel
# does; phase 2 steers the SIDs to srv6d instead and compares byte for
# byte.  Where RFC 8986 asks for an ICMP error and Linux drops silently
# (Segments Left > 0, an inner header that is not the behavior's), the test
# says so and checks each side against its own behavior.
T=diff-decap
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/ns/difflib.sh
. "$(dirname "$0")/difflib.sh"
ns_init 240

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
IN4="--inner ipv4 --inner-src 192.0.2.1 --inner-dst 10.9.3.1"

# The cases: diff_def NAME CLASS DESC KWORDS SWORDS ARGS... (difflib.sh;
# CLASS same or rfc)
def() { diff_def "$@"; }

def dx6srh same "End.DX6 with an SRH (SL 0): inner IPv6 to nh6 (sink2), not the main table's sink1" \
	"s2 ip6.dst=fc00:9::99 ip6.hlim=8" "" \
	$S --segs fc00:100::5 --sl 0 $IN6 --inner-hlim 9
def dx6red same "End.DX6 without an SRH (H.Encaps.Red, one segment)" \
	"s2 ip6.dst=fc00:9::99 ip6.hlim=63 ip6.fl=0x12345 ip6.tc=0x28" "" \
	$S --dst fc00:100::5 $IN6 --inner-fl 0x12345 --inner-tc 0x28
def dx6tlv same "End.DX6 with PadN in the SRH and two segments, SL 0" \
	"s2 ip6.dst=fc00:9::99" "" \
	$S --srh-list fc00:100::5,fc00:9::c1 --sl 0 --dst fc00:100::5 --tlv padn:6 $IN6
def dx4srh same "End.DX4 with an SRH (SL 0): inner IPv4 to nh4 (sink2), TTL 9 -> 8" \
	"s2 ip4.dst=10.9.3.1 ip4.ttl=8" "" \
	$S --segs fc00:100::6 --sl 0 $IN4 --inner-hlim 9
def dx4red same "End.DX4 without an SRH" \
	"s2 ip4.dst=10.9.3.1 ip4.ttl=63" "" \
	$S --dst fc00:100::6 $IN4
def dt6srh same "End.DT6 table 100 with an SRH (SL 0): inner IPv6 by table 100 (sink2)" \
	"s2 ip6.dst=fc00:9::99 ip6.hlim=63" "" \
	$S --segs fc00:100::7 --sl 0 $IN6
def dt6red same "End.DT6 table 100 without an SRH" \
	"s2 ip6.dst=fc00:9::99 ip6.hlim=63" "" \
	$S --dst fc00:100::7 $IN6
def dt6main same "End.DT6 table 100, destination only in the main table: no fallback to it, Destination Unreachable (no route) from both" \
	"gen icmp6.type=1 icmp6.code=0 ip6.src=fc00:1::2 in1.ip6.dst=fc00:2::99" "" \
	$S --dst fc00:100::7 --inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:2::99
def dx6sl1 rfc "End.DX6 with SL 1 (RFC 8986 4.4 S02-S04: Parameter Problem at Segments Left)" \
	"none" "gen icmp6.type=4 icmp6.code=0 icmp6.ptr=43 ip6.src=fc00:100::5 ip6.dst=fc00:1::1" \
	$S --segs fc00:100::5,fc00:9::c1 $IN6
def dt6sl1 rfc "End.DT6 with SL 1" \
	"none" "gen icmp6.type=4 icmp6.code=0 icmp6.ptr=43 ip6.src=fc00:100::7" \
	$S --segs fc00:100::7,fc00:9::c1 $IN6
def dx4v6 rfc "End.DX4 with an IPv6 inner (RFC 8986 4.5 S05, 4.1.1: Parameter Problem code 4)" \
	"none" "gen icmp6.type=4 icmp6.code=4 icmp6.ptr=64 ip6.src=fc00:100::6" \
	$S --segs fc00:100::6 --sl 0 $IN6
def dx6udp rfc "End.DX6 with UDP after the SRH (4.1.1: Parameter Problem code 4)" \
	"none" "gen icmp6.type=4 icmp6.code=4 icmp6.ptr=64 ip6.src=fc00:100::5" \
	$S --segs fc00:100::5 --sl 0

KROUTES=(
	"-6 route add fc00:100::5/128 encap seg6local action End.DX6 nh6 fc00:3::2 dev gw2"
	"-6 route add fc00:100::6/128 encap seg6local action End.DX4 nh4 203.0.113.2 dev gw2"
	"-6 route add fc00:100::7/128 encap seg6local action End.DT6 table 100 dev gw2"
)

CONF_BODY="queue 0
sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2
sid fc00:100::6/128 action End.DX4 nh4 203.0.113.2
sid fc00:100::7/128 action End.DT6 table 100"


ns_setup || { fail "topology setup"; ns_finish; }
# The kernel's End.DX4 looks nh4 up as a route (ip_route_input) and, nh4
# being on a connected subnet, resolves the neighbour of the inner
# destination on that link, not of nh4 (srv6d's table M holds a route
# "via nh4").  Give the inner destination sink2's address on link C so
# that both deliver to sink2; decap.sh tests srv6d without this entry.
_neigh "$GW" gw2 10.9.3.1 $MAC_S2 || fail "neighbour 10.9.3.1 on gw2"

# ---- phase 1: the kernel -----------------------------------------------------
say "phase 1: the kernel's seg6local (iproute2 $(ip -V | sed 's/.*iproute2-//; s/,.*//'))"
diff_kernel_routes fail
diff_run KOUT check

# ---- phase 2: srv6d ----------------------------------------------------------
diff_srv6d_begin
echo "$CONF_BODY" >"$TMPD/srv6d.conf"
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rules"
if ! srv6d_start "$TMPD/srv6d.conf"; then
	fail "srv6d start"
	ns_finish
fi
diff_run SOUT

# ---- compare -------------------------------------------------------------------
say "comparing"
for n in "${ORDER[@]}"; do
	k=${KOUT[$n]} s=${SOUT[$n]}
	case ${CLASS[$n]} in
	same) diff_same "$n" none-ok ;;
	rfc)
		echo "     srv6d follows the RFC here: ${DESC[$n]}: kernel drops, srv6d sends ${SWORDS[$n]}"
		check_words "srv6d: ${DESC[$n]}" "$s" "${SWORDS[$n]}"
		;;
	esac
done
skip_case "End.DT4, End.DT46: the kernel needs a VRF device (vrftable), CONFIG_NET_VRF is off here (decap.sh tests srv6d's against table 100)"
if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
