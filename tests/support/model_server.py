"""`python -m lllm serve-model` in a subprocess on a free loopback port, for the tests that call it.

    server = ModelServer("--models", "tinyllm").wait_until_up()
    ...                          # server.base is "http://127.0.0.1:PORT"
    status, out, err = server.stop()
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from support.runtime import free_port

ROOT = Path(__file__).resolve().parents[2]
AGENT_MODEL = ROOT / "build" / "model" / "tinyllm-agent.onnx"


class ModelServer:
    """`lllm serve-model` in a subprocess on a free loopback port; `stop()` sends SIGTERM."""

    def __init__(self, *options: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lllm", "serve-model", "--port", str(self.port), "--log-level", "warning", *options],
            cwd=ROOT, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_until_up(self, timeout: float = 60) -> "ModelServer":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                pytest.fail(f"serve-model exited with {self.process.returncode}:\n{out}\n{err}")
            try:
                httpx.get(self.base + "/v1/models", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        pytest.fail("serve-model did not answer /v1/models in time")

    def stop(self) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        return self.process.returncode, out, err
