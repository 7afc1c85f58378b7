"""The service API over real HTTP on 127.0.0.1: /run, /stream (server-sent events), @endpoint routes, the error envelope.

Three servers put the same `ProtocolService.handle` on the wire: the FastAPI app `lllm serve` runs
(under a real uvicorn), the service itself as a bare ASGI app (under uvicorn too) and the
standard library's http.server. Each runs in a thread of this process, so a test can look at the
tactic it serves: a client that leaves in the middle of a stream must close the tactic's generator
(its `finally` runs) and nothing may keep producing.
"""

import json
import threading
import time

import httpx
import pytest

from lllm.protocol.errors import SchemaError
from lllm.protocol.events import TacticEvent
from lllm.protocol.tactic import Tactic
from lllm.services.protocol_service import ProtocolService
from lllm.services.http_server import make_server
from lllm.services import create_tactic_app, endpoint
from support.runtime import free_port


class Ticker(Tactic[str, str]):
    """Streams "<text> 1", "<text> 2", ... forever; records that its generator was closed."""
    name = "ticker"
    input_type = output_type = str

    def __init__(self):
        super().__init__()
        self.closed = threading.Event()
        self.produced = 0

    def _run(self, input_value, *, context=None):
        if input_value == "boom":
            raise RuntimeError("the ticker broke")
        return input_value.upper()

    def stream(self, input_value, *, context=None):
        try:
            while True:
                self.produced += 1
                if input_value == "boom" and self.produced == 2:
                    raise RuntimeError("the ticker broke mid-stream")
                yield input_value if self.produced == 1 else TacticEvent.progress(f"{input_value} {self.produced}")
                time.sleep(0.02)
        finally:
            self.closed.set()

    @endpoint.post("/reset", tags=("admin",))
    async def reset(self, input_value, *, context=None):
        self.produced = 0
        return {"reset": input_value, "endpoint": context.endpoint}


class Running:
    """One server in a thread: `base` is its URL, `stop()` ends it."""

    def __init__(self, kind: str, tactic: Tactic):
        self.port, self.kind = free_port(), kind
        self.base = f"http://127.0.0.1:{self.port}"
        if kind == "stdlib":
            self.server = make_server(ProtocolService(tactic), "127.0.0.1", self.port)
            self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        else:
            import uvicorn
            app = create_tactic_app(tactic) if kind == "fastapi" else ProtocolService(tactic)
            self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
            self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(self.base + "/health", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError(f"the {kind} server did not come up")

    def stop(self) -> None:
        if self.kind == "stdlib":
            self.server.shutdown()
            self.server.server_close()
        else:
            self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(params=["fastapi", "asgi", "stdlib"])
def served(request):
    ticker = Ticker()
    running = Running(request.param, ticker)
    yield running, ticker
    running.stop()


def events_of(response) -> list[dict]:
    return [json.loads(line.removeprefix("data: ")) for line in response.text.splitlines() if line.startswith("data: ")]


# ---- the routes, over the wire ------------------------------------------------------------------------------

def test_run_and_a_custom_endpoint(served):
    running, _ = served
    ran = httpx.post(running.base + "/run", json={"input": "hi", "context": {"request_id": "r1"}})
    assert (ran.status_code, ran.json()) == (200, {"output": "HI", "request_id": "r1", "tactic": "ticker"})
    reset = httpx.post(running.base + "/reset", json={"input": "now"})
    assert (reset.status_code, reset.json()) == (200, {"reset": "now", "endpoint": "reset"})


def test_errors_come_in_one_envelope(served):
    running, _ = served
    failed = httpx.post(running.base + "/run", json={"input": "boom", "context": {"request_id": "r2"}})
    assert failed.status_code == 500
    assert failed.json() == {"detail": {"error": {"type": "RuntimeError", "message": "the ticker broke",
                                                  "tactic": "ticker", "endpoint": "run", "request_id": "r2"}}}
    bad = httpx.post(running.base + "/stream", json={"input": 3})
    assert bad.status_code == 400 and bad.json()["detail"]["error"]["type"] == SchemaError.__name__
    assert httpx.get(running.base + "/reset").json()["detail"]["error"]["type"] == "method_not_allowed"


def test_a_stream_is_read_event_by_event_by_a_streaming_client(served):
    running, ticker = served
    with httpx.stream("POST", running.base + "/stream", json={"input": "tick"}, timeout=10) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.iter_lines()
        first = json.loads(next(line for line in lines if line.startswith("data: ")).removeprefix("data: "))
        second = json.loads(next(line for line in lines if line.startswith("data: ")).removeprefix("data: "))
    assert (first["kind"], first["data"]) == ("message", "tick")
    assert (second["kind"], second["data"]) == ("progress", "tick 2")


def test_a_client_that_disconnects_mid_stream_closes_the_tactics_generator(served):
    running, ticker = served
    with httpx.stream("POST", running.base + "/stream", json={"input": "tick"}, timeout=10) as response:
        frames = 0
        for line in response.iter_lines():
            frames += line.startswith("data: ")
            if frames == 3:
                break                                   # leave: the connection closes here
    assert ticker.closed.wait(5), "the server kept the tactic's generator open after the client left"
    produced = ticker.produced
    time.sleep(0.3)
    assert ticker.produced == produced, "the tactic kept producing after the client left"


def test_an_error_inside_a_stream_is_its_last_event(served):
    running, ticker = served
    response = httpx.post(running.base + "/stream", json={"input": "boom", "context": {"request_id": "r3"}})
    assert response.status_code == 200
    assert [e["kind"] for e in events_of(response)] == ["message", "error"]
    assert events_of(response)[1]["data"] == {"message": "the ticker broke mid-stream"}
    assert events_of(response)[1]["metadata"] == {"error_type": "RuntimeError", "tactic": "ticker",
                                                  "endpoint": "stream", "request_id": "r3"}
    assert ticker.closed.is_set()


# ---- an async stream (aevents) is closed the same way ------------------------------------------------------

class AsyncTicker(Tactic[str, str]):
    name = "aticker"
    input_type = output_type = str

    def __init__(self):
        super().__init__()
        self.closed = threading.Event()

    def _run(self, input_value, *, context=None):
        return input_value

    async def aevents(self, input_value, *, context=None):
        import asyncio
        try:
            for n in range(10_000):
                yield TacticEvent.progress(n)
                await asyncio.sleep(0.02)
        finally:
            self.closed.set()


def test_an_event_only_tactic_streams_and_is_closed_when_the_client_leaves():
    tactic = AsyncTicker()
    running = Running("fastapi", tactic)
    try:
        with httpx.stream("POST", running.base + "/stream", json={"input": "go"}, timeout=10) as response:
            data = [json.loads(line[6:])["data"] for _, line in zip(range(4), response.iter_lines())
                    if line.startswith("data: ")]
        assert data[:2] == [0, 1]
        assert tactic.closed.wait(5)
    finally:
        running.stop()


def test_the_openapi_description_lists_the_default_and_custom_routes():
    schema = create_tactic_app(Ticker()).openapi()
    assert {"/run", "/stream", "/info", "/reset"} <= set(schema["paths"])
    assert schema["paths"]["/reset"]["post"]["summary"] == "Reset"
    assert schema["paths"]["/reset"]["post"]["tags"] == ["admin"]


