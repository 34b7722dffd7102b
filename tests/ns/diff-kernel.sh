#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# diff-kernel.sh - the same packets through the kernel's seg6local/seg6 and
# through srv6d must leave the gateway as the same bytes.
#
# Phase 1 configures the gateway with `ip -6 route ... encap seg6local` and
# `encap seg6` routes, sends every case and checks what the kernel did.
# Phase 2 removes those routes, steers the same prefixes to srv6d with
# NFQUEUE, sends the same packets and compares the captures byte for byte.
# Where srv6d follows RFC 8986/8754 and Linux does not, the test says so and
# checks each side against its own behaviour.
T=diff-kernel
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/ns/difflib.sh
. "$(dirname "$0")/difflib.sh"
ns_init 300

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"

# The cases: diff_def NAME CLASS DESC KWORDS SWORDS ARGS... (difflib.sh)
def() { diff_def "$@"; }

def end21 same "End SL 2->1, inner IPv6" \
	"s1 ip6.dst=fc00:9::c1 srh.sl=1 ip6.hlim=63" "" \
	$S --segs fc00:100::1,fc00:9::c1,fc00:9::c2 $IN6
def end10 same "End SL 1->0, inner IPv6" \
	"s1 ip6.dst=fc00:9::c1 srh.sl=0 ip6.hlim=63" "" \
	$S --segs fc00:100::1,fc00:9::c1 $IN6
def endfl same "End keeps flow label and traffic class, UDP upper layer" \
	"s1 ip6.fl=0x12345 ip6.tc=0x28 srh.sl=0" "" \
	$S --segs fc00:100::1,fc00:9::c1 --fl 0x12345 --tc 0x28
def endtlv same "End with a PadN TLV in the SRH" \
	"s1 ip6.dst=fc00:9::c1 srh.sl=0" "" \
	$S --segs fc00:100::1,fc00:9::c1 --tlv padn:6 $IN6
def psp10 same "End flavors psp at the penultimate SID: SRH removed" \
	"s1 ip6.dst=fc00:9::c1 ip6.nh=41 ip6.hlim=63" "" \
	$S --segs fc00:100::2,fc00:9::c1 $IN6
def psp21 same "End flavors psp with SL 2->1: SRH kept" \
	"s1 ip6.dst=fc00:9::c1 srh.sl=1" "" \
	$S --segs fc00:100::2,fc00:9::c1,fc00:9::c2 $IN6
def csid same "NEXT-C-SID shift, no SRH" \
	"s1 ip6.dst=fc00:100:b:c:: ip6.hlim=63" "" \
	$S --dst fc00:100:a:b:c::
def csidsrh same "NEXT-C-SID shift with an SRH (SL unchanged)" \
	"s1 ip6.dst=fc00:100:b:: srh.sl=1" "" \
	$S --srh-list fc00:9::c1,fc00:100:a:b:: --sl 1 $IN6
def csidend same "NEXT-C-SID end of container: End (SL 1->0)" \
	"s1 ip6.dst=fc00:9::c1 srh.sl=0" "" \
	$S --srh-list fc00:9::c1,fc00:100:a:: --sl 1 $IN6
def endx same "End.X leaves toward nh6 (sink2), not the main table's sink1" \
	"s2 ip6.dst=fc00:9::c1 srh.sl=0 ip6.hlim=63" "" \
	$S --segs fc00:100::3,fc00:9::c1 $IN6
def endt same "End.T looks the new destination up in table 100 (sink2)" \
	"s2 ip6.dst=fc00:9::c1 srh.sl=0 ip6.hlim=63" "" \
	$S --segs fc00:100::4,fc00:9::c1 $IN6
def endxcsid same "End.X flavors next-csid: DA shifted, leaves toward nh6 (sink2)" \
	"s2 ip6.dst=fc00:100:f:: ip6.hlim=63" "" \
	$S --dst fc00:100:e:f:: --ul none
def endxcsidend same "End.X flavors next-csid, last C-SID: End.X with the SRH (sink2)" \
	"s2 ip6.dst=fc00:9::c1 srh.sl=0" "" \
	$S --srh-list fc00:9::c1,fc00:100:e:: --sl 1 $IN6
