"""Layer 3 · the boundary below Python: the bubblewrap command that confines run_python's child, or a refusal.

Read `process.py` first (it starts the child this builds the command for) and `worker.py` (the child).
The import allow-list and the budget in `worker.py` are conveniences that give the model clear,
early errors; they are not what confines it, because Python code can always walk from an allowed
object back to `os` or `sys`. What confines it is the kernel, through bubblewrap (`bwrap`).

Contract: `bubblewrap_command(bwrap, budget, info_fd, seccomp_fd)` is the command line that runs
`worker.py` with every namespace unshared (no network, no view of other processes; as root, every
one but the user namespace, see below), a read-only view of the interpreter, its standard library
and the worker's files and nothing else (no project, no /etc, no home), a private scratch tmpfs of
`scratch_mb` at /tmp, no capabilities, no new privileges, an unprivileged uid (65534) and the
syscall filter of `seccomp.py`, which bwrap reads from `seccomp_fd` (`filter_fd()` makes one) and
installs just before it starts the worker. `readable_paths()` is what the worker may read once it
has put up its own Landlock fence (`landlock.py`). `locate(bwrap)`
finds bwrap (an explicit path, else `$LLLM_BWRAP`, else `PATH`), checks once per path that it
can create the namespaces here, and raises `SandboxUnavailable` (one sentence saying what to
install) when it cannot. `Answer` is run_python's text with `metadata` naming the boundary.

Usage:

    >>> answer = Answer("42", "bubblewrap+seccomp")
    >>> answer == "42", answer.metadata
    (True, {'boundary': 'bubblewrap+seccomp'})
    >>> locate("/nonexistent/bwrap")
    Traceback (most recent call last):
    ...
    lllm.runtimes.native.sandbox.boundary.SandboxUnavailable: run_python confines code with bubblewrap, and /nonexistent/bwrap does not exist: install it (Debian: apt-get install bubblewrap), or pass boundary="unconfined" to run without it
"""

from __future__ import annotations

import functools
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

from lllm.runtimes.native.sandbox.seccomp import FilterUnavailable, compile_filter

__all__ = ["Answer", "SandboxUnavailable", "locate", "bubblewrap_command", "filter_fd", "readable_paths", "NOBODY",
           "WORKER_INSIDE"]

NOBODY = 65534                             # the conventional unprivileged uid and gid ("nobody", "nogroup")
WORKER = pathlib.Path(__file__).with_name("worker.py")
WORKER_INSIDE = "/sandbox/worker.py"       # where the child sees it: not under the project's path
LANDLOCK = pathlib.Path(__file__).with_name("landlock.py")
LANDLOCK_INSIDE = "/sandbox/landlock.py"   # worker.py loads it from beside itself
INSTALL = "install it (Debian: apt-get install bubblewrap), or pass boundary=\"unconfined\" to run without it"


class SandboxUnavailable(RuntimeError):
    """No boundary below Python is available here, and the caller did not opt out of one."""


class Answer(str):
    """run_python's text (compares and prints as the text), with `metadata` naming the boundary it ran inside."""

    def __new__(cls, text: str = "", boundary: str = ""):
        answer = super().__new__(cls, text)
        answer.metadata = {"boundary": boundary}
        return answer


# ---- finding bubblewrap --------------------------------------------------------------------------------

def locate(bwrap: str | None = None) -> str:
    """The bwrap to use, after checking it can confine a process here; `SandboxUnavailable` otherwise."""
    path = bwrap or os.environ.get("LLLM_BWRAP") or shutil.which("bwrap") or "bwrap"
    if not os.path.isfile(path):
        shown = "bwrap is not on PATH" if path == "bwrap" else f"{path} does not exist"
        raise SandboxUnavailable(f"run_python confines code with bubblewrap, and {shown}: {INSTALL}")
    problem = probe(path)
    if problem:
        raise SandboxUnavailable(f"run_python confines code with bubblewrap, and {path} cannot create its "
                                 f"namespaces here ({problem}): allow user namespaces or run as root, or pass "
                                 f'boundary="unconfined" to run without it')
    return path


