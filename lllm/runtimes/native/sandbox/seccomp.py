"""Layer 3 · the syscall filter under bubblewrap: a deny list, kept as data, compiled to a seccomp program.

Read `boundary.py` first (bubblewrap's command line, which loads this filter with `--seccomp FD`).
Namespaces decide what the sandboxed child can *see*; this decides which of the kernel's doors it
may knock on at all. Most container escapes of recent years went through a door that ordinary code
never needs: a new user namespace (`unshare`, `clone` with a namespace flag), the key store
(`keyctl`), eBPF (`bpf`), performance counters (`perf_event_open`), io_uring, mounting. Docker's
default seccomp profile shuts them, and so does this filter: each call in `DENIED` answers EPERM
("Operation not permitted", as Docker's profile answers), and everything else is allowed.

Contract: `DENIED` maps each refused call to the attack class it belongs to, `SPECIAL` the calls
refused only with some arguments (and `clone3`, refused with ENOSYS so the C library falls back to
`clone`, whose flags the filter can read). `compile_filter(arch)` returns the classic BPF program
(`struct sock_filter[]` bytes) for the running kernel's architecture (x86_64 or aarch64; elsewhere
`FilterUnavailable`). The program first refuses any other architecture's calls (a 64-bit process
can still make 32-bit x86 calls, which would use other numbers) and x32 calls, then compares the
call number with each denied one. `python -m lllm sandbox-policy` prints the list.

Usage:

    >>> program = compile_filter("x86_64")
    >>> len(program) % 8, len(program) // 8 > len(DENIED)      # 8 bytes an instruction
    (0, True)
    >>> DENIED["keyctl"]
    'kernel keyrings'
    >>> compile_filter("sparc64")
    Traceback (most recent call last):
    ...
    lllm.runtimes.native.sandbox.seccomp.FilterUnavailable: run_python's syscall filter knows x86_64 and aarch64 calls, not sparc64's
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["DENIED", "SPECIAL", "NUMBERS", "FilterUnavailable", "compile_filter", "policy"]


class FilterUnavailable(RuntimeError):
    """This machine's architecture has no syscall table here."""


# ---- the policy: data, printed by `python -m lllm sandbox-policy` ---------------------------------------------

NAMESPACES = "new namespaces (a new user namespace is where most container escapes start)"
MOUNTS = "mounting file systems"
DENIED = {
    "unshare": NAMESPACES, "setns": NAMESPACES,
    "mount": MOUNTS, "umount2": MOUNTS, "pivot_root": MOUNTS, "move_mount": MOUNTS, "open_tree": MOUNTS,
    "fsopen": MOUNTS, "fsconfig": MOUNTS, "fsmount": MOUNTS, "fspick": MOUNTS, "mount_setattr": MOUNTS,
    "keyctl": "kernel keyrings", "add_key": "kernel keyrings", "request_key": "kernel keyrings",
    "bpf": "eBPF programs and maps", "perf_event_open": "performance counters",
    "ptrace": "reading and writing other processes", "process_vm_readv": "reading and writing other processes",
    "process_vm_writev": "reading and writing other processes", "kcmp": "reading and writing other processes",
    "mbind": "memory placement (NUMA)", "set_mempolicy": "memory placement (NUMA)",
    "get_mempolicy": "memory placement (NUMA)", "move_pages": "memory placement (NUMA)",
    "userfaultfd": "page-fault handling in user space (a tool for racing the kernel)",
    "io_uring_setup": "io_uring (a second way into most system calls)", "io_uring_enter": "io_uring (a second way into most system calls)",
    "io_uring_register": "io_uring (a second way into most system calls)",
    "kexec_load": "loading a new kernel", "kexec_file_load": "loading a new kernel", "reboot": "rebooting",
    "init_module": "kernel modules", "finit_module": "kernel modules", "delete_module": "kernel modules",
    "create_module": "kernel modules", "get_kernel_syms": "kernel modules", "query_module": "kernel modules",
    "open_by_handle_at": "opening files by handle, past the mount namespace",
    "name_to_handle_at": "opening files by handle, past the mount namespace",
    "acct": "system administration", "swapon": "system administration", "swapoff": "system administration",
    "syslog": "the kernel's log", "quotactl": "system administration", "quotactl_fd": "system administration",
    "lookup_dcookie": "system administration", "nfsservctl": "system administration", "_sysctl": "system administration",
    "uselib": "obsolete calls", "sysfs": "obsolete calls", "ustat": "obsolete calls", "iopl": "hardware I/O ports", "ioperm": "hardware I/O ports",
    "settimeofday": "setting the clock", "clock_settime": "setting the clock", "adjtimex": "setting the clock",
    "clock_adjtime": "setting the clock",
}
SPECIAL = {
    "clone": "refused when its flags ask for a new namespace (CLONE_NEWNS, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, "
             "NEWCGROUP, NEWTIME); plain threads and processes pass to the kernel's own limits",
    "clone3": "answers ENOSYS: its flags sit in memory the filter cannot read, so the C library falls back to clone",
    "personality": "only the values Docker allows (0, 0x8, 0x20000, 0x20008, and the query 0xffffffff)",
    "32-bit x86 and x32 calls": "refused: their numbers differ, so a filter of 64-bit numbers would not see them "
                                "(vm86 and vm86old, on Docker's list, exist only there)",
}
CLONE_NAMESPACES = 0x00000080 | 0x00020000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x02000000
PERSONALITIES = (0x0, 0x0008, 0x20000, 0x20008, 0xFFFFFFFF)