def twosids same "End then End.X of this node in a row: both processed here, leaves toward nh6" \
	"s2 ip6.dst=fc00:9::c1 srh.sl=0 ip6.hlim=63" "" \
	$S --segs fc00:100::1,fc00:100::3,fc00:9::c1 $IN6
def nonsid same "a destination in the SID block that is no SID: unchanged" \
	"s1 ip6.dst=fc00:100::99 ip6.hlim=63" "" \
	$S --dst fc00:100::99
def encap same "H.Encaps of IPv6, 2 segments" \
	"s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1 srh.sl=1 srh.le=1 srh.segs=fc00:9::c2,fc00:9::c1 in1.ip6.dst=fc00:9:e1::1" "" \
	$S --dst fc00:9:e1::1 --fl 0xbeef --tc 0x28
def encapred same "H.Encaps.Red of IPv6, 2 segments" \
	"s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1 srh.sl=1 srh.le=0 srh.segs=fc00:9::c2 in1.ip6.dst=fc00:9:e2::1" "" \
	$S --dst fc00:9:e2::1
def encapred1 same "H.Encaps.Red of IPv6, 1 segment: no SRH" \
	"s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1 ip6.nh=41 in1.ip6.dst=fc00:9:e5::1" "" \
	$S --dst fc00:9:e5::1
def insert same "H.Insert of IPv6, 2 segments" \
	"s1 ip6.src=fc00:1::1 ip6.dst=fc00:9::c1 srh.sl=2 srh.segs=fc00:9:e3::1,fc00:9::c2,fc00:9::c1" "" \
	$S --dst fc00:9:e3::1
def encap4 same "H.Encaps of IPv4 (srv6d: through its reinjection device)" \
	"s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1 srh.sl=1 srh.nh=4 in1.ip4.dst=10.9.1.1" "" \
	--v4 --src 192.0.2.1 --dst 10.9.1.1 --tc 0x28
def encap4red same "H.Encaps.Red of IPv4, 2 segments" \
	"s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1 srh.sl=1 srh.le=0 in1.ip4.dst=10.9.2.1" "" \
	--v4 --src 192.0.2.1 --dst 10.9.2.1
def hl1 icmp "End with hop limit 1: ICMPv6 Time Exceeded to the source" \
	"gen icmp6.type=3 icmp6.code=0 ip6.dst=fc00:1::1" \
	"gen icmp6.type=3 icmp6.code=0 ip6.dst=fc00:1::1" \
	$S --segs fc00:100::1,fc00:9::c1 --hlim 1 $IN6
def sl0udp rfc "End with SL 0, UDP (RFC 8986 4.1 S01/S02, RFC 8754 4.3.1.1)" \
	"none" "gen icmp6.type=4 icmp6.code=4 icmp6.ptr=80 ip6.dst=fc00:1::1" \
	$S --segs fc00:9::c1,fc00:100::1 --sl 0
def sl0echo rfc "End with SL 0, ICMPv6 echo request (RFC 8986 4.1 S01: upper layer processed)" \
	"none" "gen icmp6.type=129 ip6.src=fc00:100::1 ip6.dst=fc00:1::1" \
	$S --segs fc00:9::c1,fc00:100::1 --sl 0 --ul echo
def nosrh rfc "End without an SRH, UDP (RFC 8986 4.1.1: Parameter Problem code 4)" \
	"none" "gen icmp6.type=4 icmp6.code=4 icmp6.ptr=40 ip6.dst=fc00:1::1" \
	$S --dst fc00:100::1
def slgtle rfc "End with SL > LE+1 (RFC 8754 4.3.1.1: Parameter Problem, pointer to SL)" \
	"none" "gen icmp6.type=4 icmp6.code=0 icmp6.ptr=43 ip6.dst=fc00:1::1" \
	$S --srh-list fc00:9::c1,fc00:100::1 --sl 3 --dst fc00:100::1 $IN6