@functools.cache
def probe(bwrap: str) -> str:
    """'' when `bwrap` starts this interpreter under the same confinement the worker gets, else its complaint."""
    try:
        seccomp = filter_fd()
    except FilterUnavailable as exc:
        return str(exc)
    try:
        command = bubblewrap_command(bwrap, {"scratch_mb": 1}, program=["-c", "pass"], seccomp_fd=seccomp)
        done = subprocess.run(command, env={}, stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                              pass_fds=(seccomp,))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        os.close(seccomp)
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return "" if done.returncode == 0 else (lines[-1] if lines else f"exit status {done.returncode}")


# ---- the command line ------------------------------------------------------------------------------------

def interpreter_files() -> list[str]:
    """What this interpreter needs to start: its binary, its shared library and its standard library."""
    library = sysconfig.get_config_var("INSTSONAME") or ""
    candidates = [os.path.realpath(sys.executable), sysconfig.get_path("stdlib"),
                  os.path.join(sysconfig.get_config_var("LIBDIR") or "", library) if library else ""]
    return [path for path in dict.fromkeys(candidates) if path and os.path.exists(path)]


def system_libraries() -> list[str]:
    """The C libraries (libc, libm, the dynamic loader) as they are laid out here: bound, or linked as here."""
    args = []
    for path in ("/usr/lib", "/usr/lib64", "/lib", "/lib64"):
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def filter_fd() -> int:
    """A pipe's reading end holding this machine's syscall filter, for `--seccomp`; the caller closes it."""
    program = compile_filter()
    read, write = os.pipe()
    try:
        os.write(write, program)       # about 1 KB: well inside a pipe's buffer
    finally:
        os.close(write)
    return read


def readable_paths() -> list[str]:
    """Every path bound for the child, read-only: the sandbox's files, the C libraries, the interpreter."""
    libraries = [path for path in ("/usr/lib", "/usr/lib64", "/lib", "/lib64") if os.path.isdir(path)]
    return ["/sandbox", *libraries, *interpreter_files()]


def bubblewrap_command(bwrap: str, budget: dict, program: list[str] | None = None, info_fd: int | None = None,
                       seccomp_fd: int | None = None) -> list[str]:
    if os.geteuid() == 0:
        # As root, a user namespace would map the sandbox's uid back to root outside, and the kernel's
        # process limit (RLIMIT_NPROC) never applies to root. So root keeps the user namespace and two
        # capabilities only long enough for worker.py to become the real uid 65534 before it reads any code.
        isolation = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                     "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        isolation = ["--unshare-all", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL"]
    files, folders = [], {}
    for path in interpreter_files():
        # bwrap makes missing parent folders 0700; uid 65534 must be able to pass through them
        for parent in reversed(pathlib.PurePath(path).parents[:-1]):
            folders[str(parent)] = ["--perms", "0755", "--dir", str(parent)]
        files += ["--ro-bind", path, path]
    folders = [arg for folder in {"/usr": ["--perms", "0755", "--dir", "/usr"], **folders,
                                  "/sandbox": ["--perms", "0755", "--dir", "/sandbox"]}.values() for arg in folder]
    scratch = str(budget["scratch_mb"] * 1024 * 1024)
    # --new-session: the code cannot push keystrokes into our terminal (TIOCSTI). No --die-with-parent:
    # it ties the child's life to the *thread* that started it; process.py kills the namespace instead.
    return [bwrap, *isolation, "--new-session", "--clearenv",
            *(["--info-fd", str(info_fd)] if info_fd is not None else []),
            *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
            *folders, *system_libraries(), *files, "--ro-bind", str(WORKER), WORKER_INSIDE,
            "--ro-bind", str(LANDLOCK), LANDLOCK_INSIDE,
            "--dev", "/dev", "--perms", "1777", "--size", scratch, "--tmpfs", "/tmp", "--chdir", "/tmp",
            os.path.realpath(sys.executable), "-I", "-S", *(program or [WORKER_INSIDE])]
