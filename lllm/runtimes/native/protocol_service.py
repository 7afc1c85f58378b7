"""Layer 4 · the protocol service: protocol tactics behind lllm-core's HTTP routes, as an ASGI app.

Read `lllm/protocol/tactic.py` and `service.py` first. `service.py`'s TacticApp speaks the native
envelope (`{"task": ...}` in, a call session out); this service speaks the protocol one, which any
`Tactic` understands and which `RemoteTactic` (`composition/remote.py`) and a generated project's
client.py call.

`ProtocolService(tactics).handle(method, path, body)` is a pure function from a request to
`(status, JSON object)`, and with `stream` (the same for /stream, whose answer is an iterator of
SSE text) the only place a route is matched or a request checked. Three servers put it on the
wire, each a few lines that pass the method, path and body to `handle`:
`create_fastapi_app` (FastAPI, for `lllm serve` under uvicorn: the `serve` extra,
`pip install 'lllm-learn[serve]'`), the object itself as a bare ASGI app (`uvicorn app:app`,
httpx's ASGITransport, Starlette's TestClient), and `service.make_server` (`http.server`, the
standard library's fallback).

Routes (NAME is a tactic's name; /info and /run exist when the service holds exactly one tactic):
    GET  /health                  200 {"ok": true, "tactics": [names]}
    GET  /tactics                 200 [info, ...]
    GET  /info, /tactics/NAME/info   200 the tactic's info(), secret-looking keys removed
    POST /run,  /tactics/NAME/run    body {"input": ..., "context": {...}} (or the bare input)
                                  200 {"output": ..., "request_id": ..., "tactic": NAME}
    POST /stream, /tactics/NAME/stream   the same body; 200 text/event-stream, one `data: {event}` per
                                  TacticEvent as the tactic makes it (ASGI only: `stream(...)` below)
Errors: {"error": {"type", "message", "tactic", "endpoint", "request_id"}}; 400 for a body that is not JSON, a
bad context or an input that does not fit, 404 for an unknown route or tactic, 405 for the wrong
method, 500 when the tactic itself fails. The type names the problem: SchemaError (400),
not_found, method_not_allowed, or the tactic's own exception class (500).

Usage:

    >>> from lllm.runtimes.python import as_tactic
    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> service = ProtocolService([as_tactic(shout)])
    >>> service.handle("POST", "/run", b'{"input": "hi", "context": {"request_id": "r1"}}')
    (200, {'output': 'HI', 'request_id': 'r1', 'tactic': 'shout'})
    >>> service.handle("GET", "/health")
    (200, {'ok': True, 'tactics': ['shout']})
"""

from __future__ import annotations

import asyncio
import json

from collections.abc import Mapping

from lllm.protocol._validation import public_boundary_value
from lllm.protocol.context import CallContext
from lllm.protocol.errors import SchemaError, TacticUnsupportedError
from lllm.protocol.events import TacticEvent
from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.composition.sse import format_sse
from lllm.runtimes.native.schemas import to_jsonable

__all__ = ["ProtocolService", "create_fastapi_app", "create_protocol_app", "public_info"]

ENVELOPE_KEYS = {"input", "task", "context"}
ACTIONS = ("info", "run", "stream")


def public_info(tactic: Tactic) -> dict:
    """The tactic's info() as JSON, with secret-looking keys dropped from its examples and metadata."""
    info = tactic.info().model_dump(mode="json")
    info["examples"] = public_boundary_value(info["examples"])
    info["metadata"] = public_boundary_value(info["metadata"])
    return info


def error(status: int, kind: str, message: str, tactic: str | None = None, request_id: str | None = None,
          endpoint: str | None = None):
    return status, {"error": {"type": kind, "message": message, "tactic": tactic, "endpoint": endpoint,
                              "request_id": request_id}}


def context_id(body: bytes) -> str | None:
    """The request id a body's context names, if it names a well-formed one (for error replies)."""
    try:
        return make_context(split_envelope(body)[1], "stream").request_id
    except SchemaError:
        return None


def split_envelope(body: bytes):
    """(input, context data) from a request body; a body without the envelope keys is the bare input."""
    try:
        data = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SchemaError(f"the body is not JSON: {exc}") from None
    if isinstance(data, dict) and data and set(data) <= ENVELOPE_KEYS and set(data) & {"input", "task"}:
        return data.get("input", data.get("task")), data.get("context")
    return data, None


def make_context(data, endpoint: str) -> CallContext:
    if data is None:
        return CallContext(endpoint=endpoint)
    if not isinstance(data, dict):
        raise SchemaError(f"the request's context must be an object, got {type(data).__name__}")
    try:
        return CallContext(**{"endpoint": endpoint, **data})
    except ValueError as exc:                           # Pydantic's ValidationError is a ValueError
        raise SchemaError(f"the request's context is not valid: {exc}") from None


