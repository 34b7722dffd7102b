#!/usr/bin/python3
"""mobile-vectors.py - the packets of tests/check_mobile.c, built with
scapy's GTP-U layer (scapy.contrib.gtp), independently of srv6d.

The inputs are those of VPP's test/test_srv6_mobile.py (FDio/vpp): the
same addresses, TEIDs and inner packets; the outputs are what RFC 9433's
pseudocode makes of them (6.3, 6.4, 6.5, 6.6), with the choices srv6d.conf(5)
states: UDP source port 2152, a PDU Session Container (downlink) only
for a QFI or R, the outer IPv6 header of End.M.GTP6.D as the headend's
(inner traffic class, flow label and hop limit; 64 over IPv4), and
End.M.GTP6.E keeping the source address (as VPP) unless it has a
`source`.  Run it to print the C strings; check_mobile.c holds its output.
"""
from scapy.all import IP, IPv6, UDP, IPv6ExtHdrSegmentRouting, raw
from scapy.contrib.gtp import GTP_U_Header, GTPPDUSessionContainer


def h(name, pkt):
    b = raw(pkt).hex()
    print("static const char %s[] =" % name)
    for i in range(0, len(b), 64):
        print('\t"%s"%s' % (b[i:i + 64], ";" if i + 64 >= len(b) else ""))
    print()


INNER6 = IPv6(dst="a::1", src="b::1") / UDP(sport=1000, dport=23) / b"srv6d-gtp"
INNER4 = IP(dst="10.9.0.1", src="10.8.0.1", ttl=33, id=7) / \
    UDP(sport=1000, dport=23) / b"srv6d-gtp"
GTP = UDP(sport=2152, dport=2152)

# ---- End.M.GTP6.D: sid 2001::/64, mob-prefix d4::/64, srh segs d2::,d3::,
# encap-source a1::1 (VPP's TestSRv6EndMGTP6D: SRH[0] d4::c800:0).
gnb = IPv6(src="2002::1", dst="2001::1", hlim=60)
h("GTP6D_IN", gnb / GTP / GTP_U_Header(gtp_type=255, teid=200) / INNER6)
h("GTP6D_OUT", IPv6(src="a1::1", dst="d2::", hlim=64) /
  IPv6ExtHdrSegmentRouting(addresses=["d4::c8:0:0".replace("c8:0:0", "c800:0"),
                                      "d3::", "d2::"],
                           segleft=2, lastentry=2, nh=41) / INNER6)
# uplink with a PDU Session Container (QFI 9), an IPv4 T-PDU
h("GTP6D_QFI_IN", gnb / GTP /
  GTP_U_Header(gtp_type=255, teid=0x12345678, next_ex=0x85) /
  GTPPDUSessionContainer(type=1, QFI=9) / INNER4)
h("GTP6D_QFI_OUT", IPv6(src="a1::1", dst="d2::", hlim=64) /
  IPv6ExtHdrSegmentRouting(addresses=["d4::2412:3456:7800:0", "d3::", "d2::"],
                           segleft=2, lastentry=2, nh=4) / INNER4)
# ---- End.M.GTP6.Di (6.4, drop-in): the same SID, mob-prefix and policy.
# RFC 9433 6.4 (the default): "S05. Set the outer IPv6 SA to S" (the
# headend's, encap-source a1::1), "S06. Set the outer IPv6 DA to the first
# SID of B", "S08. Prepend D to the SRH (as SRH[0]) and set SL
# accordingly": D the original DA 2001::1, then B with the session (as
# 5.4's flow has SGB::TEID), then the policy.
h("GTP6DI_RFC_OUT", IPv6(src="a1::1", dst="d2::", hlim=64) /
  IPv6ExtHdrSegmentRouting(addresses=["2001::1", "d4::c800:0", "d3::", "d2::"],
                           segleft=3, lastentry=3, nh=41) / INNER6)
# `encoding vpp`: VPP's node srv6_end_m_gtp6_d_di (no test of its own):
# the same SRH, the gNB's source kept.
h("GTP6DI_OUT", IPv6(src="2002::1", dst="d2::", hlim=64) /
  IPv6ExtHdrSegmentRouting(addresses=["2001::1", "d4::c800:0", "d3::", "d2::"],
                           segleft=3, lastentry=3, nh=41) / INNER6)
