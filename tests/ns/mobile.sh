#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# mobile.sh - RFC 9433's mobile user plane through srv6d on a real kernel,
# both directions, gen playing the gNB and the UPF side, sink1 the SRv6
# core toward the UPF, sink2 the gNB reached by GTP-U:
#   uplink   gNB -> IPv6/UDP/GTP-U -> End.M.GTP6.D -> SRv6 (s1), two
#            sessions kept apart by TEID in Segment List[0], and a QFI;
#            End.M.GTP6.Di (drop-in, RFC 9433 6.4): the UPF's address D
#            prepended as Segment List[0], B in [1], from encap-source S;
#            with `encoding vpp` (VPP's) from the gNB's source; what
#            End.M.GTP6.E at B makes of either (after End at c1): the
#            gNB's GTP-U packet to D again (s1), from S or the gNB, or
#            from the E SID's own `source` (RFC 9433 6.5 S04);
#   downlink SRv6 -> End.M.GTP6.E -> IPv6/UDP/GTP-U to the gNB (s2), and
#            SRv6 -> End.M.GTP4.E -> IPv4/UDP/GTP-U (s2) through srv6d's
#            reinjection device;
#   IPv4     gNB -> IPv4/UDP/GTP-U -> H.M.GTP4.D (a route) -> SRv6 (s1),
#            sessions apart by TEID;
#   Echo     the gNB's Echo Request through End.M.GTP6.D, .Di (both
#            encodings) and H.M.GTP4.D
#            as SRv6 (s1) in VPP's encoding (the SRH's Tag, the Sequence
#            Number in B), and such SRv6 through End.M.GTP6.E as GTP-U
#            Echo Request and Response (s2);
#   bad      malformed GTP-U and Echo (no Sequence Number, no Recovery IE),
#            a message not carried: counted drops, nothing leaves.
# Every frame that leaves is compared whole with one built here with
# scapy's GTP-U layer from RFC 9433's pseudocode (one hop limit less: the
# kernel forwards it).
T=mobile
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

cat >"$TMPD/srv6d.conf" <<EOF2
queue 0
encap-source fc00:1::2
sid fc00:100:d::/64 action End.M.GTP6.D mob-prefix fc00:9:e::/64 srh segs fc00:9::c1
sid fc00:100:1d::/64 action End.M.GTP6.Di mob-prefix fc00:9:e::/64 srh segs fc00:9::c1
sid fc00:100:2d::/64 action End.M.GTP6.Di mob-prefix fc00:9:e::/64 encoding vpp srh segs fc00:9::c1
sid fc00:100:e::/64 action End.M.GTP6.E
sid fc00:100:e2::/64 action End.M.GTP6.E source fc00:100:d::1
sid fc00:104::/32 action End.M.GTP4.E v4src-position 64
route 10.9.5.0/24 encap gtp4 mob-prefix fc00:9:4d::/48 src-prefix fc00:9:5::/64 segs fc00:9::c1
EOF2

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 fc00:104::/32 && nfq_steer4 10.9.5.0/24 ||
	fail "NFQUEUE rules"
ip -n "$GW" -6 route add fc00:104::/32 via fc00:2::2 dev gw1 || fail "route"
# The gNB at sink2 has no GTP-U socket: no port unreachable back (its
# packet socket captures before the filter).
nsx "$S2" ip6tables -A INPUT -p udp --dport 2152 -j DROP &&
	nsx "$S2" iptables -A INPUT -p udp --dport 2152 -j DROP ||
	fail "sink2 GTP-U filter"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# gtp CASE TAG [TEID]: prints "IN OUT", the packet gen sends and the frame
