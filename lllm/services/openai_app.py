"""Layer 4 · the OpenAI-compatible service on a socket: a FastAPI app under uvicorn, with CORS for the site's pages.

Read `openai_compat.py` first: `OpenAIService.handle` answers every request; this module passes
each one to it (one catch-all route, as `lllm/services/fastapi.py` does for `lllm serve`) and adds
what only a server has: CORS, so a page of the site can call a model on the reader's machine.

CORS: a request from a browser carries its page's `Origin`. An allowed origin gets
`Access-Control-Allow-Origin` on every answer, and a preflight (`OPTIONS` with
`Access-Control-Request-Method`) gets 204 with the methods and headers it asked for, plus
`Access-Control-Allow-Private-Network: true` when it asks for it (Chromium's check before a
public page may reach a loopback address). Any other origin is refused with OpenAI's error shape
(403, code origin_not_allowed), so another site cannot drive the model through the reader's
browser. Requests without an `Origin` (curl, the `openai` package, a ReAct agent) are not
browser pages and are answered. Patterns: `*` alone allows every origin, `https://*.example.org`
any subdomain, `http://127.0.0.1:*` any port (or none).

FastAPI and uvicorn are imported inside `create_app` and `run`, only when called (the `serve` extra).

Usage:

    >>> allowed = origin_matcher(DEFAULT_ORIGINS)
    >>> allowed("http://127.0.0.1:8000"), allowed("https://lllm.pages.dev"), allowed("https://evil.example")
    (True, True, False)
    >>> allowed("https://3f2a1c.lllm.pages.dev"), allowed("http://localhost")
    (True, True)
"""

from __future__ import annotations

import asyncio
import json
import re

from lllm.services.openai_compat import OpenAIService, RequestError, error_body

__all__ = ["DEFAULT_ORIGINS", "origin_matcher", "cors_headers", "create_app", "listen", "run"]

# The site as deployed (and its preview deployments), and any page served from this machine.
DEFAULT_ORIGINS = ("https://lllm.pages.dev", "https://*.lllm.pages.dev",
                   "http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")
METHODS = ["GET", "POST", "OPTIONS", "HEAD", "PUT", "PATCH", "DELETE"]


def origin_matcher(patterns):
    """A function telling whether an `Origin` header matches one of `patterns` (see above)."""
    if "*" in patterns:
        return lambda origin: True
    regexes = []
    for pattern in patterns:
        port = pattern.endswith(":*")
        text = re.escape(pattern[:-2] if port else pattern).replace(r"\*", "[A-Za-z0-9-]+")
        regexes.append(re.compile(text + ("(:[0-9]+)?" if port else "")))
    return lambda origin: any(r.fullmatch(origin) for r in regexes)


def cors_headers(origin: str | None, allowed, headers: dict) -> tuple[dict, bool]:
    """(headers to add, whether the request may go on) for a request with these headers."""
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


def create_app(service: OpenAIService, origins=DEFAULT_ORIGINS):
    """A FastAPI app whose one route hands every request to `service.handle`, with CORS for `origins`."""
    from fastapi import FastAPI, Request
    from fastapi.responses import Response, StreamingResponse
    allowed = origin_matcher(tuple(origins))
    app = FastAPI(title="lllm serve-model", docs_url=None, redoc_url=None, openapi_url=None)

    def answer(status: int, data, extra: dict):
        if hasattr(data, "frames"):
            return StreamingResponse(data.frames(), media_type="text/event-stream",
                                     headers={"cache-control": "no-cache", **extra})
        return Response(json.dumps(data), status_code=status, media_type="application/json", headers=extra)

    async def every_route(request):
        extra, ok = cors_headers(request.headers.get("origin"), allowed, request.headers)
        if not ok:
            refused = RequestError(403, f"origin {request.headers['origin']} is not allowed to call this server; "
                                        "start it with --allow-origin naming it", code="origin_not_allowed")
            return answer(403, error_body(refused), {})
        if request.method == "OPTIONS" and "access-control-allow-methods" in extra:
            return Response(status_code=204, headers=extra)
        body = await request.body()
        # The model runs in a worker thread: the server keeps answering other requests meanwhile.
        status, data = await asyncio.to_thread(service.handle, request.method, request.scope["path"], body)
        return answer(status, data, extra)

    every_route.__annotations__["request"] = Request    # a real class: FastAPI reads it to pass the request
    app.api_route("/{path:path}", methods=METHODS, include_in_schema=False)(every_route)
    return app


def listen(host: str, port: int):
    """A listening socket on host:port, so a port that is taken is one clear error before anything starts."""
    import socket
    # IPPROTO_TCP, not 0: asyncio turns Nagle's algorithm off only on sockets that say they are TCP,
    # and without that every small answer waits ~40 ms for the client's delayed acknowledgement.
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen()
    except OSError as error:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sock


def run(service: OpenAIService, host: str, port: int, origins=DEFAULT_ORIGINS, log_level: str = "info") -> None:
    """Serve until Ctrl-C or SIGTERM; ValueError if host:port cannot be listened on."""
    import uvicorn
    sock = listen(host, port)
    names = ", ".join(service.models)
    print(f"serving {names} on http://{host}:{port}/v1 (OpenAI-compatible: /v1/models, /v1/chat/completions, "
          "/v1/completions); Ctrl-C stops it", flush=True)
    config = uvicorn.Config(create_app(service, origins), log_level=log_level)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:                       # Ctrl-C or SIGTERM: a clean stop, as uvicorn.run's
        pass