# what End.M.GTP6.E at B makes of GTP6DI_RFC_OUT (after End at d2::, d3::):
# the gNB's GTP-U packet to D with its TEID, from S (End.M.GTP6.E keeps
# the source), the hop limit the outer header's
h("GTP6DI_RFC_E_OUT", IPv6(src="a1::1", dst="2001::1", hlim=64) / GTP /
  GTP_U_Header(gtp_type=255, teid=200) / INNER6)
# ... and by End.M.GTP6.E with `source d5::d` (6.5 "S04. Set the outer
# IPv6 SA to S", S an End.M.GTP6.D SID at that gateway): 5.4's GW-B_out,
# "(GW-B, U::1)(GTP: TEID T)(A,Z)"
h("GTP6DI_RFC_E_SRC_OUT", IPv6(src="d5::d", dst="2001::1", hlim=64) / GTP /
  GTP_U_Header(gtp_type=255, teid=200) / INNER6)
# a GTP-U Echo Request to the SID
h("GTP6D_ECHO", gnb / GTP / GTP_U_Header(gtp_type=1, teid=0, S=1, seq=9))

# ---- End.M.GTP6.E: sid aaaa:aaaa:aaaa:aaaa::/64 (VPP's TestSRv6EndMGTP6E:
# DA prefix | QFI 0 | TEID bbbbbbbb, SRH[0] a1::1).
src6e = "cccc:cccc:cccc:cccc:dddd:dddd:1111:1111"
h("GTP6E_IN", IPv6(src=src6e, dst="aaaa:aaaa:aaaa:aaaa:bb:bbbb:bb00:0", hlim=61) /
  IPv6ExtHdrSegmentRouting(segleft=1, lastentry=0, addresses=["a1::1"], nh=41) /
  INNER6)
h("GTP6E_OUT", IPv6(src=src6e, dst="a1::1", hlim=61) / GTP /
  GTP_U_Header(gtp_type=255, teid=0xbbbbbbbb) / INNER6)
# QFI 5, R: a downlink PDU Session Container with QFI 5 and RQI
h("GTP6E_QFI_IN", IPv6(src=src6e, dst="aaaa:aaaa:aaaa:aaaa:16bb:bbbb:bb00:0",
                       hlim=61) /
  IPv6ExtHdrSegmentRouting(segleft=1, lastentry=0, addresses=["a1::1"], nh=4) /
  INNER4)
h("GTP6E_QFI_OUT", IPv6(src=src6e, dst="a1::1", hlim=61) / GTP /
  GTP_U_Header(gtp_type=255, teid=0xbbbbbbbb, next_ex=0x85) /
  GTPPDUSessionContainer(type=0, QFI=5, RQI=1) / INNER4)

# ---- End.M.GTP4.E: sid aaaa:aaaa::/32 v4src-position 64 (VPP's
# TestSRv6EndMGTP4E: DA prefix | IPv4 DA | 0x11 (QFI 4, U) | TEID bbbbbbbb,
# SA cc*8 | 192.168.192.10 | dddd 1111).
da4e = "aaaa:aaaa:a00:102:11bb:bbbb:bb11:1111"
h("GTP4E_IN", IPv6(src="cccc:cccc:cccc:cccc:c0a8:c00a:dddd:1111", dst=da4e,
                   hlim=62, tc=0xb8) /
  IPv6ExtHdrSegmentRouting(segleft=0, lastentry=0, addresses=[da4e], nh=41) /
  INNER6)
h("GTP4E_OUT", IP(src="192.168.192.10", dst="10.0.1.2", ttl=62, tos=0xb8,
                  id=0, flags=0) / GTP /
  GTP_U_Header(gtp_type=255, teid=0xbbbbbbbb, next_ex=0x85) /
  GTPPDUSessionContainer(type=0, QFI=4) / INNER6)

