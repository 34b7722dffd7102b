#!/usr/bin/python3
"""frr-replay.py - send, into the current netns, the rtnetlink messages
FRR 9 and 10's zebra sends the kernel for SRv6, byte for byte.

FRR cannot run here (Debian 12 ships FRR 8.4.4), so its messages are
rebuilt from its source, FRRouting/frr, read at the tags frr-9.0, frr-9.1,
frr-10.0, frr-10.2, frr-10.3, frr-10.4.0, frr-10.5.0, frr-10.6.0 and
frr-10.7.0:

  zebra/rt_netlink.c  netlink_route_multipath_msg_encode()   the route
                      _netlink_route_build_singlepath()      its next hop
                      _netlink_nexthop_encode_seg6local_flavor()
                      fill_seg6ipt_encap()                   seg6 SRH
                      netlink_nexthop_msg_encode()           RTM_NEWNEXTHOP
  zebra/kernel_netlink.c nl_attr_nest(): every nest gets NLA_F_NESTED
  zebra/rt.h          ROUTE_INSTALLATION_METRIC 20
  zebra/rt_netlink.h  RTPROT_BGP 186, RTPROT_ISIS 187, RTPROT_ZSTATIC 196
  lib/zclient.c       zclient_send_localsid(): a SID is a /128 route of
                      VRF_DEFAULT (table 254), next hop NEXTHOP_TYPE_IFINDEX
                      on the VRF's device (bgpd: End.DT4/DT6/DT46)
  isisd/isis_zebra.c  isis_zebra_srv6_sid_install(): End, and uN (End with
                      NEXT-C-SID, prefix block+node bits, lcblock = block,
                      lcnode_func = node bits) on srv6_ifname ("sr0");
                      isis_zebra_srv6_adj_sid_install(): End.X (nh6 the
                      neighbour) and uA (End.X NEXT-C-SID, prefix
                      block+node+function bits, lcnode_func = node bits
                      only) on the adjacency's interface
  lib/srv6.h          SET_SRV6_FLV_OP(): flv_ops is a bit mask, 1 << op;
                      ZEBRA_SEG6_LOCAL_FLV_OP_NEXT_CSID 4 (the kernel's
                      SEG6_LOCAL_FLV_OP_NEXT_CSID): SEG6_LOCAL_FLV_OPERATION
                      0x10

What every version (9.0 .. 10.5) writes, in this order:

  nlmsghdr   RTM_NEWROUTE, NLM_F_REQUEST|NLM_F_CREATE, and NLM_F_REPLACE
             when the route is IPv4, or runs with --v6-rr-semantics
             (zrouter.v6_rr_semantics), or (10.0 and later only:
             kernel_nexthops_supported()) zebra uses next-hop objects:
             the one difference of the bytes between 9.x and 10.x here
             (--version)
  rtmsg      family, dst_len, src_len 0, tos 0, table (RT_TABLE_UNSPEC and
             RTA_TABLE when >= 256), protocol zebra2proto(daemon),
             scope RT_SCOPE_UNIVERSE, type RTN_UNICAST (DELROUTE: 0),
             flags 0 (RTNH_F_ONLINK for IPv4 over an IPv6 next hop)
  RTA_DST, RTA_PRIORITY 20, [RTA_TABLE]
  then, with next-hop objects (`zebra nexthop kernel enable`, the
  default when the kernel has them): RTA_NH_ID only; the object was sent
  before as RTM_NEWNEXTHOP (NLM_F_REPLACE, nhmsg family AF_INET6 for a
  seg6local one, protocol zebra2proto(daemon); NHA_ID, [NHA_GATEWAY],
  NHA_OIF, NHA_ENCAP_TYPE, NHA_ENCAP{...})
  without (`zebra nexthop kernel disable`): RTA_ENCAP_TYPE,
  RTA_ENCAP{SEG6_LOCAL_ACTION, SEG6_LOCAL_NH6 (End.X/DX6) |
  SEG6_LOCAL_TABLE (End.T, End.DT6) | SEG6_LOCAL_VRFTABLE (End.DT4,
  End.DT46) | SEG6_LOCAL_NH4 (End.DX4), [SEG6_LOCAL_FLAVORS{
  SEG6_LOCAL_FLV_OPERATION u32, LCBLOCK_BITS u8, LCNODE_FN_BITS u8}]}
  or RTA_ENCAP{SEG6_IPTUNNEL_SRH: seg6_iptunnel_encap mode + SRH},
  [RTA_GATEWAY], RTA_OIF.

Versions: SEG6_LOCAL_FLAVORS from 9.1 (9.0 has no flavor code); 9.0's
fill_seg6ipt_encap() writes a single segment (all cases here have one);
End.DX6 in the route path from 10.0.  The
SEG6_IPTUNNEL_SRH mode is always SEG6_IPTUN_MODE_ENCAP up to 10.2
(fill_seg6ipt_encap()); from 10.4 it follows the headend behaviour,
encap.red for staticd's H.Encaps.Red (bgpd stays H.Encaps).  SRv6 in
isisd (End, End.X, uN, uA) is from 9.1; staticd's SIDs from 10.3.  No version
sends SEG6_IPTUNNEL_SRC; before 10.6.0 none sends SEG6_LOCAL_OIF (isisd's
End.X/uA nh6 is the neighbour's link-local address, isis_srv6.c
adj->ll_ipv6_addrs[0]; 10.6.0 adds SEG6_LOCAL_OIF, commit 85ed407320,
case endx-ll-oif).  From 10.0 the
encapsulation source (`srv6 encapsulation source-address`) is the
kernel's one tunsrc, set by generic netlink SEG6_CMD_SET_TUNSRC
(zebra/ge_netlink.c), not a route attribute; 9.x does not set it.

Not replayed: End.B6.Encaps (SEG6_LOCAL_SRH, a bare SRH): zebra writes
it from 10.4 in next-hop objects (netlink_nexthop_msg_encode_end_b6_encaps())
and from 10.7 in routes too, but no daemon of 10.4's tree (bgpd, isisd,
staticd, pathd) asks for it; End.DX4/DX6/End.T, which no daemon sends.

What the replay adds: NLM_F_ACK, to read the kernel's answer; nlmsg_seq
and nlmsg_pid are its own.  The devices FRR would name (the VRF device for
End.DT*, sr0) do not exist on this kernel (no vrf, no dummy module): the
`--sr-dev` argument stands for them.

Usage: frr-replay.py [--sr-dev IF] [--core-dev IF] [--core-gw ADDR6]
       [--x-dev IF] [--del] [--hex] [--seq N] [--version 9|10] CASE...
       (--list: the cases)
--hex prints the bytes instead of sending them (a device named lo is
index 0 there, so that the bytes do not depend on the host).
Prints one line per message: CASE MSG ok | CASE MSG error ERRNO (text).
Exit 0 when the kernel took every message, 2 when it refused one.
"""

