"""Layer 4 · the tactic service on a socket: a `ProtocolService` behind `http.server` or uvicorn.

Read `protocol_service.py` first: `ProtocolService(tactics).handle(method, path, body)` is a pure
function from a request to `(status, JSON object or event stream)`, tested without sockets. This
module puts it on a socket: `serve(service, host, port)` under the standard library's
`http.server` (CPython, no extra packages), `serve_uvicorn(...)` as the FastAPI app of
`fastapi.py` under uvicorn (the `serve` extra, `pip install 'lllm-learn[serve]'`). Both hand every
request to the same `handle`, so they answer the same routes with the same JSON.
`check_host`, `check_port` and `check_log_level` say what is wrong with where to listen (a
`ValueError` naming the problem); `python -m lllm serve` (lllm/commands/serve.py) uses them.

Usage:

    >>> check_host("127.0.0.1"), check_port("8000"), check_log_level("INFO")
    ('127.0.0.1', 8000, 'info')
    >>> check_host("http://localhost:8000")
    Traceback (most recent call last):
    ...
    ValueError: serve host must be a host name or address, not a URL or path: 'http://localhost:8000'
"""

from __future__ import annotations

import asyncio
import importlib
import ipaddress
import json
import os

__all__ = ["make_server", "serve", "serve_uvicorn", "missing_server_packages", "check_host", "check_port",
           "check_log_level", "check_server", "SERVERS", "INSTALL_SERVE", "LOG_LEVELS"]


# ---- where to listen, how much to log ---------------------------------------------------------------

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


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


# ---- behind http.server (CPython) ---------------------------------------------------------------------

def make_server(app, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning"):
    """`app` is anything with `handle(method, path, body)`: a ProtocolService, or a stand-in in a test."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    verbose = log_level in ("info", "debug", "trace") or bool(os.environ.get("LLLM_SERVE_LOG"))

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method):
            length = int(self.headers.get("Content-Length") or 0)
            status, data = app.handle(method, self.path.split("?")[0], self.rfile.read(length) if length else b"")
            if hasattr(data, "frames"):                 # /stream: an EventStream (lllm/services/streaming.py)
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                self.close_connection = True
                asyncio.run(write_frames(data, self.wfile))
                return
            payload = json.dumps(data).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
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
    return ThreadingHTTPServer((host, port), Handler)


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


def serve(app, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning") -> None:
    server = make_server(app, host, port, log_level)
    print(f"serving on http://{host}:{server.server_address[1]} with http.server (/health, /info, /run, /stream); "
          "Ctrl-C stops it", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:                      # Ctrl-C or SIGTERM: a clean stop, as uvicorn's
        pass
    finally:
        server.server_close()


# ---- under uvicorn (the `serve` extra) ----------------------------------------------------------------

SERVERS = ("auto", "uvicorn", "stdlib")
INSTALL_SERVE = "pip install 'lllm-learn[serve]'"


def check_server(text) -> str:
    if text not in SERVERS:
        raise ValueError(f"serve server must be one of {', '.join(SERVERS)}, got {text!r}")
    return text


def missing_server_packages() -> list[str]:
    """The `serve` extra's packages that do not import here (none when uvicorn and FastAPI do)."""
    missing = []
    for name in ("uvicorn", "fastapi"):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def serve_uvicorn(service, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning") -> None:
    """A ProtocolService as a FastAPI app (protocol_service.create_fastapi_app) under uvicorn."""
    import uvicorn
    from lllm.services.fastapi import create_fastapi_app
    print(f"serving on http://{host}:{port} with uvicorn and FastAPI (/health, /info, /run, /stream); Ctrl-C stops it",
          flush=True)
    uvicorn.run(create_fastapi_app(service), host=host, port=port, log_level=log_level)
