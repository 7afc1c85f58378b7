"""run_python against code that tries to get out: bubblewrap holds where the Python allow-list does not.

Every attack first escapes the allow-list to the real `sys` (there are many ways: the walks below
all work), then tries to read, write, connect, signal or spawn outside what the tool gives it.
Each attack is a separate case, run twice: inside bubblewrap (the default), where it must end
with a clear error or a harmless result, and with `boundary="unconfined"` (the same child with
kernel limits only), where it must succeed, so a regression in the boundary fails this suite.
The last test checks that no file the confined attacks tried to create exists outside the
sandbox's scratch space.
"""

import importlib
import os
import pathlib
import re
import select
import signal
import socket
import time
import types
import uuid

import pytest

from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
from lllm.runtimes.native.sandbox import SandboxUnavailable, landlock
from lllm.runtimes.native.sandbox.worker import BUDGET

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFINED = f"lllm-hostile-{uuid.uuid4().hex[:8]}"       # every path a confined attack tries to create
UNCONFINED = f"lllm-escaped-{uuid.uuid4().hex[:8]}"     # the companion runs' paths, removed after each
ROOT_BEFORE = sorted(os.listdir(ROOT))
LIMITS = {"cpu_seconds": 1, "wall_seconds": 20, "memory_mb": 128}
FENCES = "bubblewrap+seccomp" + ("+landlock" if landlock.abi() else "")    # what confines run_python here
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="RLIMIT_NPROC stops this unconfined unless root")


def manager(boundary="bubblewrap", **limits):
    return ProxyManager([WeatherProxy], budget={**LIMITS, **limits}, boundary=boundary)


# ---- ways out of the allow-list to the real sys ---------------------------------------------------------

def module_walk(name: str) -> str | None:
    """`statistics.sys`, `random._os.sys`...: a chain of module attributes from an allowed module to sys."""
    queue = [(importlib.import_module(name), name)]
    seen = {id(queue[0][0])}
    while queue:
        module, path = queue.pop(0)
        for attr, value in sorted(vars(module).items()):
            if isinstance(value, types.ModuleType) and id(value) not in seen:
                if value.__name__ in ("os", "sys"):
                    return f"{path}.{attr}" + (".sys" if value.__name__ == "os" else "")
                seen.add(id(value))
                queue.append((value, f"{path}.{attr}"))
    return None


# math, itertools, decimal and time are C modules with no module attribute to walk; the tricks below need none.
WALKS = {name: walk for name in BUDGET["allowed_imports"] if (walk := module_walk(name))}
FIND_SYS = "while 'sys' not in f.f_globals:\n    f = f.f_back\nsys = f.f_globals['sys']\n"
ESCAPES = {
    **{f"globals of {name}": f"import {name}\nsys = {walk}\n" for name, walk in WALKS.items()},
    "functools.namedtuple.__globals__": "import functools\nsys = functools.namedtuple.__globals__['_sys']\n",
    "subclass walk": "sys = [c for c in ().__class__.__base__.__subclasses__()\n"
                     "       if c.__name__ == '_wrap_close'][0].__init__.__globals__['sys']\n",
    "builtins from print.__self__": "sys = print.__self__.__import__('sys')\n",
    "CALL_API.__globals__": "sys = CALL_API.__globals__['sys']\n",
    "traceback frames": "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    f = e.__traceback__.tb_frame\n" + FIND_SYS,
    "generator frames": "def g():\n    yield gen.gi_frame.f_back\ngen = g()\nf = next(gen)\n" + FIND_SYS,
    "gc.get_objects": "gc = print.__self__.__import__('gc')\n"
                      "sys = next(o for o in gc.get_objects() if type(o).__name__ == 'module' and o.__name__ == 'sys')\n",
}
TOOLS = "posix = sys.modules['posix']\nbuiltins = sys.modules['builtins']\nimp = builtins.__import__\n"
READ_PASSWD = "print(builtins.open('/etc/passwd').read().splitlines()[0])"


