"""Layer 4 · the protocol service: protocol tactics behind lllm-core's HTTP routes, one handler for every server.

Read `lllm/protocol/tactic.py` first. This service speaks the protocol envelope, which any `Tactic`
understands and which `RemoteTactic` (`lllm/runtimes/native/composition/remote.py`) and a
generated project's client.py call.

`ProtocolService(tactics).handle(method, path, body)` is a pure function from a request to
`(status, JSON object)` — or `(200, EventStream)` for /stream — and the only place a route is
matched or a request checked. Three servers put it on the wire, each a few lines that pass the
method, path and body to `handle`: `lllm.services.tactic_app.create_fastapi_app` (the one FastAPI app, for `lllm
serve` under uvicorn: the `serve` extra), the object itself as a bare ASGI app (`uvicorn app:app`,
httpx's ASGITransport), and `http_server.make_server` (`http.server`, the standard library's fallback).

Routes (NAME is a tactic's name; /info, /run and /stream exist when the service holds one tactic):
    GET  /health                      200 {"ok": true, "tactics": [names]}
    GET  /tactics                     200 [info, ...]
    GET  /info,   /tactics/NAME/info    200 the tactic's info(), secret-looking keys removed
    POST /run,    /tactics/NAME/run     body {"input": ..., "context": {...}} (or the bare input)
                                      200 {"output": ..., "request_id": ..., "tactic": NAME}
    POST /stream, /tactics/NAME/stream  200 text/event-stream, one `data: <TacticEvent>` per item
    any  a tactic's `@endpoint` routes (lllm/services/endpoints.py): 200 with what the method returns
Errors: {"detail": {"error": {"type", "message", "tactic", "endpoint", "request_id"}}}; 400 for a body
that is not JSON, a bad context or an input that does not fit (SchemaError) or a tactic that does
not stream (TacticUnsupportedError), 404 not_found, 405 method_not_allowed, 500 when the tactic fails
(its exception's class).

Usage:

    >>> from lllm.runtimes.function_tactic import as_tactic
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
import inspect
import json
from collections.abc import Mapping

from lllm.protocol.validation import check_name, public_boundary_value
from lllm.protocol.context import CallContext
from lllm.protocol.errors import SchemaError, TacticUnsupportedError
from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.core.schemas import to_jsonable
from lllm.services.endpoints import RESERVED_ROUTES, custom_endpoints, match_route, route_key
from lllm.services.streaming import EventStream, can_stream

__all__ = ["ProtocolService", "create_protocol_app", "public_info", "describe_tactic", "error"]

ENVELOPE_KEYS = {"input", "task", "context"}
MAX_DEPTH = 64          # nesting a request may have: deeper input would exhaust the recursion of validators downstream


def depth(data) -> int:
    """How deeply lists and objects nest in `data` (0 for a plain value), counted without recursion."""
    deepest, todo = 0, [(data, 0)]
    while todo:
        value, level = todo.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, level + 1)
            if deepest > MAX_DEPTH:
                return deepest
            todo.extend((item, level + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def public_info(tactic: Tactic) -> dict:
    """The tactic's info() as JSON, with secret-looking keys dropped from its examples and metadata."""
    info = tactic.info().model_dump(mode="json")
    info["examples"] = public_boundary_value(info["examples"])
    info["metadata"] = public_boundary_value(info["metadata"])
    return info


def describe_tactic(tactic: Tactic) -> dict:
    """What `lllm inspect` shows: name, description, runtime, capabilities, schemas, refs, examples and
    metadata, as one JSON object, with secret-looking keys dropped at every depth (a key ending in
    `ref`, such as `api_key_ref`, names where a secret lives, so it stays).

        >>> from lllm.runtimes.function_tactic import as_tactic
        >>> def shout(text: str) -> str:
        ...     return text.upper()
        >>> card = describe_tactic(as_tactic(shout, metadata={"api_key": "sk-1", "api_key_ref": "vault/openai"}))
        >>> card["runtime"], card["metadata"]
        ('python', {'api_key_ref': 'vault/openai'})
    """
    info = public_info(tactic)
    return {"name": info["name"], "description": info["description"], "runtime": info["runtime_kind"],
            "capabilities": list(info["capabilities"]), "input_schema": info["input_schema"],
            "output_schema": info["output_schema"], "package_ref": info["package_ref"],
            "service_ref": info["service_ref"], "examples": info["examples"], "metadata": info["metadata"]}


