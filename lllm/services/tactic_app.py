"""Layer 4 · the tactic service's app: `ProtocolService.handle` as the one app's route (app.py), its envelopes, its OpenAPI.

Read `lllm/services/protocol_service.py` first (the handler and the routes), then `app.py` (the one
FastAPI app factory and uvicorn runner every HTTP service here uses). FastAPI is imported only
when an app is made (`pip install 'lllm-learn[serve]'`).

Contract: `create_tactic_app(tactic)` / `create_service_app(tactics, expose_single_tactic_routes=None)`
return the app of `app.create_app` whose one route passes every request to the service's `handle` and
sends back its JSON, or its server-sent events for /stream (closing the tactic's stream when the
client leaves). There is no second route table: `app.openapi()` describes the service's routes
(the default ones and each `@endpoint`), so the app answers exactly what `handle` answers.
`serve_uvicorn(service, host, port, ...)` runs it behind the door (door.py) with `app.run_app`.
`RunRequest`, `RunResponse` and `ErrorDetail` are the envelopes as Pydantic models, for clients and
documentation; they copy what they are given.

Usage:

    >>> RunRequest(input={"text": "hi"}, context={"request_id": "r1"}).value
    {'text': 'hi'}
    >>> ErrorDetail(type="SchemaError", message="bad input", tactic="echo", endpoint="run").endpoint
    'run'
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictStr

from lllm.protocol import validation as v
from lllm.protocol.fields import Metadata, Name, Token
from lllm.services.app import create_app, json_response, listen, run_app
from lllm.services.door import DEFAULT_ORIGINS, Limits, Pool, guard, needs_work
from lllm.services.http_server import protocol_shape
from lllm.services.protocol_service import ProtocolService, error, public_info

__all__ = ["RunRequest", "RunResponse", "ErrorDetail", "create_fastapi_app", "create_tactic_app",
           "create_service_app", "openapi_schema", "serve_uvicorn"]

AnyData = Annotated[Any, BeforeValidator(lambda value: v.plain_data(value, "value"))]
Context = Annotated[dict[str, Any] | None, BeforeValidator(lambda m: None if m is None else v.plain_mapping(m, "context"))]


# ---- the envelopes -----------------------------------------------------------------------------------------

class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: AnyData = None
    task: AnyData = None
    context: Context = None

    @property
    def value(self):
        """The tactic's input: `input`, else `task` (lllm-core's older name for it)."""
        return self.input if self.input is not None else self.task


class RunResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")
    output: AnyData = None
    request_id: Token
    tactic: Name


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Token
    message: StrictStr
    tactic: Name | None = None
    endpoint: Token | None = None
    request_id: Token | None = None
    metadata: Metadata = {}


# ---- the app -------------------------------------------------------------------------------------------------

def create_fastapi_app(tactics_or_service, *, expose_single_tactic_routes: bool | None = None, pool: Pool | None = None):
    """The one app (app.create_app) whose route hands every request to `ProtocolService.handle`; the tactics
    run on `pool`'s workers (lllm/services/door.py), and past its queue a request gets 503 with Retry-After."""
    service = (tactics_or_service if isinstance(tactics_or_service, ProtocolService) else
               ProtocolService(tactics_or_service, expose_single_tactic_routes=expose_single_tactic_routes))
    pool = pool or Pool()

    # --8<-- [start:route]
    async def every_route(request):
        method, path = request.method, request.scope["path"]
        if not needs_work(method, path):                # no tactic runs: answered at once, never behind one that does
            return json_response(*service.handle(method, path, b""))
        if not pool.admit():
            busy = pool.busy()
            return json_response(*error(busy.status, busy.code, busy.message), busy.headers)
        streaming = False
        try:
            body = await request.body()
            try:
                status, data = await asyncio.wrap_future(pool.run(service, method, path, body))
            except Exception as exc:                    # a fault of ours: still the service's JSON, no traceback
                status, data = error(500, type(exc).__name__, str(exc)[:500])
            if hasattr(data, "frames"):                 # an EventStream, or a RemoteStream from a worker process
                streaming = True
                return closing_stream(released(data.frames(), pool))
            return json_response(status, data)
        finally:
            if not streaming:
                pool.release()
    # --8<-- [end:route]

    app = create_app("lllm serve", every_route)
    app.state.protocol_service = service
    app.openapi = lambda: openapi_schema(service)
    return app


