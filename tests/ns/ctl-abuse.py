#!/usr/bin/python3
"""ctl-abuse.py - abusive clients of srv6d's control socket (ctl-abuse.sh).

  ctl-abuse.py raw PATH HEX
      Connect, send the bytes HEX, print the reply as JSON
      {"status": N, "doc": {...}} or {"eof": true} / {"timeout": true}.
  ctl-abuse.py clients PATH --gid G --uids U,U,.. --per-uid N
                       [--mode slow|idle] [--max S]
      In one child per uid (setgroups([]), setgid(G), setuid(U)): open N
      connections one after the other and keep them.  slow: send a STATUS
      request with a 100-byte payload one byte a second; idle: send
      nothing.  Each connection ends when the daemon closes it (with or
      without a reply) or after S seconds.  Prints one JSON object per
      connection: {"uid", "held" (false: the daemon refused it at once,
      within 0.5 s), "reply" (the error text or null), "status",
      "lifetime" (seconds from connect to the daemon's close, null: still
      open after S s), "connect_error"}.
"""
import argparse
import json
import os
import select
import socket
import struct
import sys
import time

MAGIC = 0x53364354
HDR = struct.Struct("=IHHI")
REQ_STATUS = 1


def read_reply(s, timeout):
    """Read one reply (header + JSON).  Returns (status, doc), "eof" or
    "timeout"; a connection reset after data counts as EOF."""
    buf = b""
    end = time.monotonic() + timeout
    need = HDR.size
    while True:
        if len(buf) >= HDR.size:
            magic, _ver, code, length = HDR.unpack(buf[:HDR.size])
            need = HDR.size + length
            if magic != MAGIC:
                return ("garbage", None)
            if len(buf) >= need:
                try:
                    doc = json.loads(buf[HDR.size:need])
                except ValueError:
                    doc = None
                return (code, doc)
        left = end - time.monotonic()
        if left <= 0:
            return "timeout"
        r, _, _ = select.select([s], [], [], left)
        if not r:
            return "timeout"
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return "eof"
        buf += chunk


def cmd_raw(a):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(a.path)
    try:
        s.sendall(bytes.fromhex(a.hex))
    except (BrokenPipeError, ConnectionResetError):
        pass
    r = read_reply(s, 5.0)
    if r == "eof":
        out = {"eof": True}
    elif r == "timeout":
        out = {"timeout": True}
    else:
        out = {"status": r[0], "doc": r[1]}
        out["closed"] = read_reply(s, 2.0) == "eof"
    print(json.dumps(out))
    return 0


class Conn:
    def __init__(self, uid, s, t0):
        self.uid = uid
        self.s = s
        self.t0 = t0
        self.held = True
        self.reply = None
        self.status = None
        self.lifetime = None
        self.sent = 0
        self.done = False

    def close_seen(self, r):
        self.done = True
        self.lifetime = round(time.monotonic() - self.t0, 2)
        if isinstance(r, tuple):
            self.status = r[0]
            if isinstance(r[1], dict):
                self.reply = r[1].get("error")

    def result(self):
        return {"uid": self.uid, "held": self.held, "reply": self.reply,
                "status": self.status, "lifetime": self.lifetime,
                "connect_error": None}


def poll_closed(c, wait):
    """Has the daemon closed c (within wait seconds)?  Reads its reply."""
    r, _, _ = select.select([c.s], [], [], wait)
    if not r:
        return False
    c.close_seen(read_reply(c.s, 1.0))
    return True


def clients_as(a, uid):
    os.setgroups([])
    os.setgid(a.gid)
    os.setuid(uid)
    req = HDR.pack(MAGIC, 1, REQ_STATUS, 100) + b"x" * 100
    conns, out = [], []
    for _ in range(a.per_uid):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # A blocking connect waits for room in the listen backlog (5 s
        # at most); a non-blocking one would fail at once with EAGAIN.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                     struct.pack("ll", 5, 0))
        try:
            s.connect(a.path)
        except OSError as e:
            out.append({"uid": uid, "held": False, "reply": None,
                        "status": None, "lifetime": None,
                        "connect_error": e.strerror})
            s.close()
            continue
        c = Conn(uid, s, time.monotonic())
        conns.append(c)
    # Refused at once: a reply (or EOF) within half a second.
    for c in conns:
        if poll_closed(c, 0.5 if c is conns[0] else 0.05):
            c.held = False
    end = time.monotonic() + a.max
    while time.monotonic() < end and not all(c.done for c in conns):
        for c in conns:
            if c.done or a.mode != "slow" or c.sent >= len(req):
                continue
            try:
                c.s.send(req[c.sent:c.sent + 1])
                c.sent += 1
            except OSError:
                pass
        live = [c.s for c in conns if not c.done]
        tick = time.monotonic() + 1.0
        while live and time.monotonic() < tick:
            r, _, _ = select.select(live, [], [], max(0, tick - time.monotonic()))
            for c in conns:
                if not c.done and c.s in r:
                    c.close_seen(read_reply(c.s, 1.0))
            live = [c.s for c in conns if not c.done]
    for c in conns:
        out.append(c.result())
        c.s.close()
    return out


def cmd_clients(a):
    pids = []
    for uid in [int(u) for u in a.uids.split(",")]:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            res = clients_as(a, uid)
            os.write(wfd, "".join(json.dumps(r) + "\n" for r in res).encode())
            os._exit(0)
        os.close(wfd)
        pids.append((pid, rfd))
    for pid, rfd in pids:
        data = b""
        while True:
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            data += chunk
        os.waitpid(pid, 0)
        sys.stdout.write(data.decode())
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("raw")
    r.add_argument("path")
    r.add_argument("hex")
    c = sub.add_parser("clients")
    c.add_argument("path")
    c.add_argument("--gid", type=int, required=True)
    c.add_argument("--uids", required=True)
    c.add_argument("--per-uid", type=int, default=1)
    c.add_argument("--mode", choices=["slow", "idle"], default="idle")
    c.add_argument("--max", type=float, default=20.0)
    a = ap.parse_args()
    return cmd_raw(a) if a.cmd == "raw" else cmd_clients(a)


if __name__ == "__main__":
    sys.exit(main())