@pytest.mark.parametrize("escape", ESCAPES)
def test_every_escape_reaches_sys_and_inside_bubblewrap_finds_no_etc_passwd(escape):
    python = manager()
    try:
        assert python.run_python(ESCAPES[escape] + "print(type(sys).__name__, sys.__name__)") == "module sys"
        answer = python.run_python(ESCAPES[escape] + TOOLS + READ_PASSWD)
        assert answer == "Error: FileNotFoundError: [Errno 2] No such file or directory: '/etc/passwd'"
        assert answer.metadata == {"boundary": FENCES}
    finally:
        python.close()


@pytest.mark.parametrize("escape", ESCAPES)
def test_every_escape_reads_etc_passwd_when_unconfined(escape):
    python = manager("unconfined")
    try:
        assert python.run_python(ESCAPES[escape] + TOOLS + READ_PASSWD).startswith("root:")
    finally:
        python.close()


# ---- what an escaped attacker then tries ----------------------------------------------------------------

def target(token: str, name: str) -> str:
    """The file name an attack tries to create: the run's token, then the attack's name."""
    return f"{token}-{re.sub(r'[^a-z]+', '-', name)}"


def attack(name: str, token: str, port: int = 0, signum: int = signal.SIGKILL) -> str:
    """The attack's code (after an escape to sys); `token` names every path it tries to create."""
    host_tmp, project = f"/tmp/{target(token, name)}", ROOT / target(token, name)
    return ESCAPES["subclass walk"] + TOOLS + {
        "read the project's pyproject.toml": f"print(builtins.open({str(ROOT / 'pyproject.toml')!r}).read()[:200])",
        "write into the project folder": f"builtins.open({str(project)!r}, 'w').write('escaped')\nprint('written')",
        "write into the host's /tmp": f"builtins.open({host_tmp!r}, 'w').write('escaped')\nprint('written')",
        "fill the disk": f"f = builtins.open({host_tmp!r}, 'wb')\nfor i in range(64):\n"
                         f"    f.write(b'x' * 2**20)\nf.close()\nprint('filled')",
        "connect to a loopback listener": f"s = imp('socket').create_connection(('127.0.0.1', {port}), timeout=5)\n"
                                          f"s.sendall(b'escaped')\nprint('connected')",
        "signal the parent": f"posix.kill(posix.getppid(), {int(signum)})\nprint('sent')",
        "signal the test process by its pid": f"posix.kill({os.getpid()}, {int(signum)})\nprint('sent')",
        "subprocess through builtins": "print(imp('subprocess').run(['id'], capture_output=True, text=True).stdout)",
        "subprocess through importlib": "importlib = sys.modules.get('importlib') or imp('importlib')\n"
                                        "print(importlib.import_module('subprocess').run(['id'], capture_output=True, "
                                        "text=True).stdout)",
        "fork": "pid = posix.fork()\nif pid == 0:\n    posix._exit(0)\nposix.waitpid(pid, 0)\nprint('forked')",
        "system": f"print(posix.system('echo escaped > {host_tmp}'))",
    }[name]


@pytest.fixture
def listener():
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


def accepted(server) -> bool:
    return bool(select.select([server], [], [], 1)[0])


CONFINED_RESULTS = {     # attack -> how it must end inside bubblewrap
    "read the project's pyproject.toml": "Error: FileNotFoundError: [Errno 2] No such file or directory",
    "write into the project folder": "Error: FileNotFoundError: [Errno 2] No such file or directory",
    "write into the host's /tmp": "written",           # harmless: /tmp is the sandbox's own scratch tmpfs
    "fill the disk": "Error: OSError: [Errno 28] No space left on device",       # the scratch is capped
    # Landlock (version 4 and later) refuses TCP first; without it, its own loopback: nobody there
    "connect to a loopback listener": "Error: PermissionError" if landlock.abi() >= 4 else "Error: ConnectionRefusedError",
    "signal the parent": "Error: PermissionError: [Errno 1] Operation not permitted",
    "signal the test process by its pid": "Error: ProcessLookupError: [Errno 3] No such process",
    "subprocess through builtins": "Error: BlockingIOError: [Errno 11] Resource temporarily unavailable",
    "subprocess through importlib": "Error: BlockingIOError: [Errno 11] Resource temporarily unavailable",
    "fork": "Error: BlockingIOError: [Errno 11] Resource temporarily unavailable",
    "system": "32512",                                 # glibc's answer when it could not start a shell
}


