"""Layer 3 · RemoteTactic: a tactic served elsewhere, called over HTTP as if it were local.

Read `refs.py` (service URLs), `sse.py` (streams) and `remote_errors.py` first; the server side
is `lllm/services/protocol_service.py`. `RemoteTactic(url, input_type=..., output_type=...)`
is a protocol Tactic: `run(value, context=...)` validates `value` here, POSTs
`{"input": value, "context": context}` to the service's /run and validates the reply's `output`
here too, so a wrong answer from the server is a SchemaError on the caller's side.

The URL may be a service's base (`http://host/tactics/echo`) or one of its routes
(`.../run`, `.../stream`, `.../info`); the tactic's name defaults to NAME in `/tactics/NAME`.

    run / arun          POST /run, the output
    stream / astream    POST /stream, the data of each server-sent event as it arrives
    events / aevents    the same stream as full TacticEvents
    fetch_info / afetch_info   GET /info, the service's TacticInfo (`info()` itself never calls out)

httpx is imported at the first call (it is not a dependency of `import lllm`). Pass
`transport=httpx.MockTransport(handler)` (sync calls) or `async_transport=httpx.ASGITransport(app)`
(async calls) to talk to a handler or an app without a socket. A reply that is not a success
raises `RemoteTacticError` with the service's status and error fields.

Usage:

    >>> import httpx
    >>> def answer(request):
    ...     return httpx.Response(200, json={"output": "HELLO"})
    >>> remote = RemoteTactic("http://test/tactics/shout", input_type=str, output_type=str,
    ...                       transport=httpx.MockTransport(answer))
    >>> remote.run("hello"), remote.tactic_name, remote.url
    ('HELLO', 'shout', 'http://test/tactics/shout/run')
"""

from __future__ import annotations

import json
import math

from pydantic import ValidationError

from lllm.protocol.context import CallContext
from lllm.protocol.errors import TacticServiceError
from lllm.protocol.tactic import Tactic, TacticInfo
from lllm.runtimes.native.composition.refs import service_endpoints, tactic_name_in_url
from lllm.runtimes.native.composition.remote_errors import RemoteTacticError, error_from_reply
from lllm.runtimes.native.composition.sse import aiter_sse_events, iter_sse_events
from lllm.runtimes.native.core.schemas import to_jsonable

__all__ = ["RemoteTactic", "RemoteTacticError", "request_envelope"]


def request_envelope(input_value, context: CallContext | None) -> dict:
    """The request body: JSON copies of the input and the context, so later changes never leak in."""
    if context is not None and not isinstance(context, CallContext):
        raise TypeError(f"context must be a CallContext or None, got {type(context).__name__}")
    body = {"input": json.loads(json.dumps(to_jsonable(input_value)))}
    if context is not None:
        body["context"] = context.model_dump(mode="json", exclude_none=True)
    return body


def checked_timeout(timeout) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"timeout must be a positive, finite number of seconds or None, got {timeout!r}")
    return float(timeout)


def httpx_module():
    try:
        import httpx
    except ImportError:
        raise TacticServiceError("RemoteTactic needs httpx: pip install httpx") from None
    return httpx