def error(status: int, kind: str, message: str, tactic=None, endpoint=None, request_id=None):
    return status, {"detail": {"error": {"type": kind, "message": message, "tactic": tactic,
                                         "endpoint": endpoint, "request_id": request_id}}}


def split_envelope(body: bytes):
    """(input, context data) from a request body; a body without the envelope keys is the bare input."""
    try:
        data = json.loads(body.decode("utf-8")) if body else None
    except (ValueError, RecursionError) as exc:     # not UTF-8, not JSON, nested too deep, a 5,000-digit number
        raise SchemaError(f"the body is not JSON this service reads: {str(exc)[:200]}") from None
    if depth(data) > MAX_DEPTH:
        raise SchemaError(f"the body nests deeper than {MAX_DEPTH} levels")
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


def named_tactics(tactics) -> dict[str, Tactic]:
    """One tactic, a list of them, or a {route name: tactic} mapping -> {route name: tactic}."""
    if isinstance(tactics, Tactic):
        tactics = [tactics]
    if isinstance(tactics, Mapping):
        pairs = list(tactics.items())
    elif isinstance(tactics, (list, tuple)):
        pairs = [(getattr(t, "tactic_name", None), t) for t in tactics]
    else:
        raise ValueError(f"a service needs a tactic, a list of tactics or a mapping of them, got {type(tactics).__name__}")
    if not pairs or not all(isinstance(t, Tactic) for _, t in pairs):
        raise ValueError(f"a service needs one or more protocol tactics, got {tactics!r}")
    named = {}
    for name, tactic in pairs:
        try:
            check_name(name, "tactic.name")
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None
        if name != name.strip() or " " in name:
            raise ValueError(f"tactic.name must be usable in a route (no spaces), got {name!r}")
        if name in named:
            raise ValueError(f"Duplicate tactic.name {name!r}: two tactics would share /tactics/{name}")
        named[name] = tactic
    return named


