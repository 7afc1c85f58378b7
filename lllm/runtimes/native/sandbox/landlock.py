"""Layer 3 · a second fence inside the sandbox: Landlock, which limits files by path whatever is mounted.

Read `worker.py` first: it calls `restrict` before it reads any code. Bubblewrap's mount namespace
decides which files *exist* for the child; Landlock (Linux 5.13+) decides which of them it may
*use*, as a rule the kernel keeps for the process and everything it starts, and no later call can
widen. So if the mount namespace were ever wrong, the child could still only read and run what
the parent bound for it and write only in its scratch space. Where the kernel supports it, the same
ruleset forbids TCP (Landlock ABI 4) and signals or abstract sockets beyond the sandbox (ABI 6).
Like `worker.py`, this file imports only the standard library: it runs inside the sandbox.

Contract: `restrict(read, write)` allows reading and executing beneath each path in `read`,
everything beneath each path in `write`, and nothing else the running Landlock version can name;
it returns the Landlock version it enforced, or 0 when this kernel has no Landlock (then nothing is
restricted, and the caller reports one fence fewer). `abi()` tells the version without restricting.

Usage (`restrict` in a child process only: a restriction cannot be undone):

    >>> abi() >= 0          # 7 on Linux 6.18; 0 without Landlock
    True

    restrict(read=["/usr", "/sandbox"], write=["/tmp"])    # -> the version enforced
"""

import ctypes
import os
import struct

__all__ = ["abi", "restrict"]

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446   # the same numbers on x86_64 and aarch64
RULE_PATH_BENEATH, VERSION, NO_NEW_PRIVS = 1, 1, 38
# File access rights, by the ABI version that added them (linux/landlock.h).
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
NET_TCP = 0b11                                              # bind and connect (ABI 4)
SCOPES = 0b11                                               # abstract unix sockets and signals (ABI 6)
READ_ONLY = EXECUTE | READ_FILE | READ_DIR


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The Landlock version this kernel enforces (0: none, or turned off)."""
    version = _libc().syscall(ctypes.c_long(CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(VERSION))
    return max(version, 0)


def restrict(read, write) -> int:
    version = abi()
    if version == 0:
        return 0
    libc = _libc()
    handled = FS_BY_ABI[max(v for v in FS_BY_ABI if v <= version)]
    fields = [handled] + ([NET_TCP] if version >= 4 else []) + ([SCOPES] if version >= 6 else [])
    attr = ctypes.create_string_buffer(struct.pack(f"={len(fields)}Q", *fields))
    ruleset = libc.syscall(ctypes.c_long(CREATE_RULESET), attr, ctypes.c_size_t(len(attr.raw)), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        for paths, access in ((read, READ_ONLY), (write, handled)):
            for path in paths:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                try:                                        # a file takes file rights only: no READ_DIR, no MAKE_*
                    allowed = access if os.path.isdir(path) else access & (EXECUTE | WRITE_FILE | READ_FILE | (1 << 14))
                    rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed & handled, fd))
                    if libc.syscall(ctypes.c_long(ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), rule,
                                    ctypes.c_uint32(0)) != 0:
                        raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
                finally:
                    os.close(fd)
        if libc.prctl(NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0 \
                or libc.syscall(ctypes.c_long(RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)
    return version
