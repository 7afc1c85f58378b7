"""Layer 3 · server-sent events: a stream of TacticEvents as `data: {json}` lines, and back.

Read `lllm/protocol/events.py` first (the TacticEvent). A streamed call crosses HTTP as the
text/event-stream format: one event per `data:` line, a blank line after each. `format_sse`
writes one; `iter_sse_events` / `aiter_sse_events` read lines (from httpx's `iter_lines`, a
file, a list) and yield TacticEvents.

Reading never raises on a bad stream: the server's mistakes are data. A `data:` object shaped
like an event envelope (a `kind` and only TacticEvent's fields) is validated as one; if it does
not validate, it becomes an `error` event carrying the payload and the reasons. Any other JSON
value (or plain text) is a raw chunk, wrapped as a `message` event. A line that is not text
becomes an `error` event too.

Usage:

    >>> from lllm.protocol.events import TacticEvent
    >>> line = format_sse(TacticEvent(id="e1", kind="message", data="hi", timestamp=0.0))
    >>> line
    'data: {"id": "e1", "kind": "message", "data": "hi", "metadata": {}, "timestamp": 0.0}\\n\\n'
    >>> [event.data for event in iter_sse_events(line.splitlines())]
    ['hi']
    >>> [event.data for event in iter_sse_events(['data: {"kind": "raw", "text": "ok"}', ''])]
    [{'kind': 'raw', 'text': 'ok'}]
"""

from __future__ import annotations

import json

from pydantic import ValidationError

from lllm.protocol.validation import public_boundary_value
from lllm.protocol.events import TacticEvent

__all__ = ["format_sse", "iter_sse_events", "aiter_sse_events", "event_from_payload", "SSEDecoder"]

ENVELOPE_FIELDS = set(TacticEvent.model_fields)


# ---- writing ------------------------------------------------------------------------------------------

def format_sse(event: TacticEvent) -> str:
    """One event as text/event-stream: `data: {json}` and a blank line; secret-looking metadata removed."""
    payload = event.model_dump(mode="json")
    payload["metadata"] = public_boundary_value(payload["metadata"])
    return f"data: {json.dumps(payload)}\n\n"


# ---- reading -------------------------------------------------------------------------------------------

def event_from_payload(payload) -> TacticEvent:
    """An envelope-shaped object is validated as a TacticEvent; any other value is a raw message chunk."""
    if isinstance(payload, dict) and "kind" in payload and set(payload) <= ENVELOPE_FIELDS:
        try:
            return TacticEvent.model_validate(payload)
        except ValidationError as exc:
            reasons = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
            return TacticEvent(kind="error", data={"message": "Invalid SSE event envelope."},
                               metadata={"payload": payload, "errors": reasons})
    return TacticEvent(kind="message", data=payload)


class SSEDecoder:
    """Feed it lines one by one; it returns the events each line completes (SSE: a blank line ends one)."""

    def __init__(self):
        self.data: list[str] = []

    def feed(self, line) -> list[TacticEvent]:
        if not isinstance(line, str):
            return [TacticEvent(kind="error", data={"message": "Invalid SSE stream line."},
                                metadata={"line_type": type(line).__name__,
                                          "errors": [f"an SSE line must be text, got {type(line).__name__}"]})]
        line = line.rstrip("\r\n")
        if line == "":
            return self.flush()
        field, _, value = line.partition(":")
        if field == "data":
            self.data.append(value.removeprefix(" "))
        return []                                   # comments (':...'), 'event:', 'id:' and 'retry:' are ignored

    def flush(self) -> list[TacticEvent]:
        if not self.data:
            return []
        text, self.data = "\n".join(self.data), []
        try:
            payload = json.loads(text)
        except json.JSONDecodeError:
            payload = text
        return [event_from_payload(payload)]


def iter_sse_events(lines):
    decoder = SSEDecoder()
    for line in lines:
        yield from decoder.feed(line)
    yield from decoder.flush()


async def aiter_sse_events(lines):
    decoder = SSEDecoder()
    async for line in lines:
        for event in decoder.feed(line):
            yield event
    for event in decoder.flush():
        yield event
