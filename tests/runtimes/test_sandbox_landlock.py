"""Landlock, run_python's second fence: files and TCP limited by the kernel, whatever is mounted.

`restrict` is tried in a plain child process (no bubblewrap, no mount namespace), so what it
refuses is refused by Landlock alone; the same child without `restrict` does each thing, so the
tests can fail. Inside the sandbox, the answers say the fence is up.
"""

import os
import pathlib
import socket
import subprocess
import sys
import sysconfig

import pytest

from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
from lllm.runtimes.native.sandbox import landlock

ROOT = pathlib.Path(__file__).resolve().parents[2]
LANDLOCK = pathlib.Path(landlock.__file__)
pytestmark = pytest.mark.skipif(landlock.abi() == 0, reason="this kernel has no Landlock")


def child(code: str, fenced: bool, scratch: pathlib.Path) -> str:
    """Run `code` in a fresh Python, after `restrict` (reading: the interpreter's files; writing: `scratch`) if fenced."""
    read = [sys.base_prefix, sysconfig.get_path("stdlib"), str(LANDLOCK.parent), "/usr", "/lib", "/lib64", "/etc/ld.so.cache"]
    fence = (f"import importlib.util\nspec = importlib.util.spec_from_file_location('landlock', {str(LANDLOCK)!r})\n"
             f"ll = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(ll)\n"
             f"print(ll.restrict({[p for p in read if os.path.exists(p)]!r}, [{str(scratch)!r}]))\n")
    test = f"def attempt(f):\n    try:\n        return f()\n    except OSError as e:\n        return type(e).__name__\n{code}"
    done = subprocess.run([sys.executable, "-I", "-c", (fence if fenced else "print(0)\n") + test],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


ATTEMPTS = {
    "read the project's pyproject.toml": (f"print(attempt(lambda: open({str(ROOT / 'pyproject.toml')!r}).read()[:7]))",
                                          "[build-", "PermissionError"),
    "write beside the project": (f"print(attempt(lambda: open({str(ROOT / '.landlock-probe')!r}, 'w').write('x')))",
                                 "1", "PermissionError"),
    "list /etc": ("print(attempt(lambda: len(__import__('os').listdir('/etc')) > 0))", "True", "PermissionError"),
}


@pytest.mark.parametrize("name", ATTEMPTS)
def test_landlock_alone_refuses_what_the_process_could_otherwise_do(name, tmp_path):
    code, unfenced, fenced = ATTEMPTS[name]
    try:
        assert child(code, fenced=False, scratch=tmp_path).splitlines() == ["0", unfenced]
        assert child(code, fenced=True, scratch=tmp_path).splitlines() == [str(landlock.abi()), fenced]
    finally:
        (ROOT / ".landlock-probe").unlink(missing_ok=True)


def test_the_scratch_and_the_interpreter_stay_usable_behind_the_fence(tmp_path):
    code = (f"print(attempt(lambda: open({str(tmp_path / 'note')!r}, 'w').write('kept')))\n"
            f"print(open({str(tmp_path / 'note')!r}).read())\nimport json, decimal\nprint(json.dumps([1]))")
    assert child(code, fenced=True, scratch=tmp_path).splitlines()[1:] == ["4", "kept", "[1]"]


@pytest.mark.skipif(landlock.abi() < 4, reason="Landlock fences TCP from version 4")
def test_landlock_refuses_tcp_connections(tmp_path):
    server = socket.create_server(("127.0.0.1", 0))
    code = (f"import socket\nprint(attempt(lambda: socket.create_connection(('127.0.0.1', {server.getsockname()[1]}), "
            f"timeout=5) and 'connected'))")
    try:
        assert child(code, fenced=False, scratch=tmp_path).splitlines()[1] == "connected"
        assert child(code, fenced=True, scratch=tmp_path).splitlines()[1] == "PermissionError"
    finally:
        server.close()


def test_inside_the_sandbox_the_answer_names_the_fence():
    python = ProxyManager([WeatherProxy])
    try:
        assert python.run_python("print(1)").metadata == {"boundary": "bubblewrap+seccomp+landlock"}
    finally:
        python.close()
