"""Layer 3 · runtimes: ways to build agents on top of the Predictor seam.

`lllm.runtimes.native` is the LLLM native runtime: Tactic, Agent, Prompt, Dialog,
with parsers, repair handlers, tools and configuration, in pure Python.

`lllm.runtimes.python` wraps a plain function as a protocol Tactic (`as_tactic`),
`lllm.runtimes.pydantic_ai` a Pydantic AI agent (`PydanticAITactic`), and
`lllm.runtimes.tactic_tools` turns any tactic into a plain tool function. Importing
this package imports none of them, so the seed-000 layers never pay for Pydantic.
"""

__all__ = ["CallableTactic", "NativeTacticAdapter", "PydanticAITactic", "PydanticAITacticConfig", "as_tactic",
           "tactic_as_tool"]


def __getattr__(name: str):
    """`lllm.runtimes.as_tactic` and friends, imported on first use (PEP 562)."""
    import importlib
    where = {"CallableTactic": "lllm.runtimes.python", "as_tactic": "lllm.runtimes.python",
             "NativeTacticAdapter": "lllm.runtimes.native.adapter",
             "PydanticAITactic": "lllm.runtimes.pydantic_ai", "PydanticAITacticConfig": "lllm.runtimes.pydantic_ai",
             "tactic_as_tool": "lllm.runtimes.tactic_tools"}
    if name not in where:
        raise AttributeError(f"module 'lllm.runtimes' has no attribute {name!r}")
    return getattr(importlib.import_module(where[name]), name)
