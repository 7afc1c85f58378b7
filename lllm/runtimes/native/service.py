"""Layer 4 · the tactic service: a tactic over HTTP, and `python -m lllm serve` on uvicorn or http.server.

Read `tactic.py` first. `TacticApp(tactic).handle(method, path, body)` is a pure function from a
request to `(status, JSON object)`, so it is tested without sockets and could be called directly
in the page; `serve(app, host, port)` puts it, or a `ProtocolService` (protocol_service.py), behind
`http.server` in CPython. TacticApp speaks the native envelope below, with the call session on
request; `lllm serve MODULE:ATTRIBUTE` serves the protocol envelope, which every Tactic speaks.

`lllm serve --server auto` (the default) runs `ProtocolService` as a FastAPI app under uvicorn
when the `serve` extra is installed (`pip install 'lllm-learn[serve]'`), and otherwise says so in
one line on stderr and uses `http.server`; `--server uvicorn` insists (a usage error without the
extra), `--server stdlib` never tries. Both servers hand each request to the same
`ProtocolService.handle`, so they answer the same routes with the same JSON.

Routes:
    GET  /health   200 {"status": "ok", "tactic": name}
    GET  /info     200 the tactic's info(): name, description, input and output JSON schemas
    POST /run      body {"task": ..., "return_session": false}
                   200 {"ok": true, "result": ..., "summary": ... (only with return_session)}
Every error has the same envelope, {"ok": false, "error": {"type": ..., "message": ...}}:
400 bad_request (not JSON, no "task") or invalid_input (the task does not fit input_type),
404 not_found, 405 method_not_allowed, 500 runtime_error (the tactic itself failed).

Usage:

    >>> from lllm.runtimes.native.tactic import Tactic
    >>> class Upper(Tactic):
    ...     name = "upper"
    ...     def call(self, task: str) -> str:
    ...         return task.upper()
    >>> app = TacticApp(Upper())
    >>> app.handle("POST", "/run", b'{"task": "hi"}')
    (200, {'ok': True, 'result': 'HI'})
    >>> app.handle("POST", "/run", b'{"job": "hi"}')
    (400, {'ok': False, 'error': {'type': 'bad_request', 'message': 'the JSON body needs a "task" field'}})
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import signal
import sys

from lllm.protocol.errors import SchemaError
from lllm.runtimes.native.schemas import to_jsonable
from lllm.runtimes.native.tactic import Tactic

__all__ = ["TacticApp", "create_tactic_app", "serve", "serve_uvicorn", "pick_server", "load_factory", "add_cli"]


def _error(status: int, kind: str, message: str) -> tuple[int, dict]:
    return status, {"ok": False, "error": {"type": kind, "message": message}}


# ---- the app: request in, (status, JSON) out ---------------------------------------------------------

class TacticApp:
    def __init__(self, tactic: Tactic):
        if not isinstance(tactic, Tactic):
            raise TypeError(f"TacticApp needs a Tactic, got {type(tactic).__name__}")
        self.tactic = tactic

    # --8<-- [start:handle]
    def handle(self, method: str, path: str, body: bytes = b"") -> tuple[int, dict]:
        routes = {"/health": "GET", "/info": "GET", "/run": "POST"}
        if path not in routes:
            return _error(404, "not_found", f"no route {path} (routes: {sorted(routes)})")
        if method != routes[path]:
            return _error(405, "method_not_allowed", f"{path} takes {routes[path]}, not {method}")
        if path == "/health":
            return 200, {"status": "ok", "tactic": self.tactic.name}
        if path == "/info":
            return 200, self.tactic.info().model_dump(mode="json")
        try:
            request = json.loads(body.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return _error(400, "bad_request", f"the body is not JSON: {exc}")
        if not isinstance(request, dict) or "task" not in request:
            return _error(400, "bad_request", 'the JSON body needs a "task" field')
        try:
            task = self.tactic.validate_input(request["task"])
        except (TypeError, SchemaError) as exc:
            return _error(400, "invalid_input", str(exc))
        try:
            session = self.tactic(task, return_session=True)
        except Exception as exc:
            return _error(500, "runtime_error", f"{type(exc).__name__}: {exc}")
        reply = {"ok": True, "result": to_jsonable(session.delivery)}
        if request.get("return_session"):
            reply["summary"] = session.summary()
        return 200, reply
    # --8<-- [end:handle]


def create_tactic_app(tactic: Tactic) -> TacticApp:
    return TacticApp(tactic)


# ---- behind http.server (CPython) ---------------------------------------------------------------------

def make_server(app, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning"):
    """`app` is anything with `handle(method, path, body)`: a TacticApp or a ProtocolService."""
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


def serve_server(text) -> str:
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


def pick_server(choice: str) -> str:
    """"uvicorn" or "stdlib" for `--server CHOICE`; auto falls back in one line, uvicorn insists."""
    from lllm.cli import UsageError
    if choice == "stdlib":
        return "stdlib"
    missing = missing_server_packages()
    if not missing:
        return "uvicorn"
    names = " and ".join(missing)
    if choice == "uvicorn":
        raise UsageError(f"--server uvicorn needs {names}, which this Python cannot import; {INSTALL_SERVE}")
    print(f"lllm serve: {names} not installed, so serving with the standard library's http.server "
          f"(for uvicorn and FastAPI: {INSTALL_SERVE})", file=sys.stderr, flush=True)
    return "stdlib"


def serve_uvicorn(service, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning") -> None:
    """A ProtocolService as a FastAPI app (protocol_service.create_fastapi_app) under uvicorn."""
    import uvicorn
    from lllm.services.fastapi import create_fastapi_app
    print(f"serving on http://{host}:{port} with uvicorn and FastAPI (/health, /info, /run, /stream); Ctrl-C stops it",
          flush=True)
    uvicorn.run(create_fastapi_app(service), host=host, port=port, log_level=log_level)


def load_factory(spec: str) -> Tactic:
    """`module:name` -> a Tactic: the object itself, a Tactic subclass (built without config) or a factory."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"expected MODULE:FACTORY (e.g. my_app.main:build), got {spec!r}")
    sys.path.insert(0, os.getcwd())
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load {spec!r}: {exc}") from None
    finally:
        sys.path.remove(os.getcwd())
    if isinstance(target, type) and issubclass(target, Tactic):
        target = target()
    elif callable(target) and not isinstance(target, Tactic):
        target = target()
    if not isinstance(target, Tactic):
        raise ValueError(f"{spec!r} gave {type(target).__name__}, not a Tactic")
    return target


