"""Layer 3 · lllm-core's import path for a function as a tactic: `from lllm.runtimes.python import as_tactic`.

A thin alias kept because lllm-core 0.2.1's own tests import it (tests/peer); the code is `function_tactic.py`.
"""

from lllm.runtimes.function_tactic import CallableTactic, as_tactic

__all__ = ["CallableTactic", "as_tactic"]
