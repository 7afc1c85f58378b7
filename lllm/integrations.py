"""lllm-core's import path for the PsiHub metadata helper: `from lllm.integrations import tactic_resource`.

The code lives with the service API (`lllm/services/psihub.py`); this root module only keeps
lllm-core's name for it.
"""

from lllm.services.psihub import tactic_resource

__all__ = ["tactic_resource"]
