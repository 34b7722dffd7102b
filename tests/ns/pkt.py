#!/usr/bin/python3
# pkt.py - build, send and capture SRv6 test packets across network namespaces.
#
#   pkt.py build [PKT]           print the packet's IP bytes as hex
#   pkt.py show HEX              print its fields as key=value words
#   pkt.py xchg --send NS:IF --dmac MAC [--cap LABEL=NS:IF ...]
#               [--timeout S] [--quiet S] [--count N] [PKT]
#       Open one capture socket per --cap in that namespace (before anything
#       is sent: no readiness race), send the packet from NS:IF, and print
#       "LABEL HEX" for every received frame that carries the packet's tag
#       (so ND, MLD and other noise is ignored), until the timeout or
#       --quiet S (0.3) after the last one.  Outgoing frames are not
#       captured.  Exit 0 even when nothing was captured.
#   pkt.py flood --send NS:IF --dmac MAC -n COUNT [PKT]
#       Send the packet COUNT times as fast as a raw socket allows.
#
# PKT options describe one packet: outer IPv6 (or IPv4 with --v4), an
# optional SRH, an optional inner IPv6/IPv4 packet and an upper layer
# carrying "SRV6T:<tag>" as payload.  The same options always build the same
# bytes, so a test builds the packet it expects with `build` and compares
# hex strings.
import argparse
import ctypes
import errno
import logging
import os
import select
import socket
import sys
import time

logging.getLogger("scapy").setLevel(logging.ERROR)
# scapy's import costs most of a run (0.54 s of 0.7 s), and the tests run
# pkt.py hundreds of times: leave out what pkt.py never uses, Wireshark's
# manufacturer database (180 ms; scapy reads it when tshark is
# installed) and the cryptography package (130 ms; scapy's IPsec and TLS
# layers).
_exists = os.path.exists
os.path.exists = lambda p: (not str(p).endswith("share/wireshark/manuf")
                            and _exists(p))
sys.modules.setdefault("cryptography", None)
from scapy.layers.inet import IP, UDP, ICMP, TCP
from scapy.layers.inet6 import (IPv6, IPv6ExtHdrSegmentRouting,
                                ICMPv6EchoRequest, ICMPv6EchoReply,
                                ICMPv6TimeExceeded, ICMPv6ParamProblem,
                                ICMPv6DestUnreach, ICMPv6PacketTooBig)
from scapy.packet import Raw
from scapy.compat import raw
os.path.exists = _exists
if sys.modules.get("cryptography", 0) is None:
    del sys.modules["cryptography"]

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
TAG_PREFIX = b"SRV6T:"


def auto_int(s):
    return int(s, 0)


def add_pkt_args(ap):
    g = ap.add_argument_group("packet")
    g.add_argument("--tag", default="t", help="payload tag (match key)")
    g.add_argument("--v4", action="store_true", help="outer IPv4, no SRH")
    g.add_argument("--src", help="outer source")
    g.add_argument("--dst", help="outer destination (default: segs[SL])")
    g.add_argument("--hlim", type=int, default=64, help="hop limit / TTL")
    g.add_argument("--fl", type=auto_int, default=0, help="flow label")
    g.add_argument("--tc", type=auto_int, default=0, help="traffic class")
    g.add_argument("--plen", type=int, help="override IPv6 payload length")
    g.add_argument("--segs", help="SRH segments in travel order a,b,c")
    g.add_argument("--srh-list", help="SRH segments in SRH order "
                   "(segments[0] first): the last segment first")
    g.add_argument("--sl", type=int, help="segments left (default LE)")
    g.add_argument("--le", type=int, help="last entry (default n-1)")
    g.add_argument("--srh-flags", type=auto_int, default=0)
    g.add_argument("--srh-tag", type=auto_int, default=0)
    g.add_argument("--srh-len", type=int, help="override hdr ext len")
    g.add_argument("--srh-nh", type=int, help="override SRH next header")
    g.add_argument("--srh-type", type=int, default=4, help="routing type")
    g.add_argument("--tlv", action="append", default=[],
                   help="pad1 | padn:LEN | raw:TYPE:HEX (repeatable)")
    g.add_argument("--inner", choices=["ipv6", "ipv4", "none"],
                   default="none", help="encapsulated packet")
    g.add_argument("--inner-src")
    g.add_argument("--inner-dst")
    g.add_argument("--inner-hlim", type=int, default=64)
    g.add_argument("--inner-fl", type=auto_int, default=0)
    g.add_argument("--inner-tc", type=auto_int, default=0)
    g.add_argument("--ul", choices=["udp", "echo", "echo-reply", "tcp",
                                    "none"], default="udp")
    g.add_argument("--sport", type=int, default=40000)
    g.add_argument("--dport", type=int, default=50000)
    g.add_argument("--echo-id", type=auto_int, default=0x5336)
    g.add_argument("--echo-seq", type=int, default=1)
    g.add_argument("--pad", type=int, default=0,
                   help="add this many bytes to the payload")
    g.add_argument("--truncate", type=int, help="cut to N bytes (lengths kept)")
    g.add_argument("--poke", action="append", default=[],
                   help="OFF:HEX overwrite bytes at OFF after building")
    g.add_argument("--hex", help="send these raw IP bytes instead")


