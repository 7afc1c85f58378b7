"""The door (lllm/services/door.py) in front of both servers, tried as a hostile client tries it.

The checks as functions first, with literal answers; then the real thing: `lllm serve` under uvicorn
and under `--server stdlib`, and `lllm serve-model`, each a subprocess on loopback, spoken to over
raw sockets (lying Content-Lengths, trickled headers, a 500 MB body, a foreign Host) and httpx.
Every refusal must be an answer with a status, never a dropped connection or a held thread.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

from support.model_server import AGENT_MODEL, ModelServer
from support.runtime import MODEL
from support.tactic_server import TacticServer
from lllm.services.door import DEFAULT_ORIGINS, Limits, Refusal, body_length, check_request, host_allowed, origin_matcher

FAST = ("--header-timeout", "1", "--body-timeout", "1")          # so a slow client is shut out within the test's patience
KINDS = ["serve-uvicorn", "serve-stdlib", "serve-model"]


# ---- the checks, as functions --------------------------------------------------------------------------

def test_body_length_reads_a_number_and_refuses_what_lies():
    limits = Limits(max_body=100)
    assert body_length("100", limits) == 100 and body_length(" 7 ", limits) == 7 and body_length(None, limits) == 0
    for text, status in [("abc", 400), ("-1", 400), ("1e3", 400), ("", 400), ("101", 413), ("9" * 5000, 413),
                         (str(10 ** 12), 413), ("٣", 400)]:
        with pytest.raises(Refusal) as refused:
            body_length(text, limits)
        assert refused.value.status == status, text


def test_host_must_name_loopback_when_listening_on_loopback():
    assert [host_allowed(h, "127.0.0.1") for h in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "app.localhost",
                                                  "127.0.0.2", None)] == [True] * 6
    assert [host_allowed(h, "127.0.0.1") for h in ("evil.example:8000", "127.0.0.1.evil.example", "[::2]:80")] == [False] * 3
    assert host_allowed("evil.example", "0.0.0.0") and host_allowed("evil.example", "192.168.1.4")


def test_check_request_in_order_host_origin_preflight_length_type():
    allowed = origin_matcher(DEFAULT_ORIGINS)

    def status(method, **headers):
        try:
            check_request(method, headers, Limits(max_body=10), allowed, "127.0.0.1", json_only=True)
            return 200
        except Refusal as refused:
            return refused.status
    assert status("POST", host="evil.example", origin="https://evil.example") == 403
    assert status("POST", host="localhost", origin="https://evil.example", **{"content-length": "99"}) == 403
    assert status("OPTIONS", origin="https://lllm.pages.dev", **{"access-control-request-method": "POST"}) == 204
    assert status("POST", **{"content-length": "99", "content-type": "application/json"}) == 413
    assert status("POST", **{"content-length": "2", "content-type": "text/plain"}) == 415
    assert status("POST", **{"content-length": "2", "content-type": "application/json; charset=utf-8"}) == 200
    assert status("POST") == 200 and status("GET", origin="http://localhost:8000") == 200


# ---- the real servers ------------------------------------------------------------------------------------

def start(kind: str, folder, *options: str):
    if kind == "serve-model":
        return ModelServer("--models", "tinyllm", *options).wait_until_up()
    server = TacticServer(folder, "--server", kind.removeprefix("serve-"), "--log-level", "warning", *options)
    server.wait_until_up()
    return server


@pytest.fixture(scope="module", params=KINDS)
def server(request, tmp_path_factory):
    if request.param == "serve-model" and not (MODEL.exists() and AGENT_MODEL.exists()):
        pytest.skip("needs build/model/tinyllm.onnx (make model)")
    running = start(request.param, tmp_path_factory.mktemp(request.param), *FAST, "--max-connections", "400")
    running.kind = request.param
    running.path = "/v1/completions" if request.param == "serve-model" else "/run"
    running.good = b'{"model": "tinyllm", "prompt": "Once", "max_tokens": 1}' if running.kind == "serve-model" \
        else b'{"input": "hi"}'
    yield running
    running.stop()


def raw(server, head: str, body: bytes = b"", wait: float = 10.0) -> tuple[int, bytes, float]:
    """Send `head` (and `body`) on a fresh socket; (status, answer body, seconds until the answer ended)."""
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as s:
        s.sendall(head.replace("\n", "\r\n").encode() + body)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return status_of(answer), answer.partition(b"\r\n\r\n")[2], time.monotonic() - began


def status_of(answer: bytes) -> int | None:
    """The status of an HTTP answer (`HTTP/1.1 408 ...` or http.server's `HTTP/1.0 ...`); None for no answer."""
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.") else None


def post_head(server, length: str, host: str | None = None, kind: str = "application/json") -> str:
    return (f"POST {server.path} HTTP/1.1\nHost: {host or f'127.0.0.1:{server.port}'}\nContent-Type: {kind}\n"
            f"Content-Length: {length}\nConnection: close\n\n")


# uvicorn's parser (h11) refuses a 5,000-digit length itself, with its own 400; ours says 413
@pytest.mark.parametrize("length, statuses", [("abc", {400}), ("-1", {400}), (str(10 ** 12), {413}),
                                              ("9" * 5000, {400, 413})])
def test_a_lying_content_length_is_answered_at_once(server, length, statuses):
    got, body, seconds = raw(server, post_head(server, length))
    assert got in statuses and seconds < 2, (body, seconds)


def test_a_body_shorter_than_its_content_length_is_408_after_the_body_timeout(server):
    status, body, seconds = raw(server, post_head(server, "100"), b'{"input"')
    assert status == 408 and 0.9 < seconds < 3, (body, seconds)


def test_a_client_trickling_its_headers_is_shut_out_after_the_header_timeout(server):
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        answer = b""
        for byte in post_head(server, str(len(server.good))).encode():
            try:
                s.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.1)
            if time.monotonic() - began > 4:
                break
        try:
            answer = s.recv(65536)
        except OSError:
            pass
    assert status_of(answer) == 408 and time.monotonic() - began < 3, answer


