#!/usr/bin/env python3
"""rcsid-vectors.py - the REPLACE-C-SID (RFC 9800 4.2) vectors of
check_end.c, built from the RFC's rules, not from srv6d's code (no kernel
or VPP implements the flavor to compare with).

Locator-Block 2001:db8:0::/48, 32-bit C-SIDs: 4 a container, DA.Arg.Index
the last 2 bits of the destination.  C-SID i of a container is its bits
[i*32..i*32+31], bit 0 the most significant (RFC 9800 4.2.1, notes)."""
import struct

BLOCK = bytes.fromhex("20010db80000")
SRC = bytes.fromhex("20010db8000000000000000000000001")
UDP = bytes.fromhex("04d2162e000d123468656c6c6f")


def container(csids):
    """csids[i] is C-SID i (0: none)."""
    return b"".join(struct.pack(">I", c) for c in csids)


def da(csid, idx):
    a = bytearray(BLOCK + struct.pack(">I", csid) + bytes(6))
    a[15] |= idx
    return bytes(a)


def pkt(dst, sl, segs, hl=64):
    le = len(segs) - 1
    srh = struct.pack(">BBBBBBH", 17, 2 * len(segs), 4, sl, le, 0, 0)
    srh += b"".join(segs)
    pay = srh + UDP
    return struct.pack(">IHBB", 6 << 28, len(pay), 43, hl) + SRC + dst + pay


def emit(name, b):
    h = b.hex()
    print("static const char %s[] =" % name)
    lines = [h[i:i + 64] for i in range(0, len(h), 64)]
    for i, l in enumerate(lines):
        print('\t"%s"%s' % (l, ";" if i == len(lines) - 1 else ""))
    print()


C1 = [0x00000104, 0x00000103, 0x00000102, 0x00000101]   # 4 C-SIDs
C0 = [0, 0x00000202, 0x00000201, 0x00000200]           # 3, then the end
FULL = bytes.fromhex("20010db800000000000000000000000f")
P1 = [0, 0, 0x00000302, 0x00000301]                    # 2, then a SID

# S09 S13 S28: the next C-SID of the same container, SRH untouched.
emit("RCSID_IN", pkt(da(0x101, 3), 1, [container(C0), container(C1)]))
emit("RCSID_OUT", pkt(da(0x102, 2), 1, [container(C0), container(C1)]))
# S20 S24 S25 S28: index 0, the first C-SID of the next container.
emit("RCSIDNX_IN", pkt(da(0x104, 0), 1, [container(C0), container(C1)]))
emit("RCSIDNX_OUT", pkt(da(0x200, 3), 0, [container(C0), container(C1)]))
# S14-S17: the container's next C-SID is 0: the next entry, whole.
emit("RCSIDFULL_IN", pkt(da(0x302, 2), 1, [FULL, container(P1)]))
emit("RCSIDFULL_OUT", pkt(FULL, 0, [FULL, container(P1)]))
# Segments Left 0, index 2: the last container's C-SID 1.
emit("RCSIDLAST_IN", pkt(da(0x201, 2), 0, [container(C0), container(C1)]))
emit("RCSIDLAST_OUT", pkt(da(0x202, 1), 0, [container(C0), container(C1)]))
# The same with PSP (4.2.4 S28.1): C-SID 0 is 0, the SRH goes.
b = bytearray(da(0x202, 1))
psp = struct.pack(">IHBB", 6 << 28, len(UDP), 17, 64) + SRC + bytes(b) + UDP
emit("RCSIDPSP_OUT", psp)
# S02: Segments Left 0, index 1 and C-SID 0 of Segment List[0] is 0.
emit("RCSIDEND_IN", pkt(da(0x202, 1), 0, [container(C0), container(C1)]))
# S10-S11: index != 0 and Segments Left > Last Entry.
emit("RCSIDBAD_IN", pkt(da(0x101, 3), 2, [container(C0), container(C1)]))
# S21-S22: index 0 and Segments Left > Last Entry + 1.
emit("RCSIDBAD0_IN", pkt(da(0x101, 0), 3, [container(C0), container(C1)]))
