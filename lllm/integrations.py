"""lllm-core's import path for a tactic's public card: `from lllm.integrations import tactic_resource`.

A thin alias kept because lllm-core 0.2.1's own tests import it (tests/peer); the code is `lllm/services/tactic_card.py`.
"""

from lllm.services.tactic_card import tactic_resource

__all__ = ["tactic_resource"]