import argparse
import errno
import os
import socket
import struct
import sys

# <linux/netlink.h>, <linux/rtnetlink.h>, <linux/nexthop.h>
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLM_F_REPLACE, NLM_F_CREATE = 0x100, 0x400
NLMSG_ERROR = 2
NLA_F_NESTED = 0x8000
RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTM_NEWNEXTHOP, RTM_DELNEXTHOP = 104, 105
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY = 1, 4, 5, 6
RTA_TABLE, RTA_ENCAP_TYPE, RTA_ENCAP, RTA_NH_ID = 15, 21, 22, 30
NHA_ID, NHA_OIF, NHA_GATEWAY, NHA_ENCAP_TYPE, NHA_ENCAP = 1, 5, 6, 7, 8
RTN_UNICAST = 1
RT_SCOPE_UNIVERSE = 0
RT_TABLE_MAIN = 254
RTNH_F_ONLINK = 4
# <linux/lwtunnel.h>
LWTUNNEL_ENCAP_SEG6, LWTUNNEL_ENCAP_SEG6_LOCAL = 5, 7
# <linux/seg6_local.h>
SEG6_LOCAL_ACTION, SEG6_LOCAL_TABLE, SEG6_LOCAL_NH4 = 1, 3, 4
SEG6_LOCAL_OIF = 7
SEG6_LOCAL_NH6, SEG6_LOCAL_VRFTABLE, SEG6_LOCAL_FLAVORS = 5, 9, 11
SEG6_LOCAL_FLV_OPERATION, SEG6_LOCAL_FLV_LCBLOCK_BITS = 1, 2
SEG6_LOCAL_FLV_LCNODE_FN_BITS = 3
ACTIONS = {"End": 1, "End.X": 2, "End.T": 3, "End.DX6": 5, "End.DX4": 6,
           "End.DT6": 7, "End.DT4": 8, "End.DT46": 16}