def closing_stream(frames):
    """Server-sent events whose frames are closed however the response ends: when a send fails because
    the client left (ASGI 2.4 servers), Starlette itself leaves them to the garbage collector, and with
    them the tactic's generator and the stream's place in the pool."""
    from fastapi.responses import StreamingResponse

    class ClosingStream(StreamingResponse):
        async def stream_response(self, send):
            try:
                await super().stream_response(send)
            finally:
                await self.body_iterator.aclose()
    return ClosingStream(frames, media_type="text/event-stream", headers={"cache-control": "no-cache"})


async def released(frames, pool: Pool):
    """A stream's frames; its place in the pool is given back when it ends, however it ends."""
    try:
        async for frame in frames:
            yield frame
    finally:
        try:
            await frames.aclose()                       # closed now, not when collected: a worker's stream stops here
        finally:
            pool.release()


def create_tactic_app(tactic, **options):
    """lllm-core's name for one tactic's app (/run, /stream, /info and its endpoints)."""
    return create_fastapi_app(tactic, **options)


def create_service_app(tactics, *, expose_single_tactic_routes: bool | None = None):
    """lllm-core's name for the app of several tactics (/tactics/NAME/...)."""
    return create_fastapi_app(tactics, expose_single_tactic_routes=expose_single_tactic_routes)


# ---- on a socket ---------------------------------------------------------------------------------------------

def serve_uvicorn(service, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning",
                  limits: Limits = Limits(), origins=DEFAULT_ORIGINS, pool: Pool | None = None) -> None:
    """A ProtocolService as the one app behind the door, under the one uvicorn runner (app.run_app);
    ValueError if host:port cannot be listened on."""
    sock = listen(host, port)
    print(f"serving on http://{host}:{port} with uvicorn and FastAPI (/health, /info, /run, /stream); Ctrl-C stops it",
          flush=True)
    app = guard(create_fastapi_app(service, pool=pool), protocol_shape, limits, origins, host, json_only=True)
    run_app(app, sock, log_level, limits)


# ---- describing the routes ---------------------------------------------------------------------------------

def operation(summary: str, description: str = "", body_schema: dict | None = None, streams: bool = False) -> dict:
    op = {"summary": summary, "description": description,
          "responses": {"200": {"description": "server-sent TacticEvents" if streams else "success"},
                        "400": {"description": "SchemaError or TacticUnsupportedError in detail.error"},
                        "500": {"description": "the tactic's exception in detail.error"}}}
    if body_schema is not None:
        op["requestBody"] = {"content": {"application/json": {"schema": body_schema}}}
    return op


def envelope_schema(tactic) -> dict:
    info = public_info(tactic)
    return {"type": "object", "properties": {"input": info["input_schema"] or {}, "context": {"type": "object"}}}


def openapi_schema(service: ProtocolService) -> dict:
    """OpenAPI 3.1 for what `handle` answers: health, the tactics' default routes and their endpoints."""
    paths = {"/health": {"get": operation("Health")}, "/tactics": {"get": operation("List Tactics")}}
    if service.single:
        tactic = next(iter(service.tactics.values()))
        paths["/info"] = {"get": operation("Info", tactic.description)}
        paths["/run"] = {"post": operation("Run", tactic.description, envelope_schema(tactic))}
        paths["/stream"] = {"post": operation("Stream", tactic.description, envelope_schema(tactic), streams=True)}
    paths["/tactics/{name}/info"] = {"get": operation("Tactic Info")}
    paths["/tactics/{name}/run"] = {"post": operation("Run Tactic", body_schema={"type": "object"})}
    paths["/tactics/{name}/stream"] = {"post": operation("Stream Tactic", body_schema={"type": "object"}, streams=True)}
    for spec, _method, name in service.endpoints:
        summary = spec.name.replace("_", " ").title()
        op = operation(summary, spec.description, envelope_schema(service.tactics[name]), spec.mode == "stream")
        paths.setdefault(spec.path, {})[spec.method.lower()] = {**op, "tags": list(spec.tags)}
    return {"openapi": "3.1.0", "info": {"title": "lllm serve", "version": "0.1.0"}, "paths": paths}
