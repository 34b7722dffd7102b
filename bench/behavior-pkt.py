#!/usr/bin/python3
# behavior-pkt.py CASE FILE - the input frames of one behavior of
# bench/behavior-rate.sh as a trafgen config (FILE), 8 of them differing in
# the source address's last byte; prints the frame length (with the
# Ethernet header: what tbf counts).  The packets are those of
# tests/ns/mobile.sh, tests/ns/oam.sh and bench/behavior-cost.c, each
# carrying the same inner IPv6/UDP packet (80 bytes) where the behavior
# has a T-PDU or an inner packet.  Needs scapy (/usr/bin/python3 has it).
import logging
import sys

logging.getLogger("scapy").setLevel(logging.ERROR)
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting as SRH  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.contrib.gtp import GTP_U_Header  # noqa: E402
from scapy.compat import raw  # noqa: E402

GWA, G0 = "02:5b:00:00:01:02", "02:5b:00:00:01:01"
FINAL = "fc00:300::2"
TEID = 0x100

case, path = sys.argv[1], sys.argv[2]
ue6 = IPv6(src="fc00:1::100", dst="fc00:9:ee::1", hlim=50) / \
    UDP(sport=4000, dport=5000) / (b"SRV6BENCH;" + b"." * 22)
G = UDP(sport=2152, dport=2152)


def frame(i):
    s6 = "fc00:1::%x" % (0x100 + i)
    if case in ("end", "kernel", "oam", "oam-every", "oam-unix"):
        # End: SRH [final, SID] SL 1; the O-flag (RFC 9259) for oam*.
        p = IPv6(src=s6, dst="fc00:100::1") / \
            SRH(addresses=[FINAL, "fc00:100::1"], segleft=1, lastentry=1,
                nh=41, oam=1 if case.startswith("oam") else 0) / ue6
    elif case == "csid":
        # bench/behavior-cost.c's REPLACE-C-SID packet: 32-bit C-SIDs,
        # Segment List[1] a container of four, DA.Arg.Index 3: the next
        # C-SID of the same container (DA -> fc00:a::102:0:0:2).
        p = IPv6(src=s6, dst="fc00:a:0:0:101::3") / \
            SRH(addresses=["0:0:0:202:0:201:0:200", "0:104:0:103:0:102:0:101"],
                segleft=1, lastentry=1, nh=41) / ue6
    elif case == "map":
        p = IPv6(src=s6, dst="fc00:100:1::7") / \
            SRH(addresses=["fc00:9::c1", "fc00:100:1::7"], segleft=1,
                lastentry=1, nh=41) / ue6
    elif case == "gtp6d":
        # RFC 9433 6.3: a G-PDU from the gNB to the SID.
        p = IPv6(src=s6, dst="fc00:100:d::1") / G / \
            GTP_U_Header(gtp_type=255, teid=TEID) / ue6
    elif case == "gtp6di":
        # RFC 9433 6.4: the same G-PDU to the drop-in SID (the UPF's
        # address S, kept in SRH[0]).
        p = IPv6(src=s6, dst="fc00:100:1d::1") / G / \
            GTP_U_Header(gtp_type=255, teid=TEID) / ue6
    elif case == "gtp6e":
        # RFC 9433 6.5: TEID and QFI in the SID's argument, SRH[0] the gNB.
        da = "fc00:100:e:0:%02x%02x:%04x:%02x00:0" % (
            5 << 2 | 2, TEID >> 24, (TEID >> 8) & 0xffff, TEID & 0xff)
        p = IPv6(src="fc00:9::%x" % (0xc100 + i), dst=da, hlim=64) / \
            SRH(addresses=["fc00:3::2"], segleft=1, lastentry=0, nh=41) / ue6
    elif case == "gtp4e":
        # RFC 9433 6.6: the IPv4 DA 203.0.113.2 and the TEID in the SID,
        # the IPv4 SA 192.0.2.1 at bit 64 of the IPv6 SA.
        da = "fc00:104:cb00:7102:00%02x:%04x:%02x00:0" % (
            TEID >> 24, (TEID >> 8) & 0xffff, TEID & 0xff)
        p = IPv6(src="fc00:9::c000:201:0:%x" % (0x100 + i), dst=da, hlim=64) / \
            SRH(addresses=[da], segleft=0, lastentry=0, nh=41) / ue6
    elif case == "gtp4d":
        # RFC 9433 6.7: IPv4 GTP-U from the gNB to a `route ... encap gtp4`.
        p = IP(src="192.0.2.%d" % (10 + i), dst="10.9.5.1", id=3) / G / \
            GTP_U_Header(gtp_type=255, teid=TEID) / ue6
    else:
        sys.exit("behavior-pkt.py: unknown case " + case)
    return raw(Ether(dst=GWA, src=G0) / p)


frames = [frame(i) for i in range(8)]
with open(path, "w") as f:
    for fr in frames:
        f.write("{\n  " + ", ".join("0x%02x" % b for b in fr) + "\n}\n")
assert len({len(fr) for fr in frames}) == 1
print(len(frames[0]))