# expected, built with scapy.
gtp() {
	"$PYTHON" - "$@" <<'PY'
import sys, logging, ipaddress
logging.getLogger("scapy").setLevel(logging.ERROR)
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting as SRH
from scapy.layers.inet import IP, UDP
from scapy.contrib.gtp import GTP_U_Header, GTPPDUSessionContainer
from scapy.compat import raw
case, tag = sys.argv[1], sys.argv[2].encode()
teid = int(sys.argv[3], 0) if len(sys.argv) > 3 else 0x100
pl = b"SRV6T:" + tag + b";" + b"." * 24
ue6 = IPv6(src="fc00:1::100", dst="fc00:9:ee::1", hlim=50) / \
    UDP(sport=4000, dport=5000) / pl
ue4 = IP(src="10.45.0.2", dst="10.9.1.1", ttl=40, id=9) / \
    UDP(sport=4000, dport=5000) / pl
G = UDP(sport=2152, dport=2152)
def b(qfi, teid):	# SRH[0]: mob-prefix fc00:9:e::/64 | QFI R U | TEID
    a = bytearray(16)
    a[0:6] = bytes.fromhex("fc000009000e")
    a[8] = qfi << 2
    a[9:13] = teid.to_bytes(4, "big")
    return str(ipaddress.IPv6Address(bytes(a)))
if case == "6d":		# RFC 9433 6.3, IPv6 T-PDU
    i = IPv6(src="fc00:1::1", dst="fc00:100:d::1") / G / \
        GTP_U_Header(gtp_type=255, teid=teid) / ue6
    o = IPv6(src="fc00:1::2", dst="fc00:9::c1", hlim=49) / \
        SRH(addresses=[b(0, teid), "fc00:9::c1"], segleft=1, lastentry=1,
            nh=41) / ue6
elif case in ("6di", "6di-vpp"):	# RFC 9433 6.4: D prepended as SRH[0]
    d = "fc00:100:1d::1" if case == "6di" else "fc00:100:2d::1"
    i = IPv6(src="fc00:1::1", dst=d) / G / \
        GTP_U_Header(gtp_type=255, teid=teid) / ue6
    # S05: the outer source S (encap-source); VPP's: the gNB's
    o = IPv6(src="fc00:1::2" if case == "6di" else "fc00:1::1",
             dst="fc00:9::c1", hlim=49) / \
        SRH(addresses=[d, b(0, teid), "fc00:9::c1"],
            segleft=2, lastentry=2, nh=41) / ue6
elif case in ("6di-e", "6di-vpp-e", "6di-e-src"):	# that after End at c1,
    # to an E SID (as SRGW-B: D, the UPF's address, is SRGW-A's Di SID, not
    # this gateway's, or End.M.GTP6.E's result would come back to it)
    d = "fc00:9:1d::1"
    s = "fc00:1::1" if case == "6di-vpp-e" else "fc00:1::2"
    e = "fc00:100:%s:0:0:%04x:%02x00:0" % (
        "e2" if case == "6di-e-src" else "e", teid >> 8, teid & 0xff)
    i = IPv6(src=s, dst=e, hlim=48) / \
        SRH(addresses=[d, e, "fc00:9::c1"], segleft=1, lastentry=2,
            nh=41) / ue6
    # 6.5: to SRH[0], D, with the TEID: the gNB's packet again (5.4's
    # GW-B_out), from the source it came with (End.M.GTP6.E keeps it) or
    # from the SID's `source` (S04: an End.M.GTP6.D SID here)
    o = IPv6(src="fc00:100:d::1" if case == "6di-e-src" else s, dst=d,
             hlim=47) / G / GTP_U_Header(gtp_type=255, teid=teid) / ue6
elif case == "6d-qfi":		# uplink container QFI 9, IPv4 T-PDU
    i = IPv6(src="fc00:1::1", dst="fc00:100:d::1") / G / \
        GTP_U_Header(gtp_type=255, teid=teid, next_ex=0x85) / \
        GTPPDUSessionContainer(type=1, QFI=9) / ue4
    o = IPv6(src="fc00:1::2", dst="fc00:9::c1", hlim=63) / \
        SRH(addresses=[b(9, teid), "fc00:9::c1"], segleft=1, lastentry=1,
            nh=4) / ue4
elif case == "6e":		# RFC 9433 6.5: SRH[0] the gNB fc00:3::2
    da = "fc00:100:e:0:%02x%02x:%04x:%02x00:0" % (
        5 << 2 | 2, teid >> 24, (teid >> 8) & 0xffff, teid & 0xff)
    i = IPv6(src="fc00:9::c1", dst=da, hlim=64, tc=0x28) / \
        SRH(addresses=["fc00:3::2"], segleft=1, lastentry=0, nh=41) / ue6
    o = IPv6(src="fc00:9::c1", dst="fc00:3::2", hlim=63, tc=0x28) / G / \
        GTP_U_Header(gtp_type=255, teid=teid, next_ex=0x85) / \
        GTPPDUSessionContainer(type=0, QFI=5, RQI=1) / ue6
elif case == "4e":		# RFC 9433 6.6: IPv4 DA 203.0.113.2 in the SID
    da = "fc00:104:cb00:7102:00%02x:%04x:%02x00:0" % (
        teid >> 24, (teid >> 8) & 0xffff, teid & 0xff)
    i = IPv6(src="fc00:9::c000:201:0:0", dst=da, hlim=64) / \
        SRH(addresses=[da], segleft=0, lastentry=0, nh=4) / ue4
    o = IP(src="192.0.2.1", dst="203.0.113.2", ttl=63, id=0, flags=0) / G / \
        GTP_U_Header(gtp_type=255, teid=teid) / ue4
elif case == "4d":		# RFC 9433 6.7: gNB 192.0.2.1 -> UPF 10.9.5.1
    a = bytearray(16)
    a[0:6] = bytes.fromhex("fc000009004d")
    a[6:10] = bytes.fromhex("0a090501")
    a[11:15] = teid.to_bytes(4, "big")
    i = IP(src="192.0.2.1", dst="10.9.5.1", id=3) / G / \
        GTP_U_Header(gtp_type=255, teid=teid) / ue6
    o = IPv6(src="fc00:9:5:0:c000:201::", dst="fc00:9::c1", hlim=49) / \
        SRH(addresses=[str(ipaddress.IPv6Address(bytes(a))), "fc00:9::c1"],
            segleft=1, lastentry=1, nh=41) / ue6
elif case == "bad-version":
    i = IPv6(src="fc00:1::1", dst="fc00:100:d::1") / G / \
        GTP_U_Header(version=2, gtp_type=255, teid=teid) / ue6
    o = None
elif case == "bad-ext":		# an extension header of length 0
    g = bytearray(raw(GTP_U_Header(gtp_type=255, teid=teid, next_ex=0x85) /
                      GTPPDUSessionContainer(type=1, QFI=9) / ue6))
    g[12] = 0
    i = IPv6(src="fc00:1::1", dst="fc00:100:d::1") / G / bytes(g)
    o = None
# GTP-U messages over SRv6 (RFC 9433 6.1's note; VPP's encoding): the
# message in the SRH's Tag (Echo Request 0x4, Response 0x8), the Sequence
# Number 7 in B's PDU Session ID, Next Header 59, the IEs after the SRH;
# the tag travels in a Private Extension IE (TS 29.281 8.6).
elif case.startswith("echo") or case == "sehn":
    pe = b"\xff" + (2 + len(pl)).to_bytes(2, "big") + b"\x00\x00" + pl
    rec = b"\x0e\x00"			# Recovery IE, restart counter 0
    gnb = IPv6(src="fc00:1::1", dst="fc00:100:d::1")
    req = GTP_U_Header(gtp_type=1, teid=0, S=1, seq=7) / pe
    o = None
    if case == "echo-6d":	# gNB's Echo Request to End.M.GTP6.D
        i = gnb / G / req
        o = IPv6(src="fc00:1::2", dst="fc00:9::c1", hlim=63) / \
            SRH(addresses=[b(0, 7 << 16), "fc00:9::c1"], segleft=1,
                lastentry=1, nh=59, tag=4) / pe
    elif case in ("echo-6di", "echo-6di-vpp"):	# as a G-PDU: D, S or A
        d = "fc00:100:1d::1" if case == "echo-6di" else "fc00:100:2d::1"
        i = IPv6(src="fc00:1::1", dst=d) / G / req
        o = IPv6(src="fc00:1::2" if case == "echo-6di" else "fc00:1::1",
                 dst="fc00:9::c1", hlim=63) / \
            SRH(addresses=[d, b(0, 7 << 16), "fc00:9::c1"],
                segleft=2, lastentry=2, nh=59, tag=4) / pe
    elif case == "echo-6e":	# the UPF side's Echo Request, over SRv6
        i = IPv6(src="fc00:9::c1", dst="fc00:100:e:0:0:700::") / \
            SRH(addresses=["fc00:3::2"], segleft=1, lastentry=0, nh=59,
                tag=4) / pe
        o = IPv6(src="fc00:9::c1", dst="fc00:3::2", hlim=63) / G / \
            GTP_U_Header(gtp_type=1, teid=0, S=1, seq=7) / pe
    elif case == "echo-rsp-6e":	# an Echo Response, its Recovery IE kept
        i = IPv6(src="fc00:9::c1", dst="fc00:100:e:0:0:700::") / \
            SRH(addresses=["fc00:3::2"], segleft=1, lastentry=0, nh=143,
                tag=8) / rec / pe
        o = IPv6(src="fc00:9::c1", dst="fc00:3::2", hlim=63) / G / \
            GTP_U_Header(gtp_type=2, teid=0, S=1, seq=7) / rec / pe
    elif case == "echo-4d":	# an IPv4 gNB's Echo Request, H.M.GTP4.D
        a = bytearray(16)
        a[0:6] = bytes.fromhex("fc000009004d")
        a[6:10] = bytes.fromhex("0a090501")
        a[11:15] = (7 << 16).to_bytes(4, "big")
        i = IP(src="192.0.2.1", dst="10.9.5.1", id=3) / G / req
        o = IPv6(src="fc00:9:5:0:c000:201::", dst="fc00:9::c1", hlim=63) / \
            SRH(addresses=[str(ipaddress.IPv6Address(bytes(a))), "fc00:9::c1"],
                segleft=1, lastentry=1, nh=59, tag=4) / pe
    elif case == "echo-nos":	# no Sequence Number: malformed
        i = gnb / G / GTP_U_Header(gtp_type=1, teid=0, S=0) / pe
    elif case == "echo-norec":	# an Echo Response without Recovery
        i = gnb / G / GTP_U_Header(gtp_type=2, teid=0, S=1, seq=7) / pe
    else:			# Supported Extension Headers Notification
        i = gnb / G / GTP_U_Header(gtp_type=31, teid=0, S=1, seq=7) / pe
print(raw(i).hex(), raw(o).hex() if o is not None else "-")
PY
}