def test_a_foreign_host_is_refused_and_loopback_names_pass(server):
    status, body, _ = raw(server, post_head(server, str(len(server.good)), host="rebound.example"), server.good)
    assert status == 403 and b"host_not_allowed" in body
    status, body, _ = raw(server, post_head(server, str(len(server.good)), host=f"localhost:{server.port}"), server.good)
    assert status == 200, body


def one_answer(s: socket.socket, interim: bool = False) -> tuple[int, bytes]:
    """Read one answer with a Content-Length off a kept-alive socket: (status, body); with `interim`, a
    "100 Continue" before it (which a client that asked for one may get) is passed over."""
    answer = b""
    while b"\r\n\r\n" not in answer or (interim and answer.startswith(b"HTTP/1.1 100 ")):
        if interim and answer.startswith(b"HTTP/1.1 100 ") and b"\r\n\r\n" in answer:
            answer = answer.partition(b"\r\n\r\n")[2]
            continue
        chunk = s.recv(65536)
        assert chunk, f"the server closed the connection after {answer[:200]!r}"
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = s.recv(65536)
        assert chunk, "the server closed the connection mid-body"
        body += chunk
    return status_of(head), body


def test_a_kept_alive_connection_answers_again_and_its_next_head_has_the_deadline_too(server):
    """A client's next request on the same connection is answered there (a health probe never waits for
    the accepting thread again), and a next head that trickles is shut out like a first one."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        for _ in range(3):
            s.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            status, body = one_answer(s)
            assert status == 200 and b"error" not in body, body
        s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")          # and no more: the head never ends
        began, answer = time.monotonic(), b""
        while chunk := s.recv(65536):
            answer += chunk
    assert status_of(answer) == 408 and time.monotonic() - began < 3, answer


def test_expect_100_continue_is_not_granted_to_a_body_the_door_refuses(server):
    """curl asks `Expect: 100-continue` before a large body: a body over the limit gets 413 at once, never
    "100 Continue" first (which would invite the client to send it); one within the limit is let in."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(post_head(server, str(10 ** 9)).replace("Connection: close\n", "Expect: 100-continue\n")
                  .replace("\n", "\r\n").encode())
        assert status_of(s.recv(65536)) == 413
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(post_head(server, str(len(server.good))).replace("Connection: close\n", "Expect: 100-continue\n")
                  .replace("\n", "\r\n").encode())
        assert status_of(s.recv(65536)) == 100
        s.sendall(server.good)
        assert one_answer(s)[0] == 200
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:     # no body: nothing to grant
        s.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n\r\n".encode())
        assert one_answer(s, interim=True)[0] == 200                # uvicorn grants it anyway: asked, harmless
        s.sendall(post_head(server, str(len(server.good))).replace("\n", "\r\n").encode() + server.good)
        assert one_answer(s)[0] == 200                           # not an unasked "100 Continue" first


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def test_a_500_mb_body_is_413_unread(server):
    before = rss_mb(server.process.pid)
    began, sent = time.monotonic(), 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(post_head(server, str(500 * 2 ** 20)).replace("\n", "\r\n").encode())
        block = b"x" * 2 ** 20
        try:
            while sent < 500 * 2 ** 20:
                s.sendall(block)
                sent += len(block)
        except OSError:                  # the server answered and closed: the rest is never read
            pass
        answer = s.recv(65536)
    assert status_of(answer) == 413, answer[:200]
    assert sent < 100 * 2 ** 20 and time.monotonic() - began < 5
    assert rss_mb(server.process.pid) - before < 20


