"""run_python's syscall filter: every door it shuts is shut inside the sandbox and open without it.

Each denied call is made through `ctypes` (after an escape from the import allow-list to `sys`) with
harmless arguments: inside the sandbox it must fail with EPERM; in the same child without the
boundary (`boundary="unconfined"`, as root in CI) it must reach the kernel, which answers something
else (success, or an argument error) — so the suite fails if the filter stops refusing a call, and
also if a call was refused only because the arguments were wrong. The filter's program is also
checked on its own, installed with prctl in a plain child process, and its numbers against the
kernel's headers.
"""

import ctypes
import errno
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from lllm.commands import main
from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
from lllm.runtimes.native.sandbox import seccomp
from lllm.runtimes.native.sandbox.seccomp import DENIED, NUMBERS, compile_filter, machine

ARCH = machine()
pytestmark = pytest.mark.skipif(ARCH not in NUMBERS, reason=f"no syscall table for {ARCH}")
AS_ROOT = os.geteuid() == 0

# Harmless arguments for each call: strings become char pointers, "buffer" a zeroed 512-byte buffer.
PROBES = {
    "mount": (0, 0, 0, 0, 0), "umount2": ("/nonexistent-lllm", 0), "pivot_root": ("/nonexistent-lllm", "/nonexistent-lllm"),
    "move_mount": (-1, "", -1, "", 0), "open_tree": (-1, "/nonexistent-lllm", 0), "fsopen": ("lllm-no-such-fs", 0),
    "fsconfig": (-1, 0, 0, 0, 0), "fsmount": (-1, 0, 0), "fspick": (-1, "/nonexistent-lllm", 0),
    "mount_setattr": (-1, "", 0, 0, 0), "keyctl": (0, -3, 0), "add_key": (0, 0, 0, 0, 0), "request_key": (0, 0, 0, 0),
    "bpf": (5, 0, 0), "perf_event_open": (0, 0, -1, -1, 0), "ptrace": (0xFFFF, 0, 0, 0),
    "process_vm_readv": ("pid", 0, 0, 0, 0, 0), "process_vm_writev": ("pid", 0, 0, 0, 0, 0), "userfaultfd": (0xFFFF,),
    "io_uring_setup": (0, 0), "io_uring_enter": (-1, 0, 0, 0, 0, 0), "io_uring_register": (-1, 0, 0, 0),
    "kexec_load": (0, 0, 0, 0xFFFF0000), "kexec_file_load": (-1, -1, 0, 0, 0xFFFF0000), "reboot": (0, 0, 0, 0),
    "init_module": (0, 0, 0), "finit_module": (-1, "", 0), "delete_module": ("lllm_no_such_module", 0o4000),
    "create_module": (0, 0), "get_kernel_syms": (0,), "query_module": (0, 0, 0, 0, 0),
    "open_by_handle_at": (-1, 0, 0), "name_to_handle_at": (-1, 0, 0, 0, 0), "acct": (0,),
    "swapon": ("/nonexistent-lllm", 0), "swapoff": ("/nonexistent-lllm",), "syslog": (10, 0, 0),
    "quotactl": (0, 0, 0, 0), "quotactl_fd": (-1, 0, 0, 0), "lookup_dcookie": (0, 0, 0), "nfsservctl": (0, 0, 0),
    "_sysctl": (0,), "uselib": (0,), "iopl": (0,), "ioperm": (0, 0, 0), "settimeofday": (0, 0),
    "clock_settime": (1, 0), "adjtimex": ("buffer",), "clock_adjtime": (0, "buffer"),
    "kcmp": ("pid", "pid", 0, 0, 0), "mbind": (0, 0, 0, 0, 0, 0), "set_mempolicy": (0, 0, 0),
    "get_mempolicy": (0, 0, 0, 0, 0), "move_pages": (0, 0, 0, 0, 0, 0), "sysfs": (3,), "ustat": (0, 0),
    "setns": (-1, 0), "unshare": (0x10000000,),      # last: a new user namespace would change what follows
}
SPECIAL = {   # (call, arguments) -> errno inside
    ("clone", (0x10000000 | 0x200, 0, 0, 0, 0)): errno.EPERM,     # CLONE_NEWUSER with CLONE_FS: EINVAL unconfined
    ("clone3", (0, 0)): errno.ENOSYS,
    ("personality", (0x0040000,)): errno.EPERM,                   # ADDR_NO_RANDOMIZE
}
ESCAPE = ("sys = [c for c in ().__class__.__base__.__subclasses__()\n"
          "       if c.__name__ == '_wrap_close'][0].__init__.__globals__['sys']\n"
          "ctypes = sys.modules['builtins'].__import__('ctypes')\nlibc = ctypes.CDLL(None, use_errno=True)\n"
          "def call(number, *args):\n"
          "    args = [ctypes.c_char_p(a.encode()) if isinstance(a, str) and a not in ('pid', 'buffer') else\n"
          "            ctypes.create_string_buffer(512) if a == 'buffer' else\n"
          "            ctypes.c_long(sys.modules['posix'].getpid() if a == 'pid' else a) for a in args]\n"
          "    ctypes.set_errno(0)\n"
          "    result = libc.syscall(ctypes.c_long(number), *args)\n"
          "    return 0 if result >= 0 else ctypes.get_errno()\n")


