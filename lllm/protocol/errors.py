"""Layer 3 · protocol errors: one family, so a caller can catch every LLLM failure with `LLLMError`.

Read first; everything in `lllm/protocol/` raises these (or Pydantic's `ValidationError` for a
malformed model field, as lllm-core does).

Usage:

    >>> issubclass(SchemaError, ProtocolError) and issubclass(ProtocolError, LLLMError)
    True
"""

__all__ = ["LLLMError", "ProtocolError", "SchemaError", "TacticError", "TacticLoadError", "TacticRefError",
           "TacticServiceError", "TacticUnsupportedError"]


class LLLMError(Exception):
    """The root of every error LLLM raises on purpose."""


class ProtocolError(LLLMError):
    """A tactic call broke the protocol (bad input, bad output, bad reference)."""


class SchemaError(ProtocolError, ValueError):
    """A value did not fit the tactic's input or output type; the message names the field."""


class TacticError(LLLMError):
    """The tactic itself failed while running."""


class TacticLoadError(LLLMError):
    """A tactic could not be imported or built from its entry point."""


class TacticRefError(ProtocolError, ValueError):
    """A `psi://` reference is malformed."""


class TacticServiceError(LLLMError):
    """A served tactic answered with an error."""


class TacticUnsupportedError(LLLMError):
    """The tactic does not offer what was asked (streaming, a capability)."""
