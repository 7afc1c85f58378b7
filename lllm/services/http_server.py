"""Layer 4 · the tactic service on a socket: a `ProtocolService` behind `http.server` or uvicorn.

Read `protocol_service.py` first: `ProtocolService(tactics).handle(method, path, body)` is a pure
function from a request to `(status, JSON object or event stream)`, tested without sockets. This
module puts it on a socket: `serve(service, host, port)` under the standard library's
`http.server` (CPython, no extra packages); `serve_uvicorn(...)` in `tactic_app.py` puts it in the
one FastAPI app under the one uvicorn runner (`app.py`; the `serve` extra, `pip install
'lllm-learn[serve]'`). Both hand every request to the same `handle`, so they answer the same
routes with the same JSON, and both stand behind the same door (`door.py`): Host and Origin checked, JSON bodies only, 413 for a body over
the limit unread, 400 for a Content-Length that lies, 408 for a client too slow, 503 past the
connection cap; under `http.server` each refusal is still an answer, never a dropped connection
or a thread held for a body that never comes, and a connection is kept alive between requests
(HTTP/1.1), each request's head with its own deadline.
`check_server` says which server `python -m lllm serve --server` names (where to listen is checked
in `app.py`, once for every server).

Usage:

    >>> check_server("stdlib"), protocol_shape(413, "body_too_large", "too big")["detail"]["error"]["type"]
    ('stdlib', 'body_too_large')
    >>> check_server("gunicorn")
    Traceback (most recent call last):
    ...
    ValueError: serve server must be one of auto, uvicorn, stdlib, got 'gunicorn'
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time

from lllm.services.door import (DEFAULT_ORIGINS, Limits, Pool, Refusal, check_request, needs_work, origin_matcher,
                                raise_open_files, raw_answer)
from lllm.services.protocol_service import error

__all__ = ["make_server", "serve", "check_server", "protocol_shape", "SERVERS"]


# ---- behind http.server (CPython) ---------------------------------------------------------------------

def protocol_shape(status: int, code: str, message: str) -> dict:
    """A refusal at the door in the tactic service's error shape (protocol_service.error)."""
    return error(status, code, message)[1]


KEEP_ALIVE = 5.0          # seconds a kept-alive connection may wait for its next request (uvicorn's default too)


class Deadlines:
    """The request heads' deadlines, all watched by one thread (a `threading.Timer` each would start a
    thread for every request): `arm(handler, seconds)`, `disarm(handler)`; a head still unread when
    its time is up gets `handler.too_slow()`, within a tenth of a second."""

    TICK = 0.1

    def __init__(self):
        self.lock, self.due = threading.Lock(), {}
        threading.Thread(target=self.watch, name="lllm-head-deadlines", daemon=True).start()

    def arm(self, handler, seconds: float) -> None:
        with self.lock:
            self.due[handler] = time.monotonic() + seconds

    def disarm(self, handler) -> None:
        with self.lock:
            self.due.pop(handler, None)

    def watch(self) -> None:
        while True:
            time.sleep(self.TICK)
            now = time.monotonic()
            with self.lock:
                late = [handler for handler, due in self.due.items() if due <= now]
                for handler in late:
                    del self.due[handler]
            for handler in late:
                handler.too_slow()


