"""Layer 3 · the LLLM protocol: the typed Tactic and the values around a call, as in lllm-core.

Read in this order: `_validation` -> `fields` -> `errors` -> `context` -> `events` -> `tactic`.
Nothing here knows about runtimes or servers: the native runtime, `lllm serve` and the tool
adapters build on it, never the other way round.

Usage:

    >>> from lllm.protocol import CallContext, Tactic
    >>> class Echo(Tactic[str, str]):
    ...     input_type = output_type = str
    ...     def _run(self, input_value, *, context=None):
    ...         return input_value
    >>> Echo(name="echo").run("hi", context=CallContext(request_id="r1"), return_trace=True).trace.request_id
    'r1'
"""

from lllm.protocol.context import CallContext, CallResult, CallTrace
from lllm.protocol.errors import (LLLMError, ProtocolError, SchemaError, TacticError, TacticLoadError, TacticRefError,
                                  TacticServiceError, TacticUnsupportedError)
from lllm.protocol.events import TacticEvent
from lllm.protocol.tactic import Tactic, TacticInfo

__all__ = ["CallContext", "CallResult", "CallTrace", "LLLMError", "ProtocolError", "SchemaError", "Tactic",
           "TacticError", "TacticEvent", "TacticInfo", "TacticLoadError", "TacticRefError", "TacticServiceError",
           "TacticUnsupportedError"]