class ProtocolService:
    def __init__(self, tactics):
        """One tactic, a list of them (routed by their names) or a mapping {route name: tactic}."""
        named = dict(tactics) if isinstance(tactics, Mapping) else None
        tactics = [tactics] if isinstance(tactics, Tactic) else list(named.values() if named else tactics)
        if not tactics or not all(isinstance(t, Tactic) for t in tactics):
            raise TypeError("ProtocolService needs one or more protocol Tactics")
        self.tactics = named or {t.tactic_name: t for t in tactics}
        if len(self.tactics) != len(tactics):
            raise ValueError(f"two tactics share a name: {[t.tactic_name for t in tactics]}")

    # --8<-- [start:handle]
    def handle(self, method: str, path: str, body: bytes = b"") -> tuple[int, dict | list]:
        if path == "/health":
            return self.only(method, "GET") or (200, {"ok": True, "tactics": sorted(self.tactics)})
        if path == "/tactics":
            return self.only(method, "GET") or (200, [public_info(t) for t in self.tactics.values()])
        name, action = self.route(path)
        if name not in self.tactics:
            return error(404, "not_found", f"no route {path}" if name is None else
                         f"no tactic {name!r} (tactics: {sorted(self.tactics)})")
        if action == "info":
            return self.only(method, "GET") or (200, public_info(self.tactics[name]))
        if action == "stream":
            return error(501, "not_implemented", "this server answers JSON only; /stream is served by the ASGI app",
                         name, endpoint="stream")
        return self.only(method, "POST") or self.run(self.tactics[name], body)
    # --8<-- [end:handle]

    def route(self, path: str) -> tuple[str | None, str | None]:
        """(tactic name, action) of /ACTION or /tactics/NAME/ACTION; (None, None) for no route."""
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "tactics" and parts[2] in ACTIONS:
            return parts[1], parts[2]
        if len(parts) == 1 and parts[0] in ACTIONS and len(self.tactics) == 1:
            return next(iter(self.tactics)), parts[0]
        return None, None

    @staticmethod
    def only(method: str, allowed: str):
        return None if method == allowed else error(405, "method_not_allowed", f"this route takes {allowed}, not {method}")

    def run(self, tactic: Tactic, body: bytes) -> tuple[int, dict]:
        try:
            value, context_data = split_envelope(body)
            context = make_context(context_data, "run")
        except SchemaError as exc:
            return error(400, "SchemaError", str(exc), tactic.tactic_name, endpoint="run")
        try:
            output = tactic.run(value, context=context)
        except (SchemaError, TacticUnsupportedError) as exc:
            return error(400, type(exc).__name__, str(exc), tactic.tactic_name, context.request_id, "run")
        except Exception as exc:
            return error(500, type(exc).__name__, str(exc), tactic.tactic_name, context.request_id, "run")
        return 200, {"output": to_jsonable(output), "request_id": context.request_id, "tactic": tactic.tactic_name}

    # ---- /stream: the tactic's events as server-sent events ---------------------------------------------

    def stream(self, method: str, path: str, body: bytes = b""):
        """(200, an iterator of SSE text) for a streaming call, or (status, error JSON) before it starts."""
        name, action = self.route(path)
        if action != "stream" or name not in self.tactics:
            return self.handle(method, path, body)
        tactic = self.tactics[name]
        refused = self.only(method, "POST")
        if refused:
            return refused
        try:
            value, context_data = split_envelope(body)
            context = make_context(context_data, "stream")
            if "stream" not in tactic.capabilities():
                raise TacticUnsupportedError(f"tactic {tactic.tactic_name!r} does not stream")
            events = tactic.events(value, context=context)
            first = next(events, None)                      # input errors surface here, before the 200
        except (SchemaError, TacticUnsupportedError) as exc:
            return error(400, type(exc).__name__, str(exc), tactic.tactic_name, context_id(body), "stream")
        except Exception as exc:
            return error(500, type(exc).__name__, str(exc), tactic.tactic_name, context_id(body), "stream")
        return 200, sse_lines(first, events)

    # ---- ASGI: the same handle, for uvicorn and httpx ---------------------------------------------------

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            raise ValueError(f"the protocol service speaks HTTP, not {scope['type']}")
        body = await read_body(receive)
        status, data = await asyncio.to_thread(self.stream, scope["method"], scope["path"], body)
        if not isinstance(data, (dict, list)):
            await send_stream(send, data)
            return
        payload = json.dumps(data).encode("utf-8")
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})


def sse_lines(first, events):
    """Each event as SSE text; an exception mid-stream becomes a last 'error' event (the 200 is already sent)."""
    if first is None:
        return
    yield format_sse(first)
    try:
        for event in events:
            yield format_sse(event)
    except Exception as exc:
        yield format_sse(TacticEvent.error(str(exc), error_type=type(exc).__name__))


async def send_stream(send, lines) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
    while (line := await asyncio.to_thread(next, lines, None)) is not None:     # each event as it is made
        await send({"type": "http.response.body", "body": line.encode("utf-8"), "more_body": True})
    await send({"type": "http.response.body", "body": b""})


async def read_body(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def lifespan(receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def create_protocol_app(tactic_or_tactics) -> ProtocolService:
    """One tactic or several, as an ASGI app (lllm-core's `lllm.services.create_tactic_app`)."""
    return ProtocolService(tactic_or_tactics)


# ---- FastAPI: the same handle, for `lllm serve` under uvicorn ------------------------------------------

# Every method reaches handle, so a wrong one is its JSON 405, not Starlette's plain-text one.
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def create_fastapi_app(tactics_or_service):
    """A FastAPI app with one catch-all route that hands every request to `ProtocolService.handle`.

    FastAPI is imported here, only when called (the `serve` extra). There is no second route table:
    FastAPI's own /docs and /openapi.json are switched off, so the app answers exactly what `handle`
    answers, in the same bytes the standard-library server sends.
    """
    from fastapi import FastAPI, Request
    from fastapi.responses import Response
    service = tactics_or_service if isinstance(tactics_or_service, ProtocolService) else ProtocolService(tactics_or_service)
    app = FastAPI(title="lllm serve", docs_url=None, redoc_url=None, openapi_url=None)

    async def every_route(request):
        body = await request.body()
        status, data = await asyncio.to_thread(service.handle, request.method, request.scope["path"], body)
        return Response(json.dumps(data), status_code=status, media_type="application/json")

    every_route.__annotations__["request"] = Request    # a real class: FastAPI reads it to pass the request
    app.api_route("/{path:path}", methods=METHODS, include_in_schema=False)(every_route)
    app.state.protocol_service = service
    return app
