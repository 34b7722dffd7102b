#!/usr/bin/python3
"""mobile-vectors.py - the packets of tests/check_mobile.c, built with
scapy's GTP-U layer (scapy.contrib.gtp), independently of srv6d.

The inputs are those of VPP's test/test_srv6_mobile.py (FDio/vpp): the
same addresses, TEIDs and inner packets; the outputs are what RFC 9433's
pseudocode makes of them (6.3, 6.4, 6.5, 6.6), with the choices srv6d.conf(5)
states: UDP source port 2152, a PDU Session Container (downlink) only
for a QFI or R, the outer IPv6 header of End.M.GTP6.D as the headend's
(inner traffic class, flow label and hop limit; 64 over IPv4), and
End.M.GTP6.E keeping the source address (as VPP).  Run it to print the C
strings; check_mobile.c holds its output.
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
# ---- End.M.GTP6.Di (6.4, drop-in): the same SID, mob-prefix and policy;
# VPP's node srv6_end_m_gtp6_d_di (no test of its own): Segment List[0]
# the original DA, [1] B, then the policy, the gNB's source kept.
h("GTP6DI_OUT", IPv6(src="2002::1", dst="d2::", hlim=64) /
  IPv6ExtHdrSegmentRouting(addresses=["2001::1", "d4::c800:0", "d3::", "d2::"],
                           segleft=3, lastentry=3, nh=41) / INNER6)
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