# <linux/seg6_iptunnel.h>
SEG6_IPTUNNEL_SRH = 1
SEG6_IPTUN_MODE_ENCAP = 1
# zebra/rt_netlink.h
RTPROT_BGP, RTPROT_ISIS, RTPROT_ZSTATIC = 186, 187, 196
# zebra/rt.h
ROUTE_INSTALLATION_METRIC = 20
# lib/srv6.h: ZEBRA_SEG6_LOCAL_FLV_OP_NEXT_CSID, set as 1 << op
FLV_OP_NEXT_CSID = 4


def attr(t, data):
    """nl_attr_put(): rta_len = 4 + len, padded to 4."""
    a = struct.pack("=HH", 4 + len(data), t) + data
    return a + b"\0" * (-len(a) % 4)


def nest(t, *inner):
    """nl_attr_nest() .. nl_attr_nest_end(): NLA_F_NESTED set."""
    body = b"".join(inner)
    return struct.pack("=HH", 4 + len(body), t | NLA_F_NESTED) + body


def u8(t, v):
    return attr(t, struct.pack("=B", v))


def u16(t, v):
    return attr(t, struct.pack("=H", v))


def u32(t, v):
    return attr(t, struct.pack("=I", v))


def a6(t, s):
    return attr(t, socket.inet_pton(socket.AF_INET6, s))


def a4(t, s):
    return attr(t, socket.inet_pton(socket.AF_INET, s))


def seg6local(sid):
    """The inside of RTA_ENCAP / NHA_ENCAP for a seg6local next hop:
    _netlink_route_build_singlepath() / netlink_nexthop_msg_encode()'s
    switch on seg6local_action, then the flavors."""
    act = sid["action"]
    out = [u32(SEG6_LOCAL_ACTION, ACTIONS[act])]
    if act in ("End.X", "End.DX6"):
        out.append(a6(SEG6_LOCAL_NH6, sid["nh6"]))
        if act == "End.X" and "seg6_oif" in sid:
            # 10.6.0 and later (commit 85ed407320, "Provide interface when
            # installing/uninstalling SRv6 uA SIDs"): SEG6_LOCAL_OIF
            # after NH6, ctx->ifindex the adjacency's circuit
            out.append(u32(SEG6_LOCAL_OIF, sid["seg6_oif"]))
    elif act in ("End.T", "End.DT6"):
        out.append(u32(SEG6_LOCAL_TABLE, sid["table"]))
    elif act in ("End.DT4", "End.DT46"):
        out.append(u32(SEG6_LOCAL_VRFTABLE, sid["table"]))
    elif act == "End.DX4":
        out.append(a4(SEG6_LOCAL_NH4, sid["nh4"]))
    if "lblen" in sid:
        # _netlink_nexthop_encode_seg6local_flavor(): OPERATION, then
        # LCBLOCK_BITS and LCNODE_FN_BITS each when not 0.
        flv = [u32(SEG6_LOCAL_FLV_OPERATION, 1 << FLV_OP_NEXT_CSID)]
        if sid["lblen"]:
            flv.append(u8(SEG6_LOCAL_FLV_LCBLOCK_BITS, sid["lblen"]))
        if sid["nflen"]:
            flv.append(u8(SEG6_LOCAL_FLV_LCNODE_FN_BITS, sid["nflen"]))
        out.append(nest(SEG6_LOCAL_FLAVORS, *flv))
    return out


def seg6ipt(segs):
    """fill_seg6ipt_encap(): struct seg6_iptunnel_encap { int mode; SRH },
    the SRH with hdrlen, type 4, SL = LE = n - 1, segments reversed."""
    n = len(segs)
    srh = struct.pack("=BBBBBBH", 0, (8 + 16 * n >> 3) - 1, 4, n - 1,
                      n - 1, 0, 0)
    for s in reversed(segs):
        srh += socket.inet_pton(socket.AF_INET6, s)
    return [attr(SEG6_IPTUNNEL_SRH, struct.pack("=i", SEG6_IPTUN_MODE_ENCAP)
                 + srh)]