# case_gtp DESC CASE TAG LABEL [TEID]
case_gtp() {
	local in exp out
	read -r in exp <<<"$(gtp "$2" "$3" "${5:-0x100}")"
	out=$(pkt_xchg --tag "$3" --hex "$in")
	expect_frame "$1" "$out" "$4" "$exp"
}

case_gtp "End.M.GTP6.D: G-PDU TEID 0x100 -> SRH (fc00:9:e::100:0:0, c1) SL 1 from encap-source, T-PDU whole" \
	6d up1 s1 0x100
case_gtp "End.M.GTP6.D: TEID 0x200, another session: its own SID B" \
	6d up2 s1 0x200
case_gtp "End.M.GTP6.D: PDU Session Container QFI 9, IPv4 T-PDU: QFI in Args.Mob.Session, next header 4" \
	6d-qfi upq s1 0xabcdef12
case_gtp "End.M.GTP6.Di (RFC 9433 6.4): G-PDU TEID 0x100 -> SRH (D fc00:100:1d::1, fc00:9:e::100:0:0, c1) SL 2 from encap-source S" \
	6di updi1 s1 0x100
case_gtp "End.M.GTP6.Di: TEID 0x200, another session: its own B, the same D" \
	6di updi2 s1 0x200
case_gtp "End.M.GTP6.Di encoding vpp: G-PDU TEID 0x100 -> the same SRH (D fc00:100:2d::1) from the gNB's source" \
	6di-vpp updv1 s1 0x100
