"""`python -m lllm serve shout_mod:shout` in a subprocess on a free loopback port, for the tests that call it.

    server = TacticServer(tmp_path, "--server", "stdlib")       # writes shout_mod.py (TACTIC) there
    server.wait_until_up()                                       # server.base is "http://127.0.0.1:PORT"
    status, out, err = server.stop()

`tactic=` replaces the module's text (it must still define `shout`); `block_uvicorn=True` puts a
`uvicorn` that cannot be imported first on the path, to force the standard library's fallback.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import time

import httpx
import pytest

from support.runtime import free_port

REPO = pathlib.Path(__file__).resolve().parents[2]
TACTIC = '''
def shout(text: str) -> str:
    """Shout the text back."""
    if text == "boom":
        raise RuntimeError("the tactic broke")
    return text.upper()
'''


class TacticServer:
    """`lllm serve shout_mod:shout` in a subprocess; `stop()` sends SIGTERM and returns (status, stderr)."""

    def __init__(self, folder: pathlib.Path, *options: str, block_uvicorn: bool = False, tactic: str = TACTIC):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "shout_mod.py").write_text(tactic, encoding="utf-8")
        path = [str(REPO)]
        if block_uvicorn:
            blocker = folder / "blocked" / "uvicorn"
            blocker.mkdir(parents=True, exist_ok=True)
            (blocker / "__init__.py").write_text('raise ImportError("uvicorn is blocked for this test")\n')
            path.insert(0, str(folder / "blocked"))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lllm", "serve", "shout_mod:shout", "--port", str(self.port), *options],
            cwd=folder, env=dict(os.environ, PYTHONPATH=os.pathsep.join(path)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_until_up(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                pytest.fail(f"lllm serve exited with {self.process.returncode}:\n{out}\n{err}")
            try:
                httpx.get(self.base + "/health", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        pytest.fail("lllm serve did not answer /health in time")

    def stop(self) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        return self.process.returncode, out, err

    def stop_after_exit(self) -> tuple[int, str, str]:
        """For a command that must fail at once: wait for it to exit by itself."""
        out, err = self.process.communicate(timeout=60)
        return self.process.returncode, out, err