@pytest.mark.parametrize("name", CONFINED_RESULTS)
def test_an_escaped_attack_inside_bubblewrap_ends_in_an_error_or_harmlessly(name, listener):
    python = manager()
    try:
        answer = python.run_python(attack(name, CONFINED, listener.getsockname()[1]))
        assert answer.startswith(CONFINED_RESULTS[name]), answer
        assert not accepted(listener)
        assert python.run_python("print('still here')") in ("still here", )
    finally:
        python.close()
    assert not os.path.exists(f"/tmp/{target(CONFINED, name)}") and not (ROOT / target(CONFINED, name)).exists()


# ---- the same attacks succeed without the boundary (so the suite above can fail) ---------------------------

def test_unconfined_the_project_is_readable_and_writable():
    python = manager("unconfined")
    written = ROOT / target(UNCONFINED, "write into the project folder")
    try:
        assert "[project]" in python.run_python(attack("read the project's pyproject.toml", UNCONFINED))
        assert python.run_python(attack("write into the project folder", UNCONFINED)) == "written"
        assert written.read_text() == "escaped"
    finally:
        python.close()
        written.unlink(missing_ok=True)


@pytest.mark.parametrize("name, size", [("write into the host's /tmp", 7), ("fill the disk", 64 * 2**20)])
def test_unconfined_files_land_on_the_host(name, size):
    python, written = manager("unconfined"), pathlib.Path(f"/tmp/{target(UNCONFINED, name)}")
    try:
        assert python.run_python(attack(name, UNCONFINED)) in ("written", "filled")
        assert written.stat().st_size == size
    finally:
        python.close()
        written.unlink(missing_ok=True)


def test_unconfined_code_connects_to_the_hosts_loopback(listener):
    python = manager("unconfined")
    try:
        assert python.run_python(attack("connect to a loopback listener", UNCONFINED, listener.getsockname()[1])) \
            == "connected"
        assert accepted(listener)
    finally:
        python.close()


@pytest.mark.parametrize("name", ["signal the parent", "signal the test process by its pid"])
def test_unconfined_code_signals_the_test_process(name):
    received = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: received.append(signum))
    python = manager("unconfined")
    try:                  # SIGUSR1, caught here: with SIGKILL this test process would be gone
        assert python.run_python(attack(name, UNCONFINED, signum=signal.SIGUSR1)) == "sent"
        for _ in range(100):               # the handler runs between two bytecodes of this thread
            if received:
                break
            time.sleep(0.01)
        assert received == [signal.SIGUSR1]
    finally:
        python.close()
        signal.signal(signal.SIGUSR1, previous)


@AS_ROOT
@pytest.mark.parametrize("name, printed", [("subprocess through builtins", "uid=0(root)"),
                                           ("subprocess through importlib", "uid=0(root)"), ("fork", "forked")])
def test_unconfined_root_starts_processes(name, printed):
    python = manager("unconfined")
    try:
        assert printed in python.run_python(attack(name, UNCONFINED))
    finally:
        python.close()


@AS_ROOT
def test_unconfined_root_runs_a_shell_that_writes_on_the_host():
    python, written = manager("unconfined"), pathlib.Path(f"/tmp/{target(UNCONFINED, 'system')}")
    try:
        assert python.run_python(attack("system", UNCONFINED)) == "0"
        assert written.read_text() == "escaped\n"
    finally:
        python.close()
        written.unlink(missing_ok=True)


# ---- time and memory, escaped or not ------------------------------------------------------------------------

RESTARTED = "; the interpreter was restarted, so variables from earlier calls are gone"


