#!/usr/bin/python3
"""seccomp-deny.py NR[,NR...] PROGRAM [ARG...] - exec PROGRAM with the
native (x86_64) system calls NR failing with EPERM, as a systemd unit's
SystemCallFilter=~... with SystemCallErrorNumber=EPERM does; every other
call allowed.  Needs no_new_privs or CAP_SYS_ADMIN (prctl(2)).  For
tests/ns/nonroot.sh: the calls srv6d.service denies must not be needed."""
import ctypes
import os
import struct
import sys

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
AUDIT_ARCH_X86_64 = 0xC000003E
EPERM = 1
# classic BPF opcodes
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_RET_K = 0x06


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: seccomp-deny.py NR[,NR...] PROGRAM [ARG...]")
    nrs = [int(n) for n in sys.argv[1].split(",") if n]
    prog = [insn(BPF_LD_W_ABS, 0, 0, 4),               # seccomp_data.arch
            insn(BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
            insn(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
            insn(BPF_LD_W_ABS, 0, 0, 0)]               # seccomp_data.nr
    for nr in nrs:
        prog.append(insn(BPF_JEQ_K, 0, 1, nr))
        prog.append(insn(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM))
    prog.append(insn(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    code = b"".join(prog)
    buf = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p,
                           ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                  ctypes.byref(fprog), 0, 0) != 0:
        e = ctypes.get_errno()
        sys.exit("seccomp-deny.py: prctl(PR_SET_SECCOMP): " + os.strerror(e))
    os.execv(sys.argv[2], sys.argv[2:])


main()