# ---- `lllm serve MODULE:ATTRIBUTE` ---------------------------------------------------------------------

def add_cli(subparsers) -> None:
    from lllm.cli import argument_type, serve_host, serve_log_level, serve_port
    from lllm.runtimes.native.entrypoints import check_entrypoint
    p = subparsers.add_parser("serve", help="serve a tactic over HTTP (lllm-core's /health, /info, /run, /stream)",
                              description="Load MODULE:ATTRIBUTE (a tactic, a tactic class, a factory or a function) "
                                          "and serve it over HTTP, speaking the protocol envelope of "
                                          "protocol_service.py: under uvicorn (FastAPI) when the serve extra is "
                                          f"installed ({INSTALL_SERVE}), else with the standard library's http.server.")
    p.add_argument("entrypoint", type=argument_type(check_entrypoint, keep=True), metavar="MODULE:ATTRIBUTE",
                   help="e.g. my_app.tactics:build_tactic or main:build")
    p.add_argument("--host", type=argument_type(serve_host), default="127.0.0.1", help="default 127.0.0.1")
    p.add_argument("--port", type=argument_type(serve_port), default=8000, help="1-65535 (default 8000)")
    p.add_argument("--log-level", type=argument_type(serve_log_level), default="info",
                   help="critical, error, warning, info (default: one line per request), debug or trace")
    p.add_argument("--server", type=argument_type(serve_server), default="auto",
                   help="auto (default: uvicorn if installed, else http.server), uvicorn or stdlib")
    p.set_defaults(run=run_serve)


def run_serve(args) -> int:
    from lllm.cli import UsageError
    from lllm.runtimes.native.inspection import load_for_cli
    from lllm.runtimes.native.protocol_service import ProtocolService
    server = pick_server(args.server)               # before importing the user's module: fail fast
    service = ProtocolService(load_for_cli(args.entrypoint))
    # SIGTERM (a supervisor, Popen.terminate) stops it as Ctrl-C does: uvicorn finishes the requests
    # in flight, http.server closes its socket, and either way the command ends with status 0.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if server == "uvicorn":
        serve_uvicorn(service, args.host, args.port, args.log_level)
    else:
        try:
            serve(service, args.host, args.port, args.log_level)
        except OSError as exc:                      # the port is taken, the host is not ours, ...
            raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    print(f"lllm serve: stopped ({server})", file=sys.stderr, flush=True)
    return 0