case_gtp "End.M.GTP6.E after End.M.GTP6.Di (RFC) and End at c1: the gNB's GTP-U to D, TEID 0x100, from S" \
	6di-e updie s1 0x100
case_gtp "End.M.GTP6.E after End.M.GTP6.Di encoding vpp: the very packet the gNB sent (but the hop limit)" \
	6di-vpp-e updve s1 0x100
case_gtp "End.M.GTP6.E source fc00:100:d::1 after End.M.GTP6.Di (RFC): 5.4's GW-B_out, from that source (6.5 S04)" \
	6di-e-src updis s1 0x100
case_gtp "End.M.GTP6.E: SL 1 -> IPv6/UDP/GTP-U to SRH[0], TEID and QFI 5 + RQI from the SID, source kept, UDP checksum" \
	6e dn1 s2 0x100
case_gtp "End.M.GTP6.E: TEID 0x200 from another SID argument" \
	6e dn2 s2 0x200
case_gtp "End.M.GTP4.E: IPv4 DA and TEID from the SID, IPv4 SA from the IPv6 SA, through the reinjection device" \
	4e dn4 s2 0x300

case_gtp "H.M.GTP4.D: IPv4 GTP-U TEID 0x100 -> SRH (B with 10.9.5.1 and the session, c1), source with 192.0.2.1, through the reinjection device" \
	4d up4a s1 0x100