# System call numbers, from the kernel's asm/unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64);
# a test checks them against the headers where they are installed. A name missing for an architecture
# has no such call there.
NUMBERS = {
    "x86_64": {
        "clone": 56, "clone3": 435, "personality": 135, "unshare": 272, "setns": 308, "mount": 165, "umount2": 166,
        "pivot_root": 155, "move_mount": 429, "open_tree": 428, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
        "perf_event_open": 298, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "kexec_load": 246, "kexec_file_load": 320, "reboot": 169, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "create_module": 174, "get_kernel_syms": 177, "query_module": 178,
        "open_by_handle_at": 304, "name_to_handle_at": 303, "acct": 163, "swapon": 167, "swapoff": 168,
        "syslog": 103, "quotactl": 179, "quotactl_fd": 443, "lookup_dcookie": 212, "nfsservctl": 180,
        "_sysctl": 156, "uselib": 134, "iopl": 172, "ioperm": 173, "settimeofday": 164, "clock_settime": 227,
        "adjtimex": 159, "clock_adjtime": 305, "kcmp": 312, "mbind": 237, "set_mempolicy": 238,
        "get_mempolicy": 239, "move_pages": 279, "sysfs": 139, "ustat": 136,
    },
    "aarch64": {
        "clone": 220, "clone3": 435, "personality": 92, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39,
        "pivot_root": 41, "move_mount": 429, "open_tree": 428, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
        "perf_event_open": 241, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
        "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "kexec_load": 104, "kexec_file_load": 294, "reboot": 142, "init_module": 105, "finit_module": 273,
        "delete_module": 106, "open_by_handle_at": 265, "name_to_handle_at": 264, "acct": 89, "swapon": 224,
        "swapoff": 225, "syslog": 116, "quotactl": 60, "quotactl_fd": 443, "lookup_dcookie": 18,
        "nfsservctl": 42, "settimeofday": 170, "clock_settime": 112, "adjtimex": 171, "clock_adjtime": 266,
        "kcmp": 272, "mbind": 235, "set_mempolicy": 237, "get_mempolicy": 236, "move_pages": 239,
    },
}
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}     # linux/audit.h: what seccomp_data.arch holds
X32_BIT = 0x40000000                                             # x86_64's x32 calls carry this bit


def policy(arch: str | None = None) -> list[dict]:
    """The filter as rows (call, number here, answer, why), in the order the program checks them."""
    numbers = NUMBERS.get(arch or machine(), {})
    rows = [{"call": name, "number": numbers.get(name), "answer": "EPERM", "why": why} for name, why in DENIED.items()]
    return rows + [{"call": name, "number": numbers.get(name),
                    "answer": "ENOSYS" if name == "clone3" else "EPERM (some arguments)", "why": why}
                   for name, why in SPECIAL.items()]


def machine() -> str:
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())


# ---- the program: classic BPF over struct seccomp_data {nr, arch, ip, args[6]} --------------------------------

LOAD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06   # BPF_LD|W|ABS, BPF_JMP|JEQ|K, JGE, JSET, BPF_RET|K
NR, ARCH, ARG0 = 0, 4, 16                                  # offsets into seccomp_data (ARG0: its low 32 bits)
ALLOW = 0x7FFF0000                                         # SECCOMP_RET_ALLOW
ERRNO = 0x00050000                                         # SECCOMP_RET_ERRNO | errno


def instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)          # struct sock_filter {u16 code; u8 jt, jf; u32 k}


def compile_filter(arch: str | None = None) -> bytes:
    """The BPF program for `arch` (default: this machine's) as bytes, for bwrap's `--seccomp FD`."""
    arch = arch or machine()
    if arch not in NUMBERS:
        raise FilterUnavailable(f"run_python's syscall filter knows {' and '.join(NUMBERS)} calls, not {arch}'s")
    numbers, deny = NUMBERS[arch], ERRNO | errno.EPERM
    program = [instruction(LOAD, ARCH), instruction(JEQ, AUDIT_ARCH[arch], 1, 0), instruction(RET, deny),
               instruction(LOAD, NR)]
    if arch == "x86_64":
        program += [instruction(JGE, X32_BIT, 0, 1), instruction(RET, deny)]
    for name in DENIED:
        if name in numbers:                                # equal: return EPERM; else skip that return
            program += [instruction(JEQ, numbers[name], 0, 1), instruction(RET, deny)]
    program += [instruction(JEQ, numbers["clone3"], 0, 1), instruction(RET, ERRNO | errno.ENOSYS)]
    # clone: its flags are its first argument on both architectures. Skip these 5 unless it is clone.
    program += [instruction(JEQ, numbers["clone"], 0, 4), instruction(LOAD, ARG0),
                instruction(JSET, CLONE_NAMESPACES, 0, 1), instruction(RET, deny), instruction(RET, ALLOW)]
    program += [instruction(JEQ, numbers["personality"], 0, len(PERSONALITIES) + 2), instruction(LOAD, ARG0)]
    for index, value in enumerate(PERSONALITIES):          # an allowed value jumps to the final ALLOW
        program.append(instruction(JEQ, value, len(PERSONALITIES) - index, 0))
    program += [instruction(RET, deny), instruction(RET, ALLOW)]
    return b"".join(program)
