#!/usr/bin/python3
"""transit-buckets.py - where a TCP transfer's CPU time goes, per 64 KiB.

Reads `perf script -F comm,pid,tid,ip,sym,dso` output of a system-wide
`perf record -a -g -F HZ` taken during an iperf3 transfer (all CPUs: the
sender, the End in the middle and the receiver share them) on standard
input.  Each sample goes to the first group below with a function on its
stack; the CPU time of each group is then divided by the number of 64 KiB
units the transfer moved meanwhile (--bps), so that a kernel End and
srv6d's End measured in one run compare per super-packet.

The transfer's samples are iperf3's, srv6d's (--pid; another srv6d is
someone else's), and those of softirqs and idle; anything else (other
people's jobs on a shared machine) is counted apart and left out of the
busy time.  cpu-clock samples are not taken while a CPU idles in a
tickless halt: the samples missing from --seconds x --cpus x --hz are
counted as idle.

usage: perf script ... | transit-buckets.py --bps BITS_PER_S --seconds S
                                            [--pid SRV6D_PID] [--hz HZ]
                                            [--cpus N]
"""
import argparse
import collections
import importlib.util
import os
import sys

# (group, any of these functions on the stack): the first match wins.
GROUPS = [
    ("idle", ("pv_native_safe_halt", "do_idle", "default_idle")),
    ("nfq verdict: linearize (skb_ensure_writable)", ("skb_ensure_writable",)),
    ("nfq verdict: reinject -> forward, gw1, s1 rx", ("nfqnl_reinject",
                                                      "nf_reinject")),
    ("nfq verdict: mangle memcpy, lookup", ("nfqnl_recv_verdict",)),
    ("nfq verdict: sendmsg alloc + copy from user", ("netlink_sendmsg",)),
    ("nfq recv: recvmmsg, copy to user", ("netlink_recvmsg",
                                          "__x64_sys_recvmmsg")),
    ("nfq enqueue: build msg (skb_zerocopy), wake", ("__nfqnl_enqueue_packet",
                                                     "nfqnl_enqueue_packet")),
    ("packet socket send (vnet way)", ("packet_snd",)),
    ("kernel seg6local End, forward, s1 rx", ("seg6_local_input_core",)),
    ("sender: tcp_sendmsg (copy, tx, gw rx)", ("tcp_sendmsg",)),
    ("receiver: tcp_recvmsg (copy to user)", ("tcp_recvmsg",)),
    ("softirq elsewhere (rx/tx, acks)", ("net_rx_action", "handle_softirqs")),
    ("scheduler", ("__schedule", "finish_task_switch.isra.0")),
]


def load_samples():
    """perf-buckets.py's perf script parser (one parser for the benches)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "perf-buckets.py")
    spec = importlib.util.spec_from_file_location("perf_buckets", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bps", type=float, required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--hz", type=float, default=997)
    ap.add_argument("--cpus", type=int, default=os.cpu_count())
    ap.add_argument("--pid", default="")
    args = ap.parse_args()

    groups = collections.Counter()
    daemon = others = 0
    for comm, pid, frames in load_samples()(sys.stdin):
        syms = {s.split("+")[0] for s, _ in frames}
        if comm.startswith("srv6d") and pid == args.pid:
            daemon += 1
        elif not (comm in ("iperf3", "swapper") or
                  comm.startswith("ksoftirqd")):
            others += 1
            continue
        name = "other"
        for label, funcs in GROUPS:
            if any(f in syms for f in funcs):
                name = label
                break
        if name == "other" and comm.startswith("srv6d"):
            name = "srv6d: user space and other syscalls"
        groups[name] += 1
    expected = args.seconds * args.hz * args.cpus
    taken = sum(groups.values()) + others
    groups["idle"] += max(0, int(expected - taken))
    # CPU seconds per sample, 64 KiB units moved per second.
    units = args.bps / 8 / 65536 * args.seconds
    us = 1e6 / args.hz / units
    busy = sum(n for g, n in groups.items() if g != "idle")
    print("%.0f Mbit/s, %d samples (%d expected), %.1f us of busy CPU per "
          "64 KiB (srv6d's threads: %.1f; other jobs: %.1f%% of the CPUs "
          "left out)" % (args.bps / 1e6, taken, expected, busy * us,
                         daemon * us, 100.0 * others / max(expected, 1)))
    for g, n in groups.most_common():
        print("  %-46s %5.1f%% %7.1f us" % (g, 100.0 * n / max(expected, 1),
                                            n * us))


if __name__ == "__main__":
    main()
