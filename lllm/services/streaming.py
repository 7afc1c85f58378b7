"""Layer 4 · the /stream body: a tactic's stream as server-sent events, closed when the client leaves.

Read `lllm/services/protocol_service.py` first: `handle` checks a /stream request and, when
it is good, answers `(200, EventStream(...))`; each server sends `EventStream.frames()`.

Contract: every item the tactic yields becomes one frame `data: <TacticEvent as JSON>\\n\\n` (a plain
value is the event's `data`, kind "message"; secret-looking metadata keys are dropped). An
exception inside the stream is the last frame, an event of kind "error" naming its type, tactic,
endpoint and request id; the HTTP status is already 200 by then. When the consumer stops early
(the client disconnected, so the server cancels the task), the tactic's iterator is closed: a sync
generator gets `close()` (on the one worker thread that runs it, after any step in flight), an
async one `aclose()`; either way its `finally` blocks run and nothing keeps running.

Usage:

    >>> import asyncio
    >>> from lllm.protocol.tactic import Tactic
    >>> class Count(Tactic[int, int]):
    ...     input_type = output_type = int
    ...     def stream(self, n, *, context=None):
    ...         yield from range(n)
    >>> async def collect():
    ...     return [f async for f in EventStream(Count(name="count"), 2, None).frames()]
    >>> asyncio.run(collect())[1].startswith(b'data: {"id": ')
    True
"""

from __future__ import annotations

import asyncio
import inspect
import json
from concurrent.futures import ThreadPoolExecutor

from lllm.protocol.validation import public_boundary_value
from lllm.protocol.events import TacticEvent
from lllm.protocol.proxy import has_own
from lllm.runtimes.native.core.schemas import to_jsonable

__all__ = ["EventStream", "can_stream", "sse_frame"]

DONE = object()


def can_stream(tactic) -> bool:
    """A tactic streams when it overrides `stream` or has events of its own (an event-only tactic)."""
    if "stream" in tactic.capabilities():
        return True
    supports = getattr(tactic, "supports", None)          # a wrapper knows whether what it wraps has events
    return supports("events") if callable(supports) else has_own(tactic, "aevents")


def sse_frame(item) -> bytes:
    event = item if isinstance(item, TacticEvent) else TacticEvent(kind="message", data=to_jsonable(item))
    data = event.model_dump(mode="json")
    data["metadata"] = public_boundary_value(data["metadata"])
    data["data"] = public_boundary_value(data["data"]) if isinstance(data["data"], dict) else data["data"]
    return f"data: {json.dumps(data)}\n\n".encode("utf-8")


class EventStream:
    def __init__(self, tactic, value, context, endpoint: str = "stream"):
        self.tactic, self.value, self.context, self.endpoint = tactic, value, context, endpoint

    async def frames(self):
        # Closed explicitly: `aclose()` on this generator (a client that left) throws GeneratorExit at
        # our `yield`, and `async for` would leave `items` for the garbage collector to close, some time
        # later on some loop; in a worker process (workers.py) that loop may never run again.
        items = self.items()
        try:
            async for item in items:
                yield sse_frame(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            yield sse_frame(TacticEvent(kind="error", data={"message": str(exc)}, metadata={
                "error_type": type(exc).__name__, "tactic": self.tactic.tactic_name, "endpoint": self.endpoint,
                "request_id": self.context.request_id if self.context else None}))
        finally:
            await items.aclose()

    # --8<-- [start:items]
    async def items(self):
        """The tactic's items; leaving this generator early closes the tactic's own iterator."""
        if "stream" not in self.tactic.capabilities():
            source = self.tactic.aevents(self.value, context=self.context)
            try:
                async for item in source:
                    yield item
            finally:
                await source.aclose()
            return
        source = self.tactic.stream(self.value, context=self.context)
        source = source if inspect.isasyncgen(source) else iter(source)
        if inspect.isasyncgen(source):
            try:
                async for item in source:
                    yield item
            finally:
                await source.aclose()
            return
        # A sync iterator steps on one worker thread, so the event loop never blocks on it and
        # close() runs there too, after whatever step is in flight.
        worker, loop = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lllm-stream"), asyncio.get_running_loop()
        try:
            while (item := await loop.run_in_executor(worker, next, source, DONE)) is not DONE:
                yield item
        finally:
            if hasattr(source, "close"):
                worker.submit(source.close)
            worker.shutdown(wait=False)
    # --8<-- [end:items]