case_gtp "H.M.GTP4.D: TEID 0x200, another session: its own B" \
	4d up4b s1 0x200

case_gtp "End.M.GTP6.D: the gNB's Echo Request seq 7 -> SRH Tag 0x4 (Echo Request), B's PDU Session ID 0x00070000, next header 59, its IEs after the SRH" \
	echo-6d e6d s1
case_gtp "End.M.GTP6.Di: Echo Request -> D in SRH[0], B with seq 7, Tag 0x4, from S" \
	echo-6di e6di s1
case_gtp "End.M.GTP6.Di encoding vpp: Echo Request -> D in SRH[0], B with seq 7, Tag 0x4, the gNB's source" \
	echo-6di-vpp e6dv s1
case_gtp "End.M.GTP6.E: SRH Tag 0x4 -> GTP-U Echo Request (S, seq 7 from the SID, TEID 0) to SRH[0]" \
	echo-6e e6e s2
case_gtp "End.M.GTP6.E: SRH Tag 0x8 (next header 143, VPP's) -> Echo Response, its own Recovery IE kept, not doubled" \
	echo-rsp-6e e6er s2
case_gtp "H.M.GTP4.D: an IPv4 gNB's Echo Request -> B with 10.9.5.1 and seq 7, Tag 0x4, through the reinjection device" \
	echo-4d e4d s1

for c in bad-version bad-ext echo-nos echo-norec sehn; do
	read -r in _ <<<"$(gtp "$c" "x$c")"
	out=$(pkt_xchg --tag "x$c" --hex "$in")
	expect_none "End.M.GTP6.D: $c leaves nothing" "$out"
done

D=fc00:100:d::/64
expect_eq "End.M.GTP6.D counted 3 G-PDUs and 1 Echo Request" \
	"$(ctl_get "sid('$D')['packets']")" 4
expect_eq "End.M.GTP6.D counted 4 gtpu_malformed (2 headers, Echo without S, Echo Response without Recovery)" \
	"$(ctl_get "drop(sid('$D'), 'gtpu_malformed')")" 4
expect_eq "End.M.GTP6.D counted 1 gtpu_message (Supported Extension Headers Notification)" \
	"$(ctl_get "drop(sid('$D'), 'gtpu_message')")" 1
expect_eq "End.M.GTP6.Di counted 2 G-PDUs and 1 Echo Request" \
	"$(ctl_get "sid('fc00:100:1d::/64')['packets']")" 3
expect_eq "End.M.GTP6.Di encoding vpp counted 1 G-PDU and 1 Echo Request" \
	"$(ctl_get "sid('fc00:100:2d::/64')['packets']")" 2
expect_eq "srv6ctl shows End.M.GTP6.Di's encodings: rfc (the default) and vpp" \
	"$(ctl_get "sid('fc00:100:1d::/64')['encoding'] + ' ' + sid('fc00:100:2d::/64')['encoding']")" "rfc vpp"
expect_eq "End.M.GTP6.E counted 4 G-PDUs and 2 Echo messages" \
	"$(ctl_get "sid('fc00:100:e::/64')['packets']")" 6
expect_eq "End.M.GTP6.E with a source counted 1, srv6ctl shows its source" \
	"$(ctl_get "str(sid('fc00:100:e2::/64')['packets']) + ' ' + sid('fc00:100:e2::/64')['source']")" "1 fc00:100:d::1"
expect_eq "End.M.GTP4.E counted 1" \
	"$(ctl_get "sid('fc00:104::/32')['packets']")" 1
expect_eq "H.M.GTP4.D's route counted 2 G-PDUs and 1 Echo Request" \
	"$(ctl_get "pol('10.9.5.0/24')['packets']")" 3
expect_eq "End.M.GTP4.E's result injected" \
	"$(ctl_get "s['totals']['injected'] >= 1")" True
ns_finish
