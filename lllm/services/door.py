"""Layer 4 · limits at the door: what both servers check before a request reaches its handler, and how.

Read `protocol_service.py` and `openai/service.py` first: their `handle` functions answer requests
that got in. This module decides which get in, the same way for `lllm serve` (under uvicorn or
`http.server`) and `lllm serve-model` (under uvicorn), before a byte of the body is read:

    Host      when the server listens on loopback, the Host header must name loopback
              (localhost, 127.0.0.1, ::1): a page on another site that renamed itself to
              127.0.0.1 (DNS rebinding) is refused, 403 host_not_allowed
    Origin    a browser page's origin must match --allow-origin (see `origin_matcher`), else 403
              origin_not_allowed; an allowed one gets CORS headers, its preflight 204. Requests
              without an Origin (curl, the openai package, agents) are not pages: they pass
    Content-Type   with `json_only` (lllm serve), a POST with a body must say application/json,
              else 415: a page cannot send JSON cross-site without a preflight, so this keeps
              every cross-site POST behind the Origin check
    Content-Length not a number, negative, or over `Limits.max_body`: 400 bad_content_length or
              413 body_too_large, answered without reading the body
    time      the request line and headers must arrive within `header_timeout` seconds, the body
              within `body_timeout`: 408, connection closed
    connections  past `max_connections` open at once, the next gets 503 and is closed

`Refusal` carries the status, code and message; each server renders it in its own error shape.
`guard(app, ...)` applies the checks to an ASGI app (the uvicorn path); `uvicorn_protocol(limits)`
adds the header timeout and the connection cap to uvicorn's HTTP protocol; the `http.server`
path calls `check_request` and `body_length` from its handler (`http_server.py`).

Usage:

    >>> body_length("12", Limits(max_body=100)), body_length(None, Limits())
    (12, 0)
    >>> body_length("-1", Limits()).status
    Traceback (most recent call last):
    ...
    lllm.services.door.Refusal: 400 bad_content_length: Content-Length must be a whole number of bytes, got '-1'
    >>> host_allowed("127.0.0.1:8000", "127.0.0.1"), host_allowed("evil.example:8000", "127.0.0.1")
    (True, False)
    >>> allowed = origin_matcher(DEFAULT_ORIGINS)
    >>> allowed("http://127.0.0.1:8000"), allowed("https://lllm.pages.dev"), allowed("https://evil.example")
    (True, True, False)
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import re
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

__all__ = ["Limits", "Refusal", "DEFAULT_ORIGINS", "origin_matcher", "cors_headers", "host_allowed", "body_length",
           "check_request", "guard", "uvicorn_protocol", "raw_answer", "raise_open_files"]

# The site as deployed (and its preview deployments), and any page served from this machine.
DEFAULT_ORIGINS = ("https://lllm.pages.dev", "https://*.lllm.pages.dev",
                   "http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """How much a server takes from one client. The defaults fit a learner's laptop and a small team."""

    max_body: int = 1 * MIB          # bytes; a 100,000-character prompt fits even with every character escaped as \uXXXX
    header_timeout: float = 10.0     # seconds for the request line and headers (a one-byte-a-second client is shut out)
    body_timeout: float = 30.0       # seconds for the body once the headers are in
    max_connections: int = 512       # open at once; each costs a file descriptor (and a thread under http.server)


WORK_NICE = 10        # added to each work thread's nice value: a lower CPU priority than the thread answering /health


def lower_priority() -> None:
    """Give the calling thread a lower CPU priority (Linux, where each thread has its own nice value), so
    the event loop answering /health is scheduled before it when the cores are busy; elsewhere, nothing."""
    if sys.platform == "linux":
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + WORK_NICE)
        except OSError:
            pass


class Pool:
    """`workers` threads for the work behind the door, and room for `max_queue` more requests waiting for
    one; past that a request is refused (503, `busy()`), so a crowd never piles up threads or memory.
    The work threads run at a lower CPU priority (`lower_priority`)."""

    def __init__(self, workers: int = 2, max_queue: int = 32):
        self.workers, self.max_queue, self.admitted, self.lock = workers, max_queue, 0, threading.Lock()
        self.work = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lllm-work", initializer=lower_priority)
        # One reader per admitted stream, blocked on its next piece; never more than admitted.
        self.readers = ThreadPoolExecutor(max_workers=workers + max_queue, thread_name_prefix="lllm-stream")

    def admit(self) -> bool:
        with self.lock:
            if self.admitted >= self.workers + self.max_queue:
                return False
            self.admitted += 1
            return True

    def release(self) -> None:
        with self.lock:
            self.admitted -= 1

    def run(self, service, method: str, path: str, body: bytes):
        """`service.handle(method, path, body)` on a worker thread: a Future of (status, data).
        `lllm serve` runs its tactics in processes instead (lllm/services/workers.py, `ProcessPool`)."""
        return self.work.submit(service.handle, method, path, body)

    def close(self) -> None:
        self.work.shutdown(wait=False)
        self.readers.shutdown(wait=False)

    def busy(self) -> "Refusal":
        return Refusal(503, "server_busy", f"the server is busy ({self.workers} working, {self.max_queue} waiting); "
                                           "try again shortly", {"retry-after": "1"})