KROUTES=(
	"-6 route add fc00:100::1/128 encap seg6local action End dev gw0"
	"-6 route add fc00:100::2/128 encap seg6local action End flavors psp dev gw0"
	"-6 route add fc00:100:a::/48 encap seg6local action End flavors next-csid lblen 32 nflen 16 dev gw0"
	"-6 route add fc00:100::3/128 encap seg6local action End.X nh6 fc00:3::2 dev gw0"
	"-6 route add fc00:100::4/128 encap seg6local action End.T table 100 dev gw0"
	"-6 route add fc00:100:e::/48 encap seg6local action End.X nh6 fc00:3::2 flavors next-csid lblen 32 nflen 16 dev gw0"
	"-6 route add fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2 dev gw1"
	"-6 route add fc00:9:e2::/48 encap seg6 mode encap.red segs fc00:9::c1,fc00:9::c2 dev gw1"
	"-6 route add fc00:9:e5::/48 encap seg6 mode encap.red segs fc00:9::c1 dev gw1"
	"-6 route add fc00:9:e3::/48 encap seg6 mode inline segs fc00:9::c1,fc00:9::c2 dev gw1"
	"-4 route add 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2 dev gw1"
	"-4 route add 10.9.2.0/24 encap seg6 mode encap.red segs fc00:9::c1,fc00:9::c2 dev gw1"
)

CONF_BODY="queue 0
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::2/128 action End flavors psp
sid fc00:100:a::/48 action End flavors next-csid lblen 32 nflen 16
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::4/128 action End.T table 100
sid fc00:100:e::/48 action End.X nh6 fc00:3::2 flavors next-csid lblen 32 nflen 16
route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2
route fc00:9:e2::/48 encap seg6 mode encap.red segs fc00:9::c1,fc00:9::c2
route fc00:9:e5::/48 encap seg6 mode encap.red segs fc00:9::c1
route fc00:9:e3::/48 encap seg6 mode inline segs fc00:9::c1,fc00:9::c2
route 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2
route 10.9.2.0/24 encap seg6 mode encap.red segs fc00:9::c1,fc00:9::c2"


ns_setup || { fail "topology setup"; ns_finish; }

# ---- phase 1: the kernel -----------------------------------------------------
say "phase 1: the kernel's seg6local and seg6 (iproute2 $(ip -V | sed 's/.*iproute2-//; s/,.*//'))"
nsx "$GW" ip sr tunsrc set fc00:1::2 || fail "ip sr tunsrc set"
diff_kernel_routes skip
diff_run KOUT check

# ---- phase 2: srv6d ----------------------------------------------------------
diff_srv6d_begin
echo "$CONF_BODY" >"$TMPD/srv6d.conf"
if ! nfq_steer6 fc00:100::/32 fc00:9:e0::/44 || ! nfq_steer4 10.9.0.0/16; then
	fail "NFQUEUE rules"
fi
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
	same) diff_same "$n" ;;
	icmp)
		check_words "srv6d: ${DESC[$n]}" "$s" "${SWORDS[$n]}"
		if [ "$k" != "$s" ]; then
			kf=$(pkt_show "${k#* }" 2>/dev/null | tr ' ' '\n' | sort)
			sf=$(pkt_show "${s#* }" 2>/dev/null | tr ' ' '\n' | sort)
			echo "     note: the ICMP errors differ (RFC 8986 4.1 S05-S06 quotes the packet as received):"
			echo "       kernel only: $(comm -23 <(echo "$kf") <(echo "$sf") | tr '\n' ' ')"
			echo "       srv6d only:  $(comm -13 <(echo "$kf") <(echo "$sf") | tr '\n' ' ')"
		fi
		;;
	rfc)
		echo "     srv6d follows the RFC here: ${DESC[$n]}: kernel drops, srv6d sends ${SWORDS[$n]}"
		check_words "srv6d: ${DESC[$n]}" "$s" "${SWORDS[$n]}"
		;;
	esac
done
skip_case "USP and USD flavors, H.Insert.Red: Linux has none of them (tested in transit.sh and headend.sh)"
skip_case "PSP on End.X / End.T: Linux refuses 'End.X ... flavors psp' (Unsupported Flavor operation(s)) and accepts 'End.T ... flavors psp' but drops the flavor (tested in transit.sh)"
if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