def encap(c):
    if "segs" in c:
        return LWTUNNEL_ENCAP_SEG6, seg6ipt(c["segs"])
    return LWTUNNEL_ENCAP_SEG6_LOCAL, seg6local(c)


def nlmsg(mtype, flags, body, seq):
    return struct.pack("=IHHII", 16 + len(body), mtype,
                       flags | NLM_F_ACK, seq, 0) + body


def prefix(c):
    p, plen = c["dst"].split("/")
    fam = socket.AF_INET6 if ":" in p else socket.AF_INET
    return fam, socket.inet_pton(fam, p), int(plen)


VERSION = 10


def route_msg(c, dev, cmd, seq):
    """netlink_route_multipath_msg_encode(), a single next hop."""
    fam, dst, plen = prefix(c)
    nhobj = "nhid" in c
    flags = NLM_F_REQUEST | NLM_F_CREATE
    if cmd == RTM_NEWROUTE and (fam == socket.AF_INET or
                                (nhobj and VERSION >= 10)):
        flags |= NLM_F_REPLACE
    table = c.get("table_id", RT_TABLE_MAIN)
    rflags = 0
    v4_over_v6 = (fam == socket.AF_INET and cmd == RTM_NEWROUTE
                  and not nhobj and "gw" in c)
    if v4_over_v6:
        rflags |= RTNH_F_ONLINK
    rtm = struct.pack("=BBBBBBBBI", fam, plen, 0, 0,
                      table if table < 256 else 0, c["proto"],
                      RT_SCOPE_UNIVERSE,
                      RTN_UNICAST if cmd == RTM_NEWROUTE else 0, rflags)
    at = [attr(RTA_DST, dst), u32(RTA_PRIORITY, ROUTE_INSTALLATION_METRIC)]
    if table >= 256:
        at.append(u32(RTA_TABLE, table))
    if cmd == RTM_NEWROUTE:
        if nhobj:
            at.append(u32(RTA_NH_ID, c["nhid"]))
        else:
            et, inner = encap(c)
            at += [u16(RTA_ENCAP_TYPE, et), nest(RTA_ENCAP, *inner)]
            if v4_over_v6:
                # is_route_v4_over_v6(): 169.254.0.1 onlink
                at.append(a4(RTA_GATEWAY, "169.254.0.1"))
            elif "gw" in c:
                at.append(a6(RTA_GATEWAY, c["gw"]))
            at.append(u32(RTA_OIF, dev[c["oif"]]))
    return nlmsg(cmd, flags, rtm + b"".join(at), seq)


def nexthop_msg(c, dev, cmd, seq):
    """netlink_nexthop_msg_encode(), a singleton next hop."""
    flags = NLM_F_REQUEST | NLM_F_CREATE
    if cmd == RTM_DELNEXTHOP:
        return nlmsg(cmd, flags, struct.pack("=BBBBI", 0, 0, 0, 0, 0)
                     + u32(NHA_ID, c["nhid"]), seq)
    flags |= NLM_F_REPLACE
    # nh_family: the afi (AF_INET6 here), forced AF_INET6 for seg6local;
    # nh_protocol = zebra2proto(type); scope and flags 0.
    nhm = struct.pack("=BBBBI", socket.AF_INET6, 0, c["proto"], 0, 0)
    at = [u32(NHA_ID, c["nhid"])]
    if "gw" in c:
        at.append(a6(NHA_GATEWAY, c["gw"]))
    at.append(u32(NHA_OIF, dev[c["oif"]]))
    et, inner = encap(c)
    at += [u16(NHA_ENCAP_TYPE, et), nest(NHA_ENCAP, *inner)]
    return nlmsg(cmd, flags, nhm + b"".join(at), seq)


