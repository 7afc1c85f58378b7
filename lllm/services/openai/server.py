"""Layer 4 · the OpenAI-compatible service on a socket: its route in the one app, bounded, with CORS for the site's pages.

Read `service.py` first: `OpenAIService.handle` answers every request; this module passes each one
to it (the route of the one FastAPI app, `lllm/services/app.py`, as `tactic_app.py` does for
`lllm serve`), runs it with the one uvicorn runner (`app.run_app`) and adds
what only a server has: the door (`door.py`: body size, timeouts, connection cap, Host, CORS), so
a page of the site can call a model on the reader's machine and no other site can, and a bounded
pool for the model's work:

    GET  /health, /v1/models    answered on the event loop at once: they never wait behind a generation
    POST completions            admitted while fewer than `workers + max_queue` are in hand, else
                                503 (OpenAI's error shape, code server_busy, Retry-After: 1); the model
                                runs on `workers` threads; a client that leaves (streaming or not) sets
                                its request's cancel event and the model stops within a character

CORS: a request from a browser carries its page's `Origin`. An allowed origin gets
`Access-Control-Allow-Origin` on every answer, and a preflight (`OPTIONS` with
`Access-Control-Request-Method`) gets 204 with the methods and headers it asked for, plus
`Access-Control-Allow-Private-Network: true` when it asks for it (Chromium's check before a
public page may reach a loopback address). Any other origin is refused with OpenAI's error shape
(403, code origin_not_allowed), so another site cannot drive the model through the reader's
browser. Requests without an `Origin` (curl, the `openai` package, a ReAct agent) are not
browser pages and are answered. Patterns: `*` alone allows every origin, `https://*.example.org`
any subdomain, `http://127.0.0.1:*` any port (or none).

FastAPI and uvicorn are imported only when an app is made or run (the `serve` extra).
`origin_matcher`, `cors_headers` and `DEFAULT_ORIGINS` live in `door.py` (both servers use them).

Usage:

    >>> allowed = origin_matcher(DEFAULT_ORIGINS)
    >>> allowed("http://127.0.0.1:8000"), allowed("https://lllm.pages.dev"), allowed("https://evil.example")
    (True, True, False)
    >>> allowed("https://3f2a1c.lllm.pages.dev"), allowed("http://localhost")
    (True, True)
"""

from __future__ import annotations

import asyncio
import threading

from lllm.services.app import create_app, json_response, listen, run_app
from lllm.services.door import DEFAULT_ORIGINS, Limits, Pool, cors_headers, guard, origin_matcher
from lllm.services.openai.service import Chunks, OpenAIService, RequestError, error_body

__all__ = ["DEFAULT_ORIGINS", "origin_matcher", "cors_headers", "Pool", "create_openai_app", "run"]


def openai_shape(status: int, code: str, message: str) -> dict:
    """A refusal at the door in OpenAI's error shape."""
    return error_body(RequestError(status, message, code=code, kind="server_error" if status >= 500 else
                                   "invalid_request_error"))


# ---- the app --------------------------------------------------------------------------------------------

def create_openai_app(service: OpenAIService, origins=DEFAULT_ORIGINS, limits: Limits = Limits(),
                      pool: Pool | None = None, listening_on: str = "127.0.0.1"):
    """An ASGI app: the door, then the one app (app.create_app) whose route hands every request to `service.handle`."""
    from fastapi.responses import StreamingResponse
    pool = pool or Pool()
    service.start = pool.work.submit                    # a stream's model work runs on the pool too

    async def every_route(request):
        method, path = request.method, request.scope["path"]
        if method != "POST":                            # no model here: answered at once, never queued
            return json_response(*service.handle(method, path))
        if not pool.admit():
            busy = RequestError(503, f"the server is busy ({pool.workers} writing, {pool.max_queue} waiting); "
                                     "try again shortly", code="server_busy", kind="server_error")
            return json_response(503, error_body(busy), {"retry-after": "1"})
        cancel, streaming = threading.Event(), False
        try:
            body = await request.body()
            work = asyncio.wrap_future(pool.work.submit(service.handle, method, path, body, cancel))
            status, data = await until_done_or_gone(work, request, cancel)
            if isinstance(data, Chunks):
                streaming = True
                return StreamingResponse(sent_frames(data, pool), media_type="text/event-stream",
                                         headers={"cache-control": "no-cache"})
            return json_response(status, data)
        finally:
            if not streaming:
                pool.release()

    return guard(create_app("lllm serve-model", every_route), openai_shape, limits, origins, listening_on)


async def until_done_or_gone(work, request, cancel: threading.Event):
    """`work`'s result; if the client leaves first, `cancel` is set and the model stops."""
    async def gone():
        while (await request.receive())["type"] != "http.disconnect":
            pass
    watcher = asyncio.ensure_future(gone())
    try:
        await asyncio.wait({work, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
    if not work.done():
        cancel.set()
    return await work


async def sent_frames(chunks: Chunks, pool: Pool):
    """The stream's frames, each read on a reader thread; when the client leaves (Starlette cancels
    this generator) the model is told to stop and the frames are closed once the read in flight ends."""
    frames, reading = chunks.frames(), None
    try:
        while True:
            reading = pool.readers.submit(next, frames, None)
            frame = await asyncio.wrap_future(reading)
            if frame is None:
                return
            yield frame
    finally:
        chunks.cancel.set()
        pool.release()
        if reading is not None:
            reading.add_done_callback(lambda _: frames.close())


# ---- on a socket ------------------------------------------------------------------------------------------

def run(service: OpenAIService, host: str, port: int, origins=DEFAULT_ORIGINS, log_level: str = "info",
        limits: Limits = Limits(), workers: int = 2, max_queue: int = 32) -> None:
    """Serve until Ctrl-C or SIGTERM; ValueError if host:port cannot be listened on."""
    sock = listen(host, port)
    names = ", ".join(service.models)
    print(f"serving {names} on http://{host}:{port}/v1 (OpenAI-compatible: /v1/models, /v1/chat/completions, "
          f"/v1/completions; {workers} writing, {max_queue} waiting, bodies up to {limits.max_body} bytes); "
          "Ctrl-C stops it", flush=True)
    run_app(create_openai_app(service, origins, limits, Pool(workers, max_queue), host), sock, log_level, limits)