class ProtocolService:
    def __init__(self, tactics, *, expose_single_tactic_routes: bool | None = None):
        if expose_single_tactic_routes is not None and not isinstance(expose_single_tactic_routes, bool):
            raise TypeError(f"expose_single_tactic_routes must be True, False or None, got {expose_single_tactic_routes!r}")
        self.tactics = named_tactics(tactics)
        self.single = (len(self.tactics) == 1) if expose_single_tactic_routes is None else expose_single_tactic_routes
        if self.single and len(self.tactics) != 1:
            raise ValueError(f"single-tactic routes (/run) need exactly one tactic, got {len(self.tactics)}")
        self.endpoints = self.collect_endpoints()

    def collect_endpoints(self) -> list:
        """Every tactic's `@endpoint` routes: (spec, method, tactic name), none on a reserved route or twice."""
        found, taken = [], {}
        reserved = {route_key(r) for r in RESERVED_ROUTES}
        for name, tactic in self.tactics.items():
            for spec, method in custom_endpoints(tactic):
                key = route_key(spec.path)
                if any(len(key) == len(r) and all(a == b or "{}" in (a, b) for a, b in zip(key, r)) for r in reserved):
                    raise ValueError(f"{spec.path} ({name}.{spec.name}) is a reserved LLLM service route")
                if (spec.method, key) in taken:
                    raise ValueError(f"Duplicate custom endpoint route {spec.method} {spec.path} "
                                     f"({taken[spec.method, key]} and {name}.{spec.name})")
                taken[spec.method, key] = f"{name}.{spec.name}"
                found.append((spec, method, name))
        return found

    # --8<-- [start:handle]
    def handle(self, method: str, path: str, body: bytes = b""):
        if path == "/health":
            return self.only(method, "GET") or (200, {"ok": True, "tactics": sorted(self.tactics)})
        if path == "/tactics":
            return self.only(method, "GET") or (200, [public_info(t) for t in self.tactics.values()])
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "tactics" and parts[2] in ("info", "run", "stream"):
            name, action = parts[1], parts[2]
        elif len(parts) == 1 and parts[0] in ("info", "run", "stream") and self.single:
            name, action = next(iter(self.tactics)), parts[0]
        else:
            return self.custom(method, path, body)
        if name not in self.tactics:
            return error(404, "not_found", f"no tactic {name!r} (tactics: {sorted(self.tactics)})")
        if action == "info":
            return self.only(method, "GET") or (200, public_info(self.tactics[name]))
        return self.only(method, "POST") or self.call(self.tactics[name], action, body)
    # --8<-- [end:handle]

    @staticmethod
    def only(method: str, allowed: str):
        return None if method == allowed else error(405, "method_not_allowed", f"this route takes {allowed}, not {method}")

    def call(self, tactic: Tactic, endpoint: str, body: bytes, run=None, path_params=None):
        """/run, /stream or a custom endpoint: read the envelope, check the input, call, answer."""
        name = tactic.tactic_name
        try:
            value, context_data = split_envelope(body)
            context = make_context(context_data, endpoint)
        except SchemaError as exc:
            return error(400, "SchemaError", str(exc), name, endpoint)
        if path_params:
            context = context.model_copy(update={"metadata": {**context.metadata, "path_params": path_params}})
        try:
            if endpoint == "stream" and run is None:
                if not can_stream(tactic):
                    raise TacticUnsupportedError(f"tactic {name!r} does not stream")
                return 200, EventStream(tactic, tactic.validate_input(value), context)
            if run is None:
                output = {"output": to_jsonable(tactic.run(value, context=context)), "request_id": context.request_id,
                          "tactic": name}
            else:
                output = run(tactic.validate_input(value), context=context)
                output = to_jsonable(asyncio.run(awaited(output)) if inspect.isawaitable(output) else output)
        except (SchemaError, TacticUnsupportedError) as exc:
            return error(400, type(exc).__name__, str(exc), name, endpoint, context.request_id)
        except Exception as exc:
            return error(500, type(exc).__name__, str(exc), name, endpoint, context.request_id)
        return 200, output

    def custom(self, method: str, path: str, body: bytes):
        matches = [(spec, run, name, params) for spec, run, name in self.endpoints
                   if (params := match_route(spec.path, path)) is not None]
        if not matches:
            return error(404, "not_found", f"no route {path}")
        for spec, run, name, params in matches:
            if spec.method == method:
                return self.call(self.tactics[name], spec.name, body, run, params)
        return self.only(method, " or ".join(sorted({spec.method for spec, *_ in matches})))

    # ---- ASGI: the same handle, for uvicorn and httpx ---------------------------------------------------

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            raise ValueError(f"the protocol service speaks HTTP, not {scope['type']}")
        body = await read_body(receive)
        status, data = await asyncio.to_thread(self.handle, scope["method"], scope["path"], body)
        if isinstance(data, EventStream):
            await send_stream(data, receive, send)
            return
        payload = json.dumps(data).encode("utf-8")
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})


async def awaited(awaitable):
    return await awaitable


async def read_body(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def send_stream(stream: EventStream, receive, send) -> None:
    """Send the frames until they end or the client disconnects; either way the tactic's iterator is closed."""
    async def pump():
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache")]})
        frames = stream.frames()
        try:
            async for frame in frames:
                await send({"type": "http.response.body", "body": frame, "more_body": True})
        finally:
            await frames.aclose()
        await send({"type": "http.response.body", "body": b""})

    async def disconnected():
        while (await receive())["type"] != "http.disconnect":
            pass
    sending, watching = asyncio.ensure_future(pump()), asyncio.ensure_future(disconnected())
    try:
        await asyncio.wait({sending, watching}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sending, watching):
            task.cancel()
        await asyncio.gather(sending, watching, return_exceptions=True)


async def lifespan(receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def create_protocol_app(tactic_or_tactics, *, expose_single_tactic_routes: bool | None = None) -> ProtocolService:
    """One tactic or several, as a bare ASGI app (no FastAPI needed)."""
    return ProtocolService(tactic_or_tactics, expose_single_tactic_routes=expose_single_tactic_routes)