def needs_work(method: str, path: str) -> bool:
    """Whether a request of `lllm serve` runs tactic code (and so goes through the pool): all but its
    health, its list of tactics and their descriptions, which are answered at once."""
    return not (method in ("GET", "HEAD") and (path in ("/health", "/tactics", "/info") or
                                               (path.startswith("/tactics/") and path.endswith("/info"))))


class Refusal(Exception):
    """A request refused at the door: its HTTP status, a short code and a sentence."""

    def __init__(self, status: int, code: str, message: str, headers: dict | None = None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


# ---- the checks, as plain functions ---------------------------------------------------------------

def origin_matcher(patterns):
    """A function telling whether an `Origin` header matches one of `patterns`: `*` alone allows every
    origin, `https://*.example.org` any subdomain, `http://127.0.0.1:*` any port (or none)."""
    if "*" in patterns:
        return lambda origin: True
    regexes = []
    for pattern in patterns:
        port = pattern.endswith(":*")
        text = re.escape(pattern[:-2] if port else pattern).replace(r"\*", "[A-Za-z0-9-]+")
        regexes.append(re.compile(text + ("(:[0-9]+)?" if port else "")))
    return lambda origin: any(r.fullmatch(origin) for r in regexes)


def cors_headers(origin: str | None, allowed, headers: dict) -> tuple[dict, bool]:
    """(headers to add, whether the request may go on) for a request with these (lower-case) headers."""
    if origin is None:
        return {}, True
    if not allowed(origin):
        return {}, False
    added = {"access-control-allow-origin": origin, "vary": "Origin"}
    if headers.get("access-control-request-method"):                # a preflight
        added["access-control-allow-methods"] = "GET, POST, OPTIONS"
        added["access-control-allow-headers"] = headers.get("access-control-request-headers") or "content-type"
        added["access-control-max-age"] = "600"
        if headers.get("access-control-request-private-network") == "true":
            added["access-control-allow-private-network"] = "true"
    return added, True


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_allowed(header: str | None, listening_on: str) -> bool:
    """Whether a `Host` header may reach a server listening on `listening_on` (only loopback is checked)."""
    if header is None or not is_loopback(listening_on):
        return True                                 # HTTP/1.0 without Host is no browser; other hosts are the operator's call
    name = header.rsplit(":", 1)[0] if not header.endswith("]") else header
    if header.startswith("[") and "]" in header:
        name = header[1:header.index("]")]
    return is_loopback(name.lower())


def body_length(value: str | None, limits: Limits) -> int:
    """The body's size from `Content-Length`: 0 without one; Refusal for one that lies or is too big."""
    if value is None:
        return 0
    text = value.strip()
    if not text.isdigit() or not text.isascii():
        raise Refusal(400, "bad_content_length", f"Content-Length must be a whole number of bytes, got {value[:40]!r}")
    if len(text) > 18 or int(text) > limits.max_body:   # 18 digits: no 5,000-digit int is ever built
        raise Refusal(413, "body_too_large", f"the body is {text[:20]}{'...' if len(text) > 20 else ''} bytes; "
                                             f"this server takes at most {limits.max_body}")
    return int(text)


def check_request(method: str, headers: dict, limits: Limits, allowed, listening_on: str,
                  json_only: bool = False) -> tuple[dict, int]:
    """(CORS headers to add, body length) for a request that may come in; Refusal for one that may not.
    `headers` are lower-case names; `allowed` is an `origin_matcher`."""
    if not host_allowed(headers.get("host"), listening_on):
        raise Refusal(403, "host_not_allowed", f"Host {headers['host'][:100]!r} is not a name of this machine; "
                                               "a server on loopback answers localhost, 127.0.0.1 and [::1] only")
    extra, ok = cors_headers(headers.get("origin"), allowed, headers)
    if not ok:
        raise Refusal(403, "origin_not_allowed", f"origin {headers['origin'][:200]} is not allowed to call this server; "
                                                 "start it with --allow-origin naming it")
    if method == "OPTIONS" and "access-control-allow-methods" in extra:
        raise Refusal(204, "preflight", "", extra)              # a preflight that may go on: answered here
    try:
        if "transfer-encoding" in headers and "content-length" not in headers:
            length = 0                               # chunked: counted while it is read (guard) or refused (http.server)
        else:
            length = body_length(headers.get("content-length"), limits)
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if json_only and method == "POST" and (length or "content-type" in headers) and kind != "application/json":
            raise Refusal(415, "unsupported_media_type", f"a POST body must be application/json, got {kind or 'none'!r}")
    except Refusal as refused:                       # an allowed page may read why it was refused
        refused.headers.update(extra)
        raise
    return extra, length


# ---- the checks around an ASGI app (uvicorn) ------------------------------------------------------------

def guard(app, shape, limits: Limits = Limits(), origins=DEFAULT_ORIGINS, listening_on: str = "127.0.0.1",
          json_only: bool = False):
    """`app` behind the door: refusals answered in `shape(status, code, message) -> dict` (the route's
    error shape), the body read here (bounded in size and time) and replayed to the app."""
    allowed = origin_matcher(tuple(origins))

    async def door(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        extra = {}
        try:
            extra, _ = check_request(scope["method"], headers, limits, allowed, listening_on, json_only)
            body = await read_body(receive, limits)
        except Refusal as refused:
            refused.headers = {**extra, **refused.headers}
            return await send_refusal(send, refused, shape)

        async def replay():                          # the body once, then the client's own messages (a disconnect)
            nonlocal body
            if body is None:
                return await receive()
            message, body = {"type": "http.request", "body": body, "more_body": False}, None
            return message

        async def with_cors(message):
            if message["type"] == "http.response.start" and extra:
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k.encode(), v.encode()) for k, v in extra.items())]}
            await send(message)
        await app(scope, replay, with_cors)
    return door


