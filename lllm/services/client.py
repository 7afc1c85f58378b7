"""Layer 4 · lllm-core's import path for the service client: `from lllm.services.client import RemoteTactic`.

The code is `lllm/runtimes/native/composition/remote.py` (the client) and `sse.py` (reading a
stream). lllm-core's own tests reach three helpers by private names; they are kept here as
aliases of our public ones.
"""

from lllm.runtimes.native.composition.remote import RemoteTactic, RemoteTacticError, request_envelope
from lllm.runtimes.native.composition.sse import aiter_sse_events, iter_sse_events

_request_envelope = request_envelope
_iter_sse_events = iter_sse_events
_aiter_sse_events = aiter_sse_events

__all__ = ["RemoteTactic", "RemoteTacticError"]