# The cases.  oif names a role: "sr" the SRv6 device (sr0 for isisd, the
# VRF's device for bgpd's End.DT*: --sr-dev stands for both), "x" the
# adjacency's interface (--x-dev), "core" the interface toward the remote
# PE (--core-dev, with gateway --core-gw).
CASES = {
    # isisd (9.1+) isis_zebra_srv6_sid_install(): End on sr0, /128
    "end": dict(dst="fc00:100::e1/128", action="End", proto=RTPROT_ISIS,
                oif="sr"),
    # isisd isis_zebra_srv6_adj_sid_install(): End.X, nh6 the neighbour
    "endx": dict(dst="fc00:100::e2/128", action="End.X", nh6="fc00:3::2",
                 proto=RTPROT_ISIS, oif="x"),
    # ... as isisd writes it: nh6 the adjacency's link-local address
    # (isis_srv6.c srv6_endx_sid_add_single(): adj->ll_ipv6_addrs[0]), no
    # SEG6_LOCAL_OIF, the route's RTA_OIF the circuit (--x-ll ADDR)
    "endx-ll": dict(dst="fc00:100::e3/128", action="End.X", nh6="x_ll",
                    proto=RTPROT_ISIS, oif="x"),
    # FRR 10.6+: the same with SEG6_LOCAL_OIF (isis_zebra.c
    # ctx.ifindex = sra->adj->circuit->interface->ifindex)
    "endx-ll-oif": dict(dst="fc00:100::e4/128", action="End.X",
                        nh6="x_ll", seg6_oif="x", proto=RTPROT_ISIS,
                        oif="x"),
    # bgpd zclient_send_localsid() from bgp_mplsvpn.c's
    # vpn_leak_zebra_vrf_sid_update_per_af() (`sid vpn export`: End.DT6
    # SEG6_LOCAL_TABLE, End.DT4 SEG6_LOCAL_VRFTABLE) and _per_vrf()
    # (`sid vpn per-vrf export`: End.DT46 SEG6_LOCAL_VRFTABLE); table the
    # VRF's, on the VRF's device (if_get_vrf_loopback(bgp->vrf_id))
    "dt6": dict(dst="fc00:100::d6/128", action="End.DT6", table=100,
                proto=RTPROT_BGP, oif="sr"),
    "dt4": dict(dst="fc00:100::d4/128", action="End.DT4", table=100,
                proto=RTPROT_BGP, oif="sr"),
    "dt46": dict(dst="fc00:100::46/128", action="End.DT46", table=100,
                 proto=RTPROT_BGP, oif="sr"),
    # bgpd 10.4+ on a usid locator (bgp_mplsvpn.c, SRV6_LOCATOR_USID):
    # End.DT6 with the NEXT-C-SID operation and no lengths (ctx.flv's
    # lcblock_len / lcnode_func_len left 0, so not written)
    "udt6": dict(dst="fc00:100::c6/128", action="End.DT6", table=100,
                 lblen=0, nflen=0, proto=RTPROT_BGP, oif="sr"),
    # isisd (9.1+) uN: End NEXT-C-SID, locator block 32 node 16 (the
    # usid-f3216 format): prefix /48, lcblock 32, lcnode_func 16
    "un": dict(dst="fc00:100:1::/48", action="End", lblen=32, nflen=16,
               proto=RTPROT_ISIS, oif="sr"),
    # isisd (9.1+) uA: End.X NEXT-C-SID, prefix block+node+function /64,
    # lcnode_func = node bits (16), not node+function
    "ua": dict(dst="fc00:100:1:e000::/64", action="End.X",
               nh6="fc00:3::2", lblen=32, nflen=16, proto=RTPROT_ISIS,
               oif="x"),
    # bgpd L3VPN: a VRF's route (table 10) to the remote PE's SID,
    # resolved over the core next hop: seg6 mode encap, one segment
    "l3vpn6": dict(dst="fc00:9:a::/64", table_id=10, segs=["fc00:9::a6"],
                   gw="core", proto=RTPROT_BGP, oif="core"),
    # the same for an IPv4 prefix: v4 over an IPv6 next hop, 169.254.0.1
    # onlink (is_route_v4_over_v6()), NLM_F_REPLACE (IPv4)
    "l3vpn4": dict(dst="10.10.0.0/24", table_id=10, segs=["fc00:9::a4"],
                   gw="core", proto=RTPROT_BGP, oif="core"),
    # `zebra nexthop kernel enable` (the default): the same next hops as
    # objects, the route carries RTA_NH_ID.  zebra numbers its own from 1
    # (zebra_nhg.c id_counter, below ZEBRA_NHG_PROTO_LOWER); any id will do.
    "nh-end": dict(dst="fc00:100::f1/128", action="End", proto=RTPROT_ISIS,
                   oif="sr", nhid=1001),
    "nh-dt6": dict(dst="fc00:100::f6/128", action="End.DT6", table=100,
                   proto=RTPROT_BGP, oif="sr", nhid=1002),
    "nh-un": dict(dst="fc00:100:2::/48", action="End", lblen=32, nflen=16,
                  proto=RTPROT_ISIS, oif="sr", nhid=1003),
    "nh-l3vpn6": dict(dst="fc00:9:b::/64", table_id=10,
                      segs=["fc00:9::b6"], gw="core", proto=RTPROT_BGP,
                      oif="core", nhid=1004),
}


