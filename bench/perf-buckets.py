#!/usr/bin/python3
"""perf-buckets.py - where the gateway core's time goes, from perf samples.

Reads `perf script -F comm,pid,tid,ip,sym,dso` output (call graphs from
`perf record -g -e cpu-clock -C CPU`) on standard input.  A sample is the
gateway's when it is in the daemon (--pid) or inside a softirq (veth
receive, forwarding, NFQUEUE enqueue, the sink's receive), whoever was
interrupted; the rest is other people's work on that core.  Samples
whose innermost frame is handle_softirqs itself are counted apart ("IPI
skid"): they are the sampling timer held back while an interrupt (the RPS
IPI) was taken with interrupts off, not packet work.

Prints, for the gateway's samples: the share of each stage of the path
(inclusive: a sample counts for every stage on its stack), and the
functions where the time is spent (self).

usage: perf script ... | perf-buckets.py [--pid PID] [--period-ns NS]
                                         [--packets N] [--top N]
"""
import argparse
import collections
import sys

SOFTIRQ = ("handle_softirqs", "__do_softirq", "net_rx_action", "do_softirq")

# (label, any of these functions on the stack), inclusive.
STAGES = [
    ("daemon: receive syscall", ("__x64_sys_recvmmsg", "do_recvmmsg",
                                 "__x64_sys_recvfrom", "__sys_recvfrom",
                                 "__x64_sys_recvmsg")),
    ("  copy to user (NFQUEUE msg)", ("skb_copy_datagram_iter",
                                      "__skb_datagram_iter")),
    ("  block/wake (schedule)", ("schedule", "schedule_timeout")),
    ("daemon: verdict syscall", ("__sys_sendmsg", "__x64_sys_sendmsg",
                                 "__x64_sys_sendto", "__sys_sendto")),
    ("  copy from user (payload)", ("_copy_from_iter", "copy_from_iter",
                                    "__alloc_skb", "netlink_alloc_large_skb")),
    ("  nfqnl_recv_verdict", ("nfqnl_recv_verdict",)),
    ("    payload mangle", ("nfqnl_mangle",)),
    ("    reinject -> forward", ("nfqnl_reinject", "nf_reinject")),
    ("daemon: packet socket syscall", ("__x64_sys_sendmmsg",
                                       "__sys_sendmmsg")),
    ("  packet_snd: skb + copy", ("packet_snd",)),
    ("  qdisc / direct xmit", ("__dev_queue_xmit", "packet_direct_xmit")),
    ("  netif_rx (to the backlog)", ("__netif_rx", "netif_rx",
                                     "enqueue_to_backlog")),
    ("daemon: user space", None),
    ("softirq (anywhere)", SOFTIRQ),
    ("  NFQUEUE enqueue", ("__nfqnl_enqueue_packet", "nfqnl_enqueue_packet")),
    ("    build netlink msg", ("nfqnl_build_packet_message",)),
    ("    wake the daemon", ("sock_def_readable", "__wake_up_sync_key",
                             "try_to_wake_up")),
    ("  seg6local End", ("seg6_local_input", "seg6_local_input_core",
                         "input_action_end")),
    ("  ip6_forward", ("ip6_forward",)),
    ("  sink: nft ingress", ("nft_do_chain_netdev",)),
    ("  process_backlog (a veth's rx)", ("process_backlog",)),
    ("  veth NAPI poll", ("veth_poll",)),
    ("ip6_forward (anywhere)", ("ip6_forward",)),
    ("ipv6_rcv (anywhere)", ("ipv6_rcv", "ipv6_list_rcv")),
    ("ksoftirqd", ("run_ksoftirqd",)),
    ("veth_xmit (anywhere)", ("veth_xmit",)),
    ("scheduler (anywhere)", ("__schedule", "finish_task_switch.isra.0",
                              "finish_task_switch")),
]


def samples(stream):
    """Yield (comm, pid, frames) where frames is [(sym, dso)] leaf first."""
    head, frames = None, []
    for line in stream:
        line = line.rstrip("\n")
        if not line.strip():
            if head:
                yield head[0], head[1], frames
            head, frames = None, []
            continue
        if head is None:
            parts = line.split()
            pidtid = next((p for p in parts if "/" in p and
                           p.split("/")[0].isdigit()), "0/0")
            head = (parts[0], pidtid.split("/")[0])
            continue
        parts = line.strip().split(None, 1)
        if len(parts) < 2:
            continue
        rest = parts[1]
        dso = ""
        if rest.endswith(")") and " (" in rest:
            rest, dso = rest.rsplit(" (", 1)
            dso = dso[:-1]
        frames.append((rest, dso))
    if head:
        yield head[0], head[1], frames


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pid", default="")
    ap.add_argument("--period-ns", type=int, default=250000)
    ap.add_argument("--packets", type=int, default=0)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()

    total = gw = skid = 0
    stage = collections.Counter()
    self_sym = collections.Counter()
    for comm, pid, frames in samples(sys.stdin):
        total += 1
        syms = {s for s, _ in frames}
        in_daemon = args.pid and pid == args.pid
        in_softirq = any(s in syms for s in SOFTIRQ)
        if not (in_daemon or in_softirq):
            continue
        leaf = frames[0] if frames else ("?", "")
        if leaf[0] == "handle_softirqs":
            skid += 1
            continue
        gw += 1
        where = "k" if "kernel" in leaf[1] else "u"
        self_sym["[%s] %s" % (where, leaf[0])] += 1
        for label, funcs in STAGES:
            if funcs is None:
                if in_daemon and where == "u":
                    stage[label] += 1
            elif any(f in syms for f in funcs):
                if label.startswith("daemon") and not in_daemon:
                    continue
                stage[label] += 1

    if gw == 0:
        print("no gateway samples")
        return
    ms = gw * args.period_ns / 1e6
    print("samples on the core: %d; gateway's: %d (%.0f ms)%s; "
          "IPI skid: %d (%.0f ms)" % (
              total, gw, ms, "; %.0f ns per packet" % (gw * args.period_ns /
                                                        args.packets)
              if args.packets else "", skid, skid * args.period_ns / 1e6))
    print("\nstage (inclusive)                      share of gateway time")
    for label, _ in STAGES:
        print("  %-36s %6.1f%%" % (label, 100.0 * stage[label] / gw))
    print("\nfunctions (self)                       share of gateway time")
    for sym, n in self_sym.most_common(args.top):
        print("  %-50s %6.1f%%" % (sym[:50], 100.0 * n / gw))


if __name__ == "__main__":
    main()
