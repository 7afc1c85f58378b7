"""Layer 4 · new projects, written whole or not at all: `create_project` and `create_app`.

    templates.py   the files of a tactic service project (plain, native, pydantic-ai)
    project.py     create_project(template, name): check every input, write, rename into place
    scaffold.py    create_app(name): a config-driven native-runtime app (lllm.toml, prompts/, tactics/)

`from lllm.create import create_project` is lllm-core's import path; `python -m lllm create` is
the command (lllm/commands/create.py).
"""

from lllm.create.project import ProjectResult, create_project

__all__ = ["ProjectResult", "create_project"]