def messages(name, c, dev, delete, seq):
    """The messages of a case, in zebra's order: the object before the
    route that names it; at delete the route, then the object."""
    c = dict(c)
    if c.get("gw") == "core":
        c["gw"] = dev["core_gw"]
    if c.get("nh6") == "x_ll":
        c["nh6"] = dev["x_ll"]
    if "seg6_oif" in c:
        c["seg6_oif"] = dev[c["seg6_oif"]]
    out = []
    if delete:
        out.append(("route", route_msg(c, dev, RTM_DELROUTE, seq)))
        if "nhid" in c:
            out.append(("nexthop", nexthop_msg(c, dev, RTM_DELNEXTHOP,
                                               seq + 1)))
    else:
        if "nhid" in c:
            out.append(("nexthop", nexthop_msg(c, dev, RTM_NEWNEXTHOP, seq)))
        out.append(("route", route_msg(c, dev, RTM_NEWROUTE, seq + 1)))
    return out


def talk(sk, msg):
    sk.send(msg)
    seq = struct.unpack_from("=I", msg, 8)[0]
    while True:
        data = sk.recv(65536)
        off = 0
        while off + 16 <= len(data):
            ln, typ, _, s, _ = struct.unpack_from("=IHHII", data, off)
            if typ == NLMSG_ERROR and s == seq:
                return -struct.unpack_from("=i", data, off + 16)[0]
            off += (ln + 3) & ~3


def main():
    ap = argparse.ArgumentParser(prog="frr-replay.py")
    ap.add_argument("--sr-dev", default="lo")
    ap.add_argument("--x-dev", default="lo")
    ap.add_argument("--core-dev", default="lo")
    ap.add_argument("--core-gw", default="::1")
    ap.add_argument("--x-ll", default="fe80::1",
                    help="the adjacency's link-local address (endx-ll)")
    ap.add_argument("--del", dest="delete", action="store_true",
                    help="send zebra's delete messages instead")
    ap.add_argument("--hex", action="store_true",
                    help="print the bytes, send nothing")
    ap.add_argument("--seq", type=int,
                    help="the first nlmsg_seq (default: from the pid)")
    ap.add_argument("--version", type=int, choices=(9, 10), default=10,
                    help="FRR's major version (9: no NLM_F_REPLACE on an "
                    "IPv6 route with RTA_NH_ID)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    global VERSION
    VERSION = a.version
    if a.list:
        for k, v in CASES.items():
            print(k, v)
        return 0
    dev = {"core_gw": a.core_gw, "x_ll": a.x_ll}
    for role, name in (("sr", a.sr_dev), ("x", a.x_dev),
                       ("core", a.core_dev)):
        dev[role] = 0 if a.hex and name == "lo" else socket.if_nametoindex(name)
    sk = None
    if not a.hex:
        sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                           socket.NETLINK_ROUTE)
        sk.bind((0, 0))
    rc = 0
    seq = a.seq if a.seq is not None else os.getpid() & 0xffff
    for name in a.cases:
        if name not in CASES:
            print("unknown case %s" % name, file=sys.stderr)
            return 1
        msgs = messages(name, CASES[name], dev, a.delete, seq)
        seq += 2
        for what, msg in msgs:
            if a.hex:
                print(name, what, msg.hex())
                continue
            e = talk(sk, msg)
            if e:
                rc = 2
                print("%s %s error %s (%s)" % (name, what,
                                               errno.errorcode.get(e, e),
                                               os.strerror(e)))
            else:
                print("%s %s ok" % (name, what))
    return rc


if __name__ == "__main__":
    sys.exit(main())
