"""Layer 4 · the one HTTP app adapter: a pure handler's route → `create_app` (FastAPI) → `run_app` (uvicorn).

Read `protocol_service.py` and `openai/service.py` first: each service is a pure function from a
request to an answer, `handle(method, path, body) -> (status, JSON or a stream)`, tested without
sockets. Putting one on a socket is the same three steps for both, so they are written once, here:

    where to listen   check_host, check_port, check_log_level: one clear ValueError per mistake
    the app           create_app(title, route): a FastAPI app whose one catch-all route, for every
                      method, is `route(request)`; FastAPI's own /docs and /openapi.json are off,
                      so the app answers exactly what the service's handler answers
    the runner        listen(host, port), then run_app(app, sock, log_level, limits): uvicorn on that
                      socket until Ctrl-C or SIGTERM, with the door's header deadline and
                      connection cap (`door.py`) when `limits` are given

`lllm serve` (the tactic service, `tactic_app.py`), `lllm serve-model` (the OpenAI-compatible
server, `openai/server.py`) and `lllm mcp --http` use them; a house test
(tests/house/test_one_of_each.py) fails on a second FastAPI app or uvicorn runner anywhere else.
FastAPI and uvicorn are imported only when an app is made or run (the `serve` extra); the
standard library's server (`http_server.py`) uses the checks and needs neither.

Usage:

    >>> check_host("127.0.0.1"), check_port("8000"), check_log_level("INFO")
    ('127.0.0.1', 8000, 'info')
    >>> check_host("http://localhost:8000")
    Traceback (most recent call last):
    ...
    ValueError: serve host must be a host name or address, not a URL or path: 'http://localhost:8000'
    >>> check_port(70000)
    Traceback (most recent call last):
    ...
    ValueError: serve port must be an integer between 1 and 65535, got 70000
"""

from __future__ import annotations

import importlib
import ipaddress
import json
import socket
import sys

from lllm.services.door import Limits, raise_open_files, uvicorn_protocol

__all__ = ["LOG_LEVELS", "INSTALL_SERVE", "METHODS", "check_host", "check_port", "check_log_level",
           "missing_server_packages", "create_app", "json_response", "listen", "run_app"]

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
INSTALL_SERVE = "pip install 'lllm-learn[serve]'"
# Every method reaches the handler, so a wrong one is the service's JSON 405, not Starlette's plain-text one.
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


# ---- where to listen, how much to log ---------------------------------------------------------------

def check_host(text) -> str:
    """A host name or address to listen on: `127.0.0.1`, `localhost`, `::1`; not a URL, path or host:port."""
    if not isinstance(text, str) or not text or text != text.strip():
        raise ValueError(f"serve host must be a non-empty name or address without surrounding spaces, got {text!r}")
    if any(ch.isspace() or ch in "/\\" for ch in text):
        raise ValueError(f"serve host must be a host name or address, not a URL or path: {text!r}")
    if ":" in text:
        try:
            ipaddress.IPv6Address(text)
        except ValueError:
            raise ValueError(f"serve host must be a host name or address, not host:port ({text!r}); "
                             "give the port with --port") from None
    return text


def check_port(text) -> int:
    try:
        port = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"serve port must be an integer between 1 and 65535, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise ValueError(f"serve port must be an integer between 1 and 65535, got {port}")
    return port


def check_log_level(text) -> str:
    if not isinstance(text, str) or text.lower() not in LOG_LEVELS:
        raise ValueError(f"serve log level must be one of {', '.join(LOG_LEVELS)}, got {text!r}")
    return text.lower()


def missing_server_packages() -> list[str]:
    """The `serve` extra's packages that do not import here (none when uvicorn and FastAPI do)."""
    missing = []
    for name in ("uvicorn", "fastapi"):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


# ---- the app ------------------------------------------------------------------------------------------

def create_app(title: str, route):
    """A FastAPI app with one route, `/{path:path}` for every method in METHODS: `route(request)`, a
    coroutine taking Starlette's Request and returning a Response. No docs pages, no schema route."""
    try:
        from fastapi import FastAPI, Request
    except ImportError as exc:
        raise ImportError(f"serving over HTTP with FastAPI needs the serve extra: {INSTALL_SERVE} ({exc})") from None
    app = FastAPI(title=title, docs_url=None, redoc_url=None, openapi_url=None)

    async def every_route(request):
        return await route(request)
    every_route.__annotations__["request"] = Request    # a real class: FastAPI reads it to pass the request
    app.api_route("/{path:path}", methods=METHODS, include_in_schema=False)(every_route)
    return app


def json_response(status: int, data, headers: dict | None = None):
    """A JSON answer, as the handlers' `(status, data)` says, with any extra headers."""
    from fastapi.responses import Response
    return Response(json.dumps(data), status_code=status, media_type="application/json", headers=headers)


# ---- the runner ---------------------------------------------------------------------------------------

def listen(host: str, port: int):
    """A listening socket on host:port, so a port that is taken is one clear ValueError before anything starts."""
    # IPPROTO_TCP, not 0: asyncio turns Nagle's algorithm off only on sockets that say they are TCP,
    # and without that every small answer waits ~40 ms for the client's delayed acknowledgement.
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(1024)
    except OSError as error:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sock


def run_app(app, sock, log_level: str = "warning", limits: Limits | None = None) -> None:
    """Serve `app` on the listening socket `sock` under uvicorn until Ctrl-C or SIGTERM (a clean stop).
    With `limits`, uvicorn's HTTP protocol is the door's (a deadline for each request head, a cap on
    open connections; door.py) and the process may hold that many sockets."""
    import uvicorn
    options = {}
    if limits is not None:
        raise_open_files(limits)
        options = {"http": uvicorn_protocol(limits), "timeout_keep_alive": 5}
        # The event loop answers /health while the workers run: let it have the interpreter after 1 ms
        # of theirs, not Python's default 5 ms, or each step of an answer waits behind a worker.
        sys.setswitchinterval(0.001)
    config = uvicorn.Config(app, log_level=check_log_level(log_level), **options)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:                       # Ctrl-C or SIGTERM: a clean stop, as uvicorn.run's
        pass
