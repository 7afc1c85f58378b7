"""A `python -m lllm ...` server in a subprocess on a free loopback port: started, awaited, stopped.

    class MyServer(ServerProcess):
        PROBE, NAME = "/health", "lllm serve"
    server = MyServer([sys.executable, "-m", "lllm", "serve", ...], cwd=folder, env=env)
    server.wait_until_up()                   # server.base is "http://127.0.0.1:PORT"
    status, out, err = server.stop()         # SIGTERM, then the exit status and what it printed
"""

from __future__ import annotations

import subprocess
import time

import httpx
import pytest

from support.runtime import free_port


class ServerProcess:
    PROBE, NAME = "/health", "the server"          # the path that answers once it is up, and what to call it

    def __init__(self, command: list[str], **popen):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([*command, "--port", str(self.port)], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, **popen)

    def wait_until_up(self, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                pytest.fail(f"{self.NAME} exited with {self.process.returncode}:\n{out}\n{err}")
            try:
                httpx.get(self.base + self.PROBE, timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        pytest.fail(f"{self.NAME} did not answer {self.PROBE} in time")

    def stop(self) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        return self.process.returncode, out, err