def probe_all(boundary: str) -> dict:
    """errno (0 for success) of every probe, in one child."""
    numbers = NUMBERS[ARCH]
    probes = [(name, numbers[name], args) for name, args in PROBES.items() if name in numbers]
    probes = [(name, numbers[name], args) for name, args in SPECIAL] + probes
    code = ESCAPE + f"print(json.dumps({{name: call(number, *args) for name, number, args in {probes!r}}}))"
    python = ProxyManager([WeatherProxy], budget={"wall_seconds": 20, "allowed_imports": ["json"]}, boundary=boundary)
    try:
        answer = python.run_python("import json\n" + code)
    finally:
        python.close()
    assert answer.startswith("{"), answer
    return json.loads(answer)


@pytest.fixture(scope="module")
def inside():
    return probe_all("bubblewrap")


@pytest.fixture(scope="module")
def unconfined():
    return probe_all("unconfined")


@pytest.mark.parametrize("name", [name for name in PROBES if name in NUMBERS[ARCH]])
def test_every_denied_call_is_refused_inside_with_eperm(name, inside):
    assert errno.errorcode.get(inside[name], inside[name]) == "EPERM"


@pytest.mark.skipif(not AS_ROOT, reason="without root, the kernel itself refuses most of these (no capability)")
@pytest.mark.parametrize("name", [name for name in PROBES if name in NUMBERS[ARCH]])
def test_every_denied_call_reaches_the_kernel_when_unconfined(name, unconfined):
    assert unconfined[name] != errno.EPERM


@pytest.mark.parametrize("name, expected", [(name, expected) for (name, _), expected in SPECIAL.items()])
def test_namespace_clones_clone3_and_unsafe_personalities_are_refused_inside(name, expected, inside, unconfined):
    assert inside[name] == expected
    if AS_ROOT:
        assert unconfined[name] not in (errno.EPERM, errno.ENOSYS)


def test_ordinary_code_still_runs_inside_and_threads_still_start():
    python = ProxyManager([WeatherProxy], budget={"allowed_imports": ["json", "math"]})
    try:
        answer = python.run_python("import json, math\nwords = [w.upper() for w in 'one two three'.split()]\n"
                                   "total = sum(i * i for i in range(1000))\n"
                                   "print(json.dumps({'w': words, 't': total, 'r': round(math.sqrt(2), 3)}))")
        assert json.loads(answer) == {"w": ["ONE", "TWO", "THREE"], "t": 332833500, "r": 1.414}
        assert answer.metadata["boundary"].startswith("bubblewrap+seccomp")
    finally:
        python.close()