async def read_body(receive, limits: Limits) -> bytes:
    """The whole body, refused past `max_body` bytes (chunked bodies are counted) or `body_timeout` seconds."""
    chunks, size = [], 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limits.body_timeout
    while True:
        try:
            message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
        except TimeoutError:
            raise Refusal(408, "body_timeout", f"the body did not arrive within {limits.body_timeout:g} s") from None
        if message["type"] == "http.disconnect":
            raise Refusal(400, "client_disconnected", "the client left before sending its body")
        size += len(message.get("body", b""))
        if size > limits.max_body:
            raise Refusal(413, "body_too_large", f"the body is over {limits.max_body} bytes, this server's limit")
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def send_refusal(send, refused: Refusal, shape) -> None:
    payload = b"" if refused.status == 204 else json.dumps(shape(refused.status, refused.code, refused.message)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
               *((k.encode(), v.encode()) for k, v in refused.headers.items())]
    if refused.status != 204:
        headers.append((b"connection", b"close"))   # the body was not read: this connection cannot carry another request
    await send({"type": "http.response.start", "status": refused.status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


# ---- the header timeout and the connection cap, in uvicorn's own HTTP protocol -----------------------------

def raw_answer(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": {"message": message, "type": "server_error", "code": reason.lower().replace(" ", "_")}})
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            f"connection: close\r\nretry-after: 1\r\n\r\n{body}").encode()


def uvicorn_protocol(limits: Limits):
    """uvicorn's h11 protocol class with a deadline for the headers and a cap on open connections."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DoorProtocol(H11Protocol):
        def connection_made(self, transport):
            super().connection_made(transport)
            self.head_timer = None
            if len(self.connections) > limits.max_connections:
                transport.write(raw_answer(503, "Service Unavailable", "too many open connections; try again"))
                transport.close()
                return
            self.head_timer = self.loop.call_later(limits.header_timeout, self.too_slow)

        def data_received(self, data):
            super().data_received(data)
            if self.head_timer is not None and self.in_request():     # a whole head has arrived
                self.head_timer.cancel()

        def on_response_complete(self):            # a kept-alive connection: the next head has its deadline too
            super().on_response_complete()
            if not self.transport.is_closing() and not self.in_request():
                self.head_timer = self.loop.call_later(limits.header_timeout, self.too_slow)

        def connection_lost(self, exc):
            if self.head_timer is not None:
                self.head_timer.cancel()
            super().connection_lost(exc)

        def in_request(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def too_slow(self):
            if not self.transport.is_closing() and not self.in_request():
                self.transport.write(raw_answer(408, "Request Timeout",
                                                f"the request head did not arrive within {limits.header_timeout:g} s"))
                self.transport.close()
    return DoorProtocol


def raise_open_files(limits: Limits) -> None:
    """Let the process hold `max_connections` sockets (the soft file limit is often 1024 or less)."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = limits.max_connections + 128
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    except (ImportError, ValueError, OSError):      # not on this platform, or not allowed: the cap still holds
        pass
