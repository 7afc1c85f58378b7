"""Layer 3 · lllm-core's private path for the protocol's checks: its own tests import
`public_boundary_value` from here. The checks live in `validation.py`; import them from there.
"""

from lllm.protocol.validation import public_boundary_value

__all__ = ["public_boundary_value"]
