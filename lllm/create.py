"""lllm-core's import path for `create_project`: `from lllm.create import create_project`.

The code lives in the native runtime's folder (`lllm/runtimes/native/create.py`, templates in
`project_templates.py`); this root module only keeps lllm-core's name for it.
"""

from lllm.runtimes.native.create import ProjectResult, create_project

__all__ = ["ProjectResult", "create_project"]
