"""`python -m lllm serve-model` in a subprocess on a free loopback port, for the tests that call it.

    server = ModelServer("--models", "tinyllm").wait_until_up()
    ...                          # server.base is "http://127.0.0.1:PORT"
    status, out, err = server.stop()
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from support.server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
AGENT_MODEL = ROOT / "build" / "model" / "tinyllm-agent.onnx"


class ModelServer(ServerProcess):
    """`lllm serve-model` in a subprocess on a free loopback port; `stop()` sends SIGTERM."""

    PROBE, NAME = "/v1/models", "serve-model"

    def __init__(self, *options: str):
        super().__init__([sys.executable, "-m", "lllm", "serve-model", "--log-level", "warning", *options],
                         cwd=ROOT, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))


def running_server(*args: str):
    """A module's `serve-model` (a fixture's body: `yield from running_server()`): yielded once it
    answers, then stopped, and it must exit cleanly."""
    running = ModelServer(*args).wait_until_up()
    yield running
    status, _, err = running.stop()
    assert status == 0, err


def openai_client(server):
    """The official `openai` client pointed at `server`: no retries, so a failure shows at once."""
    from openai import OpenAI
    return OpenAI(base_url=server.base + "/v1", api_key="not-needed", max_retries=0, timeout=60)