def test_input_that_nests_deep_or_has_a_5000_digit_number_is_a_4xx_in_the_routes_shape(server):
    field = "prompt" if server.kind == "serve-model" else "input"
    for body in (b'{"%s": ' % field.encode() + b"[" * 100_000 + b"]" * 100_000 + b"}",
                 b'{"%s": ' % field.encode() + b"9" * 5000 + b"}"):
        reply = httpx.post(server.base + server.path, content=body, timeout=30,
                           headers={"content-type": "application/json"})
        assert 400 <= reply.status_code < 500, reply.text
        shape = reply.json()
        assert ("error" in shape) if server.kind == "serve-model" else ("error" in shape["detail"])


def test_a_normal_request_is_on_time_while_300_slow_clients_hold_connections(server):
    def timed() -> float:
        began = time.monotonic()
        assert httpx.post(server.base + server.path, content=server.good, timeout=30,
                          headers={"content-type": "application/json"}).status_code == 200
        return time.monotonic() - began
    usual = sorted(timed() for _ in range(5))[2]
    slow = []
    for _ in range(300):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        s.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n")     # and nothing more: a head that never ends
        slow.append(s)
    try:
        during = sorted(timed() for _ in range(5))[2]
        assert during < usual + 0.1, (usual, during)
        time.sleep(1.5)                                          # the header timeout (1 s) shuts them out
        closed = sum(1 for s in slow if status_of(s.recv(65536)) == 408)
        assert closed == 300
    finally:
        for s in slow:
            s.close()


@pytest.mark.parametrize("kind", KINDS)
def test_past_the_connection_cap_the_next_client_gets_503(kind, tmp_path):
    if kind == "serve-model" and not MODEL.exists():
        pytest.skip("needs build/model/tinyllm.onnx")
    server = start(kind, tmp_path, "--max-connections", "8")
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(8)]
    try:
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as extra:
            extra.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert status_of(extra.recv(65536)) == 503
    finally:
        for s in idle:
            s.close()
    time.sleep(0.3)
    assert httpx.get(server.base + "/health", timeout=10).status_code == 200    # room again once they leave
    assert server.stop()[0] == 0


SLOW_TACTIC = '''
import time

def shout(text: str) -> str:
    """Shout the text back, slowly: a tactic that holds its worker."""
    time.sleep(float(text.split()[0]))
    return text.upper()
'''


@pytest.mark.parametrize("kind", ["serve-uvicorn", "serve-stdlib"])
def test_lllm_serve_runs_tactics_on_its_workers_and_answers_503_past_its_queue(kind, tmp_path):
    """One worker and one place in the queue: of four slow runs at once two are admitted and two refused
    (503, the service's error shape, Retry-After), /health answers at once meanwhile, and the admitted
    runs finish whole; once they are done a run is admitted again."""
    server = TacticServer(tmp_path, "--server", kind.removeprefix("serve-"), "--log-level", "warning",
                          "--workers", "1", "--max-queue", "1", tactic=SLOW_TACTIC)
    server.wait_until_up()
    answers = []

    def call():
        answers.append(httpx.post(server.base + "/run", json={"input": "1.5 slow"}, timeout=60))
    try:
        callers = [threading.Thread(target=call) for _ in range(4)]
        for caller in callers:
            caller.start()
            time.sleep(0.1)
        begin = time.monotonic()
        health = httpx.get(server.base + "/health", timeout=10)
        health_seconds = time.monotonic() - begin
        for caller in callers:
            caller.join()
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [200, 200, 503, 503]
        busy = next(a for a in answers if a.status_code == 503)
        assert busy.headers["retry-after"] == "1" and busy.json()["detail"]["error"]["type"] == "server_busy"
        assert [a.json()["output"] for a in answers if a.status_code == 200] == ["1.5 SLOW"] * 2
        assert health.status_code == 200 and health_seconds < 1.0          # not behind the 1.5 s runs
        assert httpx.post(server.base + "/run", json={"input": "0 again"}, timeout=30).status_code == 200
    finally:
        assert server.stop()[0] == 0