# ---- the program on its own, installed with prctl in a plain child ----------------------------------------

def run_filtered(code: str, install: bool) -> str:
    """Run `code` in a fresh Python that first installs the filter (PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP)."""
    setup = ("import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n"
             "program = sys.stdin.buffer.read()\n"
             "class Prog(ctypes.Structure):\n    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_char_p)]\n"
             "prog = Prog(len(program) // 8, program)\n"
             "assert libc.prctl(38, 1, 0, 0, 0) == 0\n"
             "assert libc.prctl(22, 2, ctypes.byref(prog), 0, 0) == 0, os.strerror(ctypes.get_errno())\n")
    done = subprocess.run([sys.executable, "-c", (setup if install else "import ctypes, os\n"
                                                  "libc = ctypes.CDLL(None, use_errno=True)\n") + code],
                          input=compile_filter(), capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip()


CHECK = ("r = libc.syscall({number}, {args})\n"
         "print(r if r >= 0 else os.strerror(ctypes.get_errno()))")


@pytest.mark.parametrize("name, args", [("unshare", "0x10000000"), ("keyctl", "0, -3, 0"), ("personality", "0x0040000")])
def test_the_program_alone_refuses_what_the_kernel_would_allow(name, args):
    code = CHECK.format(number=NUMBERS[ARCH][name], args=args)
    if AS_ROOT or name == "personality":
        assert run_filtered(code, install=False) not in ("Operation not permitted", "")
    assert run_filtered(code, install=True) == "Operation not permitted"


def test_the_program_alone_lets_ordinary_work_through():
    printed = run_filtered("import json, threading\nt = threading.Thread(target=lambda: None)\nt.start()\nt.join()\n"
                           "print(json.dumps(sorted(os.listdir('/'))[:1]), libc.personality(0xffffffff) >= 0)",
                           install=True)
    assert printed.endswith("True") and printed.startswith("[")


# ---- the table: the kernel's own numbers, and the command that prints it ---------------------------------------

HEADERS = {"x86_64": "/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "aarch64": "/usr/include/asm-generic/unistd.h"}


@pytest.mark.parametrize("arch", NUMBERS)
def test_the_numbers_are_the_kernels_own(arch):
    header = pathlib.Path(HEADERS[arch])
    if not header.exists():
        pytest.skip(f"{header} is not installed (Debian: linux-libc-dev)")
    defined = {m[1]: int(m[2]) for m in re.finditer(r"#define __NR(?:3264)?_(\w+)\s+(\d+)", header.read_text())}
    assert {name: defined.get(name) for name in NUMBERS[arch]} == NUMBERS[arch]
    missing = [name for name in [*DENIED, "clone", "clone3", "personality"] if name not in NUMBERS[arch]]
    assert [name for name in missing if name in defined] == []      # every call this kernel has is in the table


def test_the_policy_command_prints_every_call(capsys):
    assert main(["sandbox-policy"]) == 0
    printed = capsys.readouterr().out
    for name in [*DENIED, *seccomp.SPECIAL]:
        assert name in printed
    assert main(["sandbox-policy", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {row["call"]: row["answer"] for row in rows}["keyctl"] == "EPERM"
    assert {row["call"]: row["answer"] for row in rows}["clone3"] == "ENOSYS"
    assert len(rows) == len(DENIED) + len(seccomp.SPECIAL)


def test_an_unknown_architecture_gets_one_sentence(capsys):
    with pytest.raises(SystemExit):
        main(["sandbox-policy", "--arch", "sparc64"])
    assert capsys.readouterr().err.strip() == ("lllm sandbox-policy: error: run_python's syscall filter knows x86_64 "
                                               "and aarch64 calls, not sparc64's")


def test_the_proxies_page_names_every_refused_call():
    page = (pathlib.Path(__file__).resolve().parents[2] / "site/native/proxies.md").read_text()
    assert [name for name in [*DENIED, "clone", "clone3", "personality"] if f"`{name}`" not in page] == []