def payload(a):
    return TAG_PREFIX + a.tag.encode() + b";" + b"." * a.pad


def upper(a, v6):
    data = payload(a)
    if a.ul == "udp":
        return UDP(sport=a.sport, dport=a.dport) / Raw(data)
    if a.ul == "tcp":
        return TCP(sport=a.sport, dport=a.dport, flags="S", seq=1) / Raw(data)
    if a.ul == "echo":
        if v6:
            return ICMPv6EchoRequest(id=a.echo_id, seq=a.echo_seq, data=data)
        return ICMP(type=8, id=a.echo_id, seq=a.echo_seq) / Raw(data)
    if a.ul == "echo-reply":
        if v6:
            return ICMPv6EchoReply(id=a.echo_id, seq=a.echo_seq, data=data)
        return ICMP(type=0, id=a.echo_id, seq=a.echo_seq) / Raw(data)
    return Raw(data)


def tlv_bytes(specs):
    out = b""
    for s in specs:
        f = s.split(":")
        if f[0] == "pad1":
            out += b"\x00"
        elif f[0] == "padn":
            n = int(f[1])
            out += bytes([4, n]) + b"\x00" * n
        elif f[0] == "raw":
            v = bytes.fromhex(f[2])
            out += bytes([int(f[1], 0), len(v)]) + v
        else:
            raise SystemExit("pkt.py: bad --tlv %r" % s)
    return out


def build(a):
    if a.hex:
        return bytes.fromhex(a.hex)
    inner = None
    if a.inner == "ipv6":
        inner = IPv6(src=a.inner_src, dst=a.inner_dst, hlim=a.inner_hlim,
                     fl=a.inner_fl, tc=a.inner_tc) / upper(a, True)
    elif a.inner == "ipv4":
        inner = IP(src=a.inner_src, dst=a.inner_dst, ttl=a.inner_hlim,
                   tos=a.inner_tc, id=1, flags="DF") / upper(a, False)
    if a.v4:
        outer = IP(src=a.src, dst=a.dst, ttl=a.hlim, tos=a.tc, id=1,
                   flags="DF")
        pkt = outer / (inner if inner is not None else upper(a, False))
        return trunc(raw(pkt), a)

    segs = None
    if a.segs:
        segs = list(reversed(a.segs.split(",")))
    elif a.srh_list:
        segs = a.srh_list.split(",")
    body = inner if inner is not None else upper(a, True)
    dst = a.dst
    if segs is not None:
        le = a.le if a.le is not None else len(segs) - 1
        sl = a.sl if a.sl is not None else le
        if dst is None:
            if sl >= len(segs):
                raise SystemExit("pkt.py: --dst needed when SL >= n")
            dst = segs[sl]
        tlvs = tlv_bytes(a.tlv)
        if a.inner == "ipv6":
            nh = 41
        elif a.inner == "ipv4":
            nh = 4
        elif a.ul == "udp":
            nh = 17
        elif a.ul == "tcp":
            nh = 6
        elif a.ul in ("echo", "echo-reply"):
            nh = 58
        else:
            nh = 59
        if a.srh_nh is not None:
            nh = a.srh_nh
        hlen = (8 + 16 * len(segs) + len(tlvs) + 7) // 8 - 1
        tlvs += b"\x00" * ((hlen + 1) * 8 - 8 - 16 * len(segs) - len(tlvs))
        if a.srh_len is not None:
            hlen = a.srh_len
        srh = bytes([nh, hlen, a.srh_type, sl, le, a.srh_flags]) + \
            a.srh_tag.to_bytes(2, "big")
        for s in segs:
            srh += socket.inet_pton(socket.AF_INET6, s)
        srh += tlvs
        rest = srh + raw(body)
        outer_nh = 43
    else:
        rest = raw(body)
        outer_nh = None
    if a.ul in ("udp", "tcp", "echo", "echo-reply") and inner is None \
            and segs is not None:
        # upper-layer checksum must use the final destination (RFC 8200 8.1)
        final = segs[0]
        up = IPv6(src=a.src, dst=final, hlim=a.hlim) / upper(a, True)
        rest = rest[:len(rest) - len(raw(up.payload))] + raw(up.payload)
    hdr = IPv6(src=a.src, dst=dst, hlim=a.hlim, fl=a.fl, tc=a.tc)
    if outer_nh is not None:
        hdr.nh = outer_nh
        pkt = raw(hdr / Raw(rest))
    else:
        pkt = raw(hdr / body)
    if a.plen is not None:
        pkt = pkt[:4] + a.plen.to_bytes(2, "big") + pkt[6:]
    return trunc(pkt, a)