class RemoteTactic(Tactic):
    runtime_kind = "remote"

    def __init__(self, url: str, *, name: str | None = None, input_type=None, output_type=None, transport=None,
                 async_transport=None, timeout: float | None = 30.0, metadata=None, **protocol):
        try:
            self.url, self.stream_url, self.info_url = service_endpoints(url)
        except ValueError as exc:
            raise ValueError(f"RemoteTactic: {exc}") from None
        super().__init__(name=name if name is not None else (tactic_name_in_url(url) or "remote"),
                         metadata=metadata, **protocol)
        self.metadata["url"] = self.url                 # the URL it calls, whatever the caller's metadata said
        self.timeout = checked_timeout(timeout)
        self.input_type, self.output_type = input_type, output_type
        self.transport, self.async_transport = transport, async_transport

    # ---- run: one POST, one output ---------------------------------------------------------------------

    def _run(self, input_value, *, context=None):
        httpx = httpx_module()
        with httpx.Client(transport=self.transport, timeout=self.timeout) as client:
            response = self._send(httpx, lambda: client.post(self.url, json=request_envelope(input_value, context)))
        return self._field(response, "run", "output")

    async def _arun(self, input_value, *, context=None):
        httpx = httpx_module()
        async with httpx.AsyncClient(transport=self.async_transport, timeout=self.timeout) as client:
            try:
                response = await client.post(self.url, json=request_envelope(input_value, context))
            except httpx.HTTPError as exc:
                raise TacticServiceError(f"{self.url}: {type(exc).__name__}: {exc}") from None
        return self._field(response, "run", "output")

    def _send(self, httpx, call):
        try:
            return call()
        except httpx.HTTPError as exc:
            raise TacticServiceError(f"{self.url}: {type(exc).__name__}: {exc}") from None

    def _json(self, response, endpoint: str):
        """The reply's JSON, or RemoteTacticError: the service's own error, or an answer that is not JSON."""
        if response.status_code != 200:
            raise error_from_reply(response.status_code, response.text, endpoint=endpoint, tactic=self.tactic_name)
        try:
            return response.json()
        except ValueError:
            raise RemoteTacticError(200, error_type="InvalidResponse", endpoint=endpoint, tactic=self.tactic_name,
                                    message=f"the answer from {response.url} is not valid JSON",
                                    detail=response.text) from None

    def _field(self, response, endpoint: str, field: str):
        data = self._json(response, endpoint)
        if not isinstance(data, dict) or field not in data:
            raise RemoteTacticError(200, error_type="InvalidResponse", endpoint=endpoint, tactic=self.tactic_name,
                                    message=f"the answer from {response.url} has no {field!r} field", detail=data)
        return data[field]

    # ---- info: what the service says about the tactic ---------------------------------------------------

    def fetch_info(self) -> TacticInfo:
        httpx = httpx_module()
        with httpx.Client(transport=self.transport, timeout=self.timeout) as client:
            return self._info_of(self._send(httpx, lambda: client.get(self.info_url)))

    async def afetch_info(self) -> TacticInfo:
        httpx = httpx_module()
        async with httpx.AsyncClient(transport=self.async_transport, timeout=self.timeout) as client:
            return self._info_of(await client.get(self.info_url))

    def _info_of(self, response) -> TacticInfo:
        data = self._json(response, "info")
        try:
            return TacticInfo.model_validate(data)
        except ValidationError as exc:
            raise RemoteTacticError(200, error_type="InvalidResponse", endpoint="info", tactic=self.tactic_name,
                                    message=f"the answer from {response.url} does not match the TacticInfo schema: "
                                            f"{exc.error_count()} error(s)", detail=data) from None

    # ---- streams: server-sent events as they arrive -------------------------------------------------------

    def events(self, input_value, *, context=None):
        context = self._check_call(context, False)
        body = request_envelope(self.validate_input(input_value), context)
        httpx = httpx_module()
        with httpx.Client(transport=self.transport, timeout=self.timeout) as client:
            with client.stream("POST", self.stream_url, json=body) as response:
                if response.status_code != 200:
                    response.read()
                    raise error_from_reply(response.status_code, response.text, endpoint="stream",
                                           tactic=self.tactic_name)
                yield from iter_sse_events(response.iter_lines())

    async def aevents(self, input_value, *, context=None):
        context = self._check_call(context, False)
        body = request_envelope(self.validate_input(input_value), context)
        httpx = httpx_module()
        async with httpx.AsyncClient(transport=self.async_transport, timeout=self.timeout) as client:
            async with client.stream("POST", self.stream_url, json=body) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise error_from_reply(response.status_code, response.text, endpoint="stream",
                                           tactic=self.tactic_name)
                async for event in aiter_sse_events(response.aiter_lines()):
                    yield event

    def stream(self, input_value, *, context=None):
        for event in self.events(input_value, context=context):
            yield self._chunk(event)

    async def astream(self, input_value, *, context=None):
        async for event in self.aevents(input_value, context=context):
            yield self._chunk(event)

    def _chunk(self, event):
        """An event's data; an 'error' event in the stream raises, as a failed run would."""
        if event.kind != "error":
            return event.data
        data = event.data if isinstance(event.data, dict) else {"message": str(event.data)}
        message = data.get("message") if isinstance(data.get("message"), str) else None
        raise RemoteTacticError(200, error_type="StreamError", message=message, endpoint="stream",
                                tactic=self.tactic_name, detail=event.model_dump(mode="json"))