def make_server(app, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning",
                limits: Limits = Limits(), origins=DEFAULT_ORIGINS, pool: Pool | None = None):
    """`app` is anything with `handle(method, path, body)`: a ProtocolService, or a stand-in in a test.
    The door (lllm/services/door.py) stands in front: every refusal is an answer, never a dropped connection.
    A request that runs tactic code runs on `pool`'s workers; past its queue it gets 503 with Retry-After."""
    pool = pool or Pool()
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    verbose = log_level in ("info", "debug", "trace") or bool(os.environ.get("LLLM_SERVE_LOG"))
    allowed = origin_matcher(tuple(origins))
    deadlines = Deadlines()

    class Handler(BaseHTTPRequestHandler):
        # Keep-alive: a client's next request (a health probe's, the openai package's) comes on the same
        # connection and thread, not through the accepting thread again behind a crowd's new connections.
        protocol_version = "HTTP/1.1"
        # The head and the body are two writes: without TCP_NODELAY the body waits for the client's delayed
        # acknowledgement of the head (40 ms on Linux), which a closed connection used to flush.
        disable_nagle_algorithm = True
        # No read or write waits longer than this; later than the head's deadline, which answers 408 first.
        timeout = limits.header_timeout + 5

        def setup(self):
            super().setup()
            self.head_lock, self.head_done, self.kept = threading.Lock(), True, False

        def handle_one_request(self):
            if self.kept:                      # a kept-alive connection: quietly closed if no next request begins
                self.connection.settimeout(KEEP_ALIVE)
                try:
                    began = self.rfile.peek(1)
                except OSError:                # TimeoutError included
                    began = b""
                if not began:
                    self.close_connection = True
                    return
                self.connection.settimeout(self.timeout)
            # A client that trickles its head a byte at a time beats a per-read timeout: a deadline for the whole head.
            with self.head_lock:
                self.head_done, self.expect_continue = False, False
            deadlines.arm(self, limits.header_timeout)
            try:
                super().handle_one_request()
            finally:
                deadlines.disarm(self)
                self.kept = True

        def too_slow(self):                    # on the deadlines' thread
            with self.head_lock:
                if self.head_done:
                    return
                self.head_done = True
            try:
                self.connection.sendall(raw_answer(408, "Request Timeout", "the request head did not arrive in time"))
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def parse_request(self):                   # reads the headers, then the deadline is off
            parsed = super().parse_request()
            with self.head_lock:
                if self.head_done:                 # the deadline answered 408 meanwhile
                    self.close_connection = True
                    return False
                self.head_done = True
            deadlines.disarm(self)
            return parsed

        def handle_expect_100(self):               # "100 Continue" only once the door let the body in (read_body)
            self.expect_continue = True
            return True

        def finish(self):
            deadlines.disarm(self)
            super().finish()

        def _answer(self, method):
            headers, extra = {k.lower(): v for k, v in self.headers.items()}, {}
            try:
                extra, length = check_request(method, headers, limits, allowed, host, json_only=True)
                if "transfer-encoding" in headers:
                    raise Refusal(411, "length_required", "send the body with a Content-Length; this server does "
                                                          "not read chunked bodies")
                body = self.read_body(length)
            except Refusal as refused:
                refused.headers = {**extra, **refused.headers}
                return self.refuse(refused)
            path = self.path.split("?")[0]
            if not needs_work(method, path):             # no tactic runs: answered at once
                return self.send_json(*app.handle(method, path, body), extra)
            if not pool.admit():
                refused = pool.busy()
                refused.headers = {**extra, **refused.headers}
                return self.refuse(refused)
            try:
                try:
                    status, data = pool.run(app, method, path, body).result()
                except Exception as exc:                # a fault of ours (a worker lost): still the service's JSON
                    status, data = error(500, type(exc).__name__, str(exc)[:500])
                if hasattr(data, "frames"):             # /stream: an EventStream (streaming.py) or a RemoteStream (workers.py)
                    self.send_response(status)
                    self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_extra(extra)
                    self.end_headers()
                    self.close_connection = True
                    asyncio.run(write_frames(data, self.wfile))
                    return
                self.send_json(status, data, extra)
            finally:
                pool.release()

        def read_body(self, length: int) -> bytes:
            """`length` bytes within the body timeout; Refusal if they do not come."""
            chunks, left, deadline = [], length, time.monotonic() + limits.body_timeout
            if length and self.expect_continue:
                self.expect_continue = False
                self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            while left:
                self.connection.settimeout(max(0.001, deadline - time.monotonic()))
                try:
                    chunk = self.rfile.read1(min(left, 1 << 16))
                except TimeoutError:
                    raise Refusal(408, "body_timeout", f"the body did not arrive within {limits.body_timeout:g} s") from None
                if not chunk:
                    raise Refusal(400, "body_incomplete", f"the body ended after {length - left} of {length} bytes")
                chunks.append(chunk)
                left -= len(chunk)
            self.connection.settimeout(self.timeout)
            return b"".join(chunks)

        def refuse(self, refused: Refusal) -> None:
            self.close_connection = True                # the body may be unread: no second request on this connection
            try:
                if refused.status == 204:               # a preflight that may go on
                    self.send_response(204)
                    self.send_extra(refused.headers)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_json(refused.status, protocol_shape(refused.status, refused.code, refused.message),
                               {**refused.headers, "connection": "close"})
            except OSError:                             # the client left first
                pass

        def send_extra(self, extra: dict) -> None:
            for name, value in extra.items():
                self.send_header(name, value)

        def send_json(self, status: int, data, extra: dict) -> None:
            payload = json.dumps(data).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.send_extra(extra)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            self._answer("GET")

        def do_POST(self):
            self._answer("POST")

        def do_PUT(self):                      # the other methods reach handle too: a JSON 405, not a 501 page
            self._answer("PUT")

        def do_PATCH(self):
            self._answer("PATCH")

        def do_DELETE(self):
            self._answer("DELETE")

        def do_OPTIONS(self):
            self._answer("OPTIONS")

        def log_message(self, format, *args):   # quiet below --log-level info
            if verbose:
                super().log_message(format, *args)

    class Server(ThreadingHTTPServer):
        """One thread per connection, at most `limits.max_connections` of them; the next gets 503."""
        request_queue_size = 1024              # the listen backlog (5 by default: a burst of clients waits for SYN retries)

        def __init__(self, *args):
            super().__init__(*args)
            self.open, self.count_lock = 0, threading.Lock()

        def process_request(self, request, client_address):
            with self.count_lock:
                full = self.open >= limits.max_connections
                self.open += 0 if full else 1
            if not full:
                return super().process_request(request, client_address)
            try:
                request.sendall(raw_answer(503, "Service Unavailable", "too many open connections; try again"))
            except OSError:
                pass
            self.shutdown_request(request)

        def process_request_thread(self, request, client_address):
            try:
                super().process_request_thread(request, client_address)
            finally:
                with self.count_lock:
                    self.open -= 1
    return Server((host, port), Handler)


async def write_frames(stream, wfile) -> None:
    """Write each SSE frame as it comes; a client that left (a broken pipe) closes the tactic's stream."""
    frames = stream.frames()
    try:
        async for frame in frames:
            wfile.write(frame)
            wfile.flush()
    except OSError:
        pass
    finally:
        await frames.aclose()


def serve(app, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning", limits: Limits = Limits(),
          origins=DEFAULT_ORIGINS, pool: Pool | None = None) -> None:
    raise_open_files(limits)
    sys.setswitchinterval(0.001)    # a thread answering /health gets the interpreter while the workers run tactics
    server = make_server(app, host, port, log_level, limits, origins, pool)
    print(f"serving on http://{host}:{server.server_address[1]} with http.server (/health, /info, /run, /stream); "
          "Ctrl-C stops it", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:                      # Ctrl-C or SIGTERM: a clean stop, as uvicorn's
        pass
    finally:
        server.server_close()


# ---- which server -------------------------------------------------------------------------------------

SERVERS = ("auto", "uvicorn", "stdlib")


def check_server(text) -> str:
    if text not in SERVERS:
        raise ValueError(f"serve server must be one of {', '.join(SERVERS)}, got {text!r}")
    return text
