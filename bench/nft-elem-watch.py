#!/usr/bin/python3
"""nft-elem-watch.py - print "NS TYPE" for every nf_tables set element
message of the namespace (NFNLGRP_NFTABLES), TYPE add or delete, NS the
CLOCK_REALTIME nanoseconds when it was read.  What `nft monitor elements`
shows without its cache (which reads every set's elements first: minutes
at a full table).  For bench/steer-sets.sh."""
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNLGRP_NFTABLES = 7
NFNL_SUBSYS_NFTABLES = 10
NFT_MSG_NEWSETELEM = 12
NFT_MSG_DELSETELEM = 14

s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind((0, 1 << (NFNLGRP_NFTABLES - 1)))
print("ready", flush=True)
while True:
    try:
        buf = s.recv(1 << 20)
    except OSError:		# ENOBUFS: a full load's burst
        continue
    now = time.time_ns()
    off = 0
    while off + 16 <= len(buf):
        length, mtype = struct.unpack_from("=IH", buf, off)
        if length < 16:
            break
        if mtype >> 8 == NFNL_SUBSYS_NFTABLES:
            t = mtype & 0xff
            if t == NFT_MSG_NEWSETELEM:
                print(now, "add", flush=True)
            elif t == NFT_MSG_DELSETELEM:
                print(now, "delete", flush=True)
        off += (length + 3) & ~3
    sys.stdout.flush()