# ---- H.M.GTP4.D: route 1.1.1.1/32 encap gtp4 mob-prefix d4::/32
# src-prefix c1::/64 segs d2::,d3:: (VPP's TestSRv6TMGTP4D: SRH[0]
# d4:0:101:101::c800:0).
h("GTP4D_IN", IP(src="2.2.2.2", dst="1.1.1.1", ttl=64, id=1) / GTP /
  GTP_U_Header(gtp_type=255, teid=200) / INNER6)
h("GTP4D_OUT", IPv6(src="c1::202:202:0:0", dst="d2::", hlim=64) /
  IPv6ExtHdrSegmentRouting(addresses=["d4:0:101:101::c800:0", "d3::", "d2::"],
                           segleft=2, lastentry=2, nh=41) / INNER6)

# ---- GTP-U messages carried over SRv6 (RFC 9433 6.1's note: encoded as
# VPP's srv6-mobile plugin does): the message in the SRH's Tag (End Marker
# 0x1, Error Indication 0x2, Echo Request 0x4, Echo Response 0x8), the
# Sequence Number (9) in the first 16 bits of Args.Mob.Session's PDU
# Session ID, an Error Indication's IEs in TLV 10 (a sub-TLV 1, length,
# the IEs), nothing or the message's own IEs after the SRH (next header
# 59, or 143 as VPP's D side writes).  End.M.GTP6.E / End.M.GTP4.E rebuild
# the GTP-U message (TS 29.281 7.2, 7.3), the TEID 0 but an End Marker's.
from scapy.all import IPv6ExtHdrSegmentRoutingTLV  # noqa: E402
from scapy.contrib.gtp import IE_Recovery  # noqa: E402

da6m = "aaaa:aaaa:aaaa:aaaa:0:900::"


def srh_msg(tag, nh=59, tlvs=None):
    return IPv6ExtHdrSegmentRouting(segleft=1, lastentry=0, addresses=["a1::1"],
                                    nh=nh, tag=tag, tlv_objects=tlvs or [])


out6 = IPv6(src=src6e, dst="a1::1", hlim=61) / GTP
h("GTP6E_ECHO_REQ_IN", IPv6(src=src6e, dst=da6m, hlim=61) / srh_msg(0x4))
h("GTP6E_ECHO_REQ_OUT", out6 / GTP_U_Header(gtp_type=1, S=1, teid=0, seq=9))
h("GTP6E_ECHO_RSP_IN", IPv6(src=src6e, dst=da6m, hlim=61) / srh_msg(0x8, 143))
h("GTP6E_ECHO_RSP_OUT", out6 / GTP_U_Header(gtp_type=2, S=1, teid=0, seq=9) /
  IE_Recovery(restart_counter=0))
# VPP's D side leaves the Echo Response's Recovery IE (restart counter 5)
# after the SRH: kept, not doubled
h("GTP6E_ECHO_RSP_IE_IN", IPv6(src=src6e, dst=da6m, hlim=61) /
  srh_msg(0x8, 143) / b"\x0e\x05")
h("GTP6E_ECHO_RSP_IE_OUT", out6 / GTP_U_Header(gtp_type=2, S=1, teid=0, seq=9) /
  IE_Recovery(restart_counter=5))
h("GTP6E_END_MARKER_IN", IPv6(src=src6e, dst="aaaa:aaaa:aaaa:aaaa:bb:bbbb:bb00:0",
                              hlim=61) / srh_msg(0x1, 143))
h("GTP6E_END_MARKER_OUT", out6 / GTP_U_Header(gtp_type=254, teid=0xbbbbbbbb))
# Error Indication: TEID Data I 0x64, GTP-U Peer Address 2002::1 (TS 29.281
# 8.3, 8.4), 24 bytes; the TLV padded inside to 32 bytes (as VPP pads it)
ies = bytes.fromhex("1000000064") + bytes.fromhex("850010") + \
    bytes.fromhex("20020000000000000000000000000001")
tlv = IPv6ExtHdrSegmentRoutingTLV(type=10, len=30,
                                  value=bytes([1, len(ies)]) + ies + bytes(4))
h("GTP6E_ERROR_IND_IN", IPv6(src=src6e, dst=da6m, hlim=61) /
  srh_msg(0x2, 59, [tlv]))