@pytest.mark.parametrize("code, answer", [
    ("sum(range(10**15))", "Error: CPUTimeExceeded: stopped after 1 s of CPU time (cpu_seconds)" + RESTARTED),
    (ESCAPES["subclass walk"] + "sys.settrace(None)\nwhile True:\n    pass",
     "Error: CPUTimeExceeded: stopped after 1 s of CPU time (cpu_seconds)" + RESTARTED),
    ("block = bytearray(4 * 1024**3)", "Error: MemoryError: "),
    (ESCAPES["subclass walk"] + "sys.settrace(None)\ngrow = []\nwhile True:\n    grow.append(bytearray(10**6))",
     "Error: MemoryError: ")])
def test_time_and_memory_attacks_end_at_their_limit(code, answer):
    python = manager()
    try:
        assert python.run_python(code) == answer.rstrip()
        assert python.run_python("print('back')") == "back"
    finally:
        python.close()


def test_the_wall_clock_kills_the_whole_namespace():
    python = manager(wall_seconds=2)
    try:
        python.run_python("kept = 1")
        first = python.interpreter.namespace_pid
        inside = [int(pid) for pid in pathlib.Path(f"/proc/{first}/task/{first}/children").read_text().split()]
        assert python.run_python("import time\ntime.sleep(600)").startswith("Error: TimeoutError")
        assert inside and [pid for pid in [first, *inside] if alive(pid)] == []
    finally:
        python.close()


def alive(pid: int) -> bool:
    """Still running (a zombie waiting to be reaped is not): polled for a few seconds, as exit is asynchronous."""
    for _ in range(50):
        try:
            state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state == "Z":
            return False
        time.sleep(0.1)
    return True


# ---- no boundary available: a refusal, unless the caller opts out by name ------------------------------------

def test_without_bubblewrap_run_python_refuses_and_says_what_to_install(monkeypatch):
    monkeypatch.setenv("LLLM_BWRAP", "/nonexistent/bwrap")
    python = ProxyManager([WeatherProxy])
    with pytest.raises(SandboxUnavailable, match=r"^run_python confines code with bubblewrap, and /nonexistent/bwrap "
                                                 r"does not exist: install it \(Debian: apt-get install bubblewrap\)"):
        python.run_python("print(1)")
    python.close()
    unconfined = ProxyManager([WeatherProxy], boundary="unconfined")
    answer = unconfined.run_python("print(1)")
    assert (answer, answer.metadata) == ("1", {"boundary": "unconfined"})
    unconfined.close()


def test_a_bwrap_that_cannot_confine_is_refused_too():
    python = ProxyManager([WeatherProxy], bwrap="/bin/false")       # exists, but confines nothing
    with pytest.raises(SandboxUnavailable, match=r"/bin/false cannot create its namespaces here \(exit status 1\)"):
        python.run_python("print(1)")
    python.close()


@pytest.mark.parametrize("options, message", [
    ({"boundary": "docker"}, "boundary must be one of bubblewrap, unconfined, got 'docker'"),
    ({"sandbox": "in-process", "boundary": "unconfined"},
     "boundary='unconfined' applies to the process sandbox; the in-process one has none")])
def test_a_boundary_that_does_not_exist_is_a_clear_error(options, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ProxyManager([WeatherProxy], **options)


@pytest.mark.parametrize("options, boundary", [({}, FENCES), ({"boundary": "unconfined"}, "unconfined"),
                                               ({"sandbox": "in-process"}, "none")])
def test_every_answer_names_its_boundary(options, boundary):
    python = ProxyManager([WeatherProxy], **options)
    try:
        answers = [python.run_python(code) for code in ("x = 6", "print(x * 7)", "import os", "#" * 4001)]
        assert answers[1] == "42" and [answer.metadata for answer in answers] == [{"boundary": boundary}] * 4
    finally:
        python.close()


# ---- last: nothing the confined attacks tried to create exists outside the scratch ----------------------------

def test_nothing_was_created_outside_the_sandbox_scratch():
    # Only this run's names: other tests and other programs may create files in /tmp or the project meanwhile.
    assert [name for name in os.listdir("/tmp") if CONFINED in name or UNCONFINED in name] == []
    assert [name for name in set(os.listdir(ROOT)) - set(ROOT_BEFORE) if "lllm-" in name] == []