def trunc(b, a):
    for p in a.poke:
        off, hx = p.split(":", 1)
        v = bytes.fromhex(hx)
        b = b[:int(off, 0)] + v + b[int(off, 0) + len(v):]
    return b[:a.truncate] if a.truncate is not None else b


# ---- namespaces and raw sockets -------------------------------------------
libc = ctypes.CDLL(None, use_errno=True)


def setns_path(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (path, os.strerror(e)))
    finally:
        os.close(fd)


def packet_socket(nsif):
    """Open an AF_PACKET socket bound to IF inside namespace NS."""
    ns, ifname = nsif.split(":", 1)
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        if ns:
            setns_path("/run/netns/" + ns)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_ALL))
        s.bind((ifname, ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    finally:
        if libc.setns(home, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns back")
        os.close(home)
    return s


def frame(sock, dmac, ipbytes):
    smac = sock.getsockname()[4]
    etype = b"\x86\xdd" if ipbytes[0] >> 4 == 6 else b"\x08\x00"
    return bytes.fromhex(dmac.replace(":", "")) + smac + etype + ipbytes


def drain(caps):
    for _label, s in caps:
        s.setblocking(False)
        try:
            while True:
                s.recv(65535)
        except BlockingIOError:
            pass
        s.setblocking(True)


def cmd_xchg(a):
    data = build(a)
    tag = payload(a)[:len(TAG_PREFIX) + len(a.tag) + 1]
    caps = []
    for c in a.cap:
        label, nsif = c.split("=", 1)
        caps.append((label, packet_socket(nsif)))
    tx = packet_socket(a.send)
    drain(caps)
    tx.send(frame(tx, a.dmac, data))
    got = 0
    end = deadline = time.monotonic() + a.timeout
    socks = {s.fileno(): (label, s) for label, s in caps}
    out = []
    while socks:
        left = deadline - time.monotonic()
        if left <= 0 or (a.count and got >= a.count):
            break
        r, _, _ = select.select(list(socks), [], [], left)
        for fd in r:
            label, s = socks[fd]
            buf, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING or len(buf) < 14:
                continue
            if buf[12:14] not in (b"\x86\xdd", b"\x08\x00"):
                continue
            ip = buf[14:]
            if tag not in ip:
                continue
            out.append("%s %s" % (label, ip.hex()))
            got += 1
            # the frames one packet makes come together: once one came,
            # --quiet s without another ends the capture (the tests want
            # exactly one frame, or none: that one waits the timeout)
            deadline = min(end, time.monotonic() + a.quiet)
    if a.sent:
        print("sent %s" % data.hex())
    for line in out:
        print(line)
    sys.stdout.flush()
    return 0


def cmd_flood(a):
    data = build(a)
    tx = packet_socket(a.send)
    f = frame(tx, a.dmac, data)
    sent = 0
    for _ in range(a.n):
        while True:
            try:
                tx.send(f)
                break
            except BlockingIOError:
                time.sleep(0.001)
            except OSError as e:
                if e.errno != 105:  # ENOBUFS: wait for the queue to drain
                    raise
                time.sleep(0.001)
        sent += 1
    print("sent %d" % sent)
    return 0


def cmd_paced(a):
    """RATE frames a second, the given packets in turn, until MAX are sent
    or the file STOP exists; prints the total and the count of each."""
    tx = packet_socket(a.send)
    frames = [frame(tx, a.dmac, bytes.fromhex(h)) for h in a.hex]
    count = [0] * len(frames)
    if a.started:
        open(a.started, "w").close()
    t0 = time.monotonic()
    n = 0
    while (not a.max or n < a.max) and \
            not (n % 50 == 0 and os.path.exists(a.stop)):
        d = t0 + n / a.rate - time.monotonic()
        if d > 0:
            time.sleep(d)
        try:
            tx.send(frames[n % len(frames)])
        except OSError as e:
            if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                raise
            time.sleep(0.001)
            continue
        count[n % len(frames)] += 1
        n += 1
    print(n, *count)
    return 0


# ---- show ------------------------------------------------------------------
def fields(b):
    """key=value words for the interesting fields, outermost first."""
    w = []
    if not b:
        return "empty"
    v = b[0] >> 4
    p = IPv6(b) if v == 6 else IP(b)
    depth = 0
    layer = p
    while layer is not None and layer.name != "NoPayload":
        pre = "" if depth == 0 else "in%d." % depth
        if isinstance(layer, IPv6):
            if layer.underlayer is not None:
                depth += 1
                pre = "in%d." % depth
            w += [pre + "ip6.src=%s" % layer.src, pre + "ip6.dst=%s" % layer.dst,
                  pre + "ip6.hlim=%d" % layer.hlim, pre + "ip6.nh=%d" % layer.nh,
                  pre + "ip6.fl=%#x" % layer.fl, pre + "ip6.tc=%#x" % layer.tc,
                  pre + "ip6.plen=%d" % layer.plen]
        elif isinstance(layer, IP):
            if layer.underlayer is not None:
                depth += 1
                pre = "in%d." % depth
            w += [pre + "ip4.src=%s" % layer.src, pre + "ip4.dst=%s" % layer.dst,
                  pre + "ip4.ttl=%d" % layer.ttl, pre + "ip4.proto=%d" % layer.proto]
        elif isinstance(layer, IPv6ExtHdrSegmentRouting):
            w += [pre + "srh.sl=%d" % layer.segleft,
                  pre + "srh.le=%d" % layer.lastentry,
                  pre + "srh.nh=%d" % layer.nh,
                  pre + "srh.len=%d" % layer.len,
                  pre + "srh.segs=%s" % ",".join(layer.addresses)]
        elif isinstance(layer, (ICMPv6TimeExceeded, ICMPv6ParamProblem,
                                ICMPv6DestUnreach, ICMPv6PacketTooBig,
                                ICMPv6EchoRequest, ICMPv6EchoReply)):
            w += [pre + "icmp6.type=%d" % layer.type,
                  pre + "icmp6.code=%d" % layer.code]
            if isinstance(layer, ICMPv6ParamProblem):
                w.append(pre + "icmp6.ptr=%d" % layer.ptr)
            if isinstance(layer, ICMPv6PacketTooBig):
                w.append(pre + "icmp6.mtu=%d" % layer.mtu)
            if isinstance(layer, (ICMPv6EchoRequest, ICMPv6EchoReply)):
                w += [pre + "icmp6.id=%#x" % layer.id,
                      pre + "icmp6.seq=%d" % layer.seq]
        elif isinstance(layer, ICMP):
            w += [pre + "icmp.type=%d" % layer.type,
                  pre + "icmp.code=%d" % layer.code]
            if layer.type == 3 and layer.code == 4:
                hb = raw(layer)
                w.append(pre + "icmp.mtu=%d" % int.from_bytes(hb[6:8], "big"))
        elif isinstance(layer, UDP):
            w += [pre + "udp.sport=%d" % layer.sport,
                  pre + "udp.dport=%d" % layer.dport]
        layer = layer.payload if hasattr(layer, "payload") else None
    i = b.find(TAG_PREFIX)
    if i >= 0:
        end = b.find(b";", i)
        tagb = b[i + len(TAG_PREFIX):end if end > 0 else len(b)]
        w.append("tag=%s" % tagb.decode(errors="replace"))
    w.append("len=%d" % len(b))
    return " ".join(w)


def main():
    ap = argparse.ArgumentParser(prog="pkt.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    add_pkt_args(b)
    s = sub.add_parser("show")
    s.add_argument("hex")
    x = sub.add_parser("xchg")
    x.add_argument("--send", required=True, help="NS:IF to send from")
    x.add_argument("--dmac", required=True, help="destination MAC")
    x.add_argument("--cap", action="append", default=[],
                   help="LABEL=NS:IF to capture on (repeatable)")
    x.add_argument("--timeout", type=float, default=1.0)
    x.add_argument("--quiet", type=float, default=0.3,
                   help="stop S seconds after the last frame captured")
    x.add_argument("--count", type=int, default=0,
                   help="stop after N frames (0: wait for the timeout)")
    x.add_argument("--sent", action="store_true", help="print sent bytes")
    add_pkt_args(x)
    f = sub.add_parser("flood")
    f.add_argument("--send", required=True)
    f.add_argument("--dmac", required=True)
    f.add_argument("-n", type=int, default=1000)
    add_pkt_args(f)
    pc = sub.add_parser("paced")
    pc.add_argument("--send", required=True, help="NS:IF to send from")
    pc.add_argument("--dmac", required=True)
    pc.add_argument("--rate", type=int, required=True, help="per second")
    pc.add_argument("--max", type=int, default=0, help="0: no limit")
    pc.add_argument("--stop", required=True, help="stop once this exists")
    pc.add_argument("--started", help="created once sending starts")
    pc.add_argument("hex", nargs="+", help="IP packets, sent in turn")
    a = ap.parse_args()
    if a.cmd == "build":
        print(build(a).hex())
        return 0
    if a.cmd == "show":
        print(fields(bytes.fromhex(a.hex)))
        return 0
    if a.cmd == "xchg":
        return cmd_xchg(a)
    if a.cmd == "paced":
        return cmd_paced(a)
    return cmd_flood(a)


if __name__ == "__main__":
    sys.exit(main())