h("GTP6E_ERROR_IND_OUT", out6 / GTP_U_Header(gtp_type=26, S=1, teid=0, seq=9) /
  ies)
# End.M.GTP4.E: IPv4 DA 10.0.1.2, the session after it, SA from bit 64
da4m = "aaaa:aaaa:a00:102:0:900::"
h("GTP4E_ECHO_REQ_IN", IPv6(src="cccc:cccc:cccc:cccc:c0a8:c00a:dddd:1111",
                            dst=da4m, hlim=62) /
  IPv6ExtHdrSegmentRouting(segleft=0, lastentry=0, addresses=[da4m], nh=59,
                           tag=0x4))
h("GTP4E_ECHO_REQ_OUT", IP(src="192.168.192.10", dst="10.0.1.2", ttl=62,
                           id=0, flags=0) / GTP /
  GTP_U_Header(gtp_type=1, S=1, teid=0, seq=9))

# ---- the D side of the same encoding: End.M.GTP6.D / .Di / H.M.GTP4.D
# carry the message under the policy, the SRH whole, Next Header 59, the
# Tag the message's, B's PDU Session ID the Sequence Number (9) or an End
# Marker's TEID; an Echo's IEs after the SRH; an Error Indication's in
# TLV 10 after a PadN to 8 bytes.  The outer hop limit, traffic class and
# flow label are the GTP-U packet's (IPv4: TTL 64, TOS 0).
def srh_d(addrs, tag, tlvs=None):
    return IPv6ExtHdrSegmentRouting(addresses=addrs, segleft=len(addrs) - 1,
                                    lastentry=len(addrs) - 1, nh=59, tag=tag,
                                    tlv_objects=tlvs or [])


dout = IPv6(src="a1::1", dst="d2::", hlim=60)
h("GTP6D_ECHO_OUT", dout / srh_d(["d4::900:0:0", "d3::", "d2::"], 0x4))
h("GTP6DI_ECHO_OUT", IPv6(src="2002::1", dst="d2::", hlim=60) /
  srh_d(["2001::1", "d4::900:0:0", "d3::", "d2::"], 0x4))
# the RFC encoding: the same SRH from S; End.M.GTP6.E's Echo Request from it
h("GTP6DI_RFC_ECHO_OUT", dout /
  srh_d(["2001::1", "d4::900:0:0", "d3::", "d2::"], 0x4))
h("GTP6DI_RFC_ECHO_E_OUT", IPv6(src="a1::1", dst="2001::1", hlim=60) / GTP /
  GTP_U_Header(gtp_type=1, teid=0, S=1, seq=9))
h("GTP6D_ECHO_RSP_IN", gnb / GTP / GTP_U_Header(gtp_type=2, teid=0, S=1, seq=9) /
  IE_Recovery(restart_counter=3))
h("GTP6D_ECHO_RSP_OUT", dout / srh_d(["d4::900:0:0", "d3::", "d2::"], 0x8) /
  b"\x0e\x03")
h("GTP6D_END_MARKER_IN", gnb / GTP / GTP_U_Header(gtp_type=254, teid=0x123))
h("GTP6D_END_MARKER_OUT", dout / srh_d(["d4::1:2300:0", "d3::", "d2::"], 0x1))
h("GTP6D_ERROR_IND_IN", gnb / GTP / GTP_U_Header(gtp_type=26, teid=0, S=1, seq=9) /
  ies)
h("GTP6D_ERROR_IND_OUT", dout / srh_d(
    ["d4::900:0:0", "d3::", "d2::"], 0x2,
    [IPv6ExtHdrSegmentRoutingTLV(type=4, len=2, value=bytes(2)),
     IPv6ExtHdrSegmentRoutingTLV(type=10, len=26, value=bytes([1, 24]) + ies)]))
h("GTP4D_ECHO_IN", IP(src="2.2.2.2", dst="1.1.1.1", ttl=64, id=1) / GTP /
  GTP_U_Header(gtp_type=1, teid=0, S=1, seq=9))
h("GTP4D_ECHO_OUT", IPv6(src="c1::202:202:0:0", dst="d2::", hlim=64) /
  srh_d(["d4:0:101:101:0:900::", "d3::", "d2::"], 0x4))
