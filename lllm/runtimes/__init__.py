"""Layer 3 · runtimes: ways to build agents on top of the Predictor seam.

`lllm.runtimes.native` is the LLLM native runtime: Tactic, Agent, Prompt, Dialog,
with parsers, repair handlers, tools and configuration, in pure Python.

`lllm.runtimes.function_tactic` wraps a plain function as a protocol Tactic (`as_tactic`; lllm-core's
path `lllm.runtimes.python` is a thin alias of it),
`lllm.runtimes.pydantic_ai` a Pydantic AI agent (`PydanticAITactic`), and
`lllm.runtimes.tactic_tools` turns any tactic into a plain tool function. Importing
this package imports none of them, so the seed-000 layers never pay for Pydantic.
"""

from lllm.lazy import exported_names, lazy_exports

_EXPORTS = {
    "lllm.runtimes.function_tactic": ["CallableTactic", "as_tactic"],
    "lllm.runtimes.native.adapter": ["NativeTacticAdapter"],
    "lllm.runtimes.pydantic_ai": ["PydanticAITactic", "PydanticAITacticConfig"],
    "lllm.runtimes.tactic_tools": ["tactic_as_tool"],
}
__all__ = exported_names(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)     # lllm/lazy.py: imported on first use
