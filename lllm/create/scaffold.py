"""Layer 4 · the app scaffold: `python -m lllm create NAME` writes a package that runs and tests offline.

Read `runtime.py` first (what lllm.toml declares); `create.py` holds the `create` command, which
also writes the tactic service projects of `templates.py`. The files below are the whole app; each is a
named template string, so this module is also a compact example of a complete LLLM package:

    NAME/lllm.toml                       the package: prompts/, tactics/ and configs/ are discovered
    NAME/prompts/writer.md, reviewer.md  system prompts, referenced as <package>:writer
    NAME/tactics/draft_and_review.py     the tactic (the native runtime's first example)
    NAME/configs/default.toml            scripted replies: runs with no model at all
    NAME/configs/tinyllm.toml            base = "default", switched to TinyLLM (needs the model)
    NAME/main.py                         build(config) -> the tactic; `python main.py TOPIC`
    NAME/tests/test_smoke.py, pytest.ini the offline smoke test: `cd NAME && python -m pytest`

The package name is NAME with `-` turned into `_` (it must be a Python identifier).

Usage:

    >>> sorted(app_files("my-app"))[:3]
    ['configs/default.toml', 'configs/tinyllm.toml', 'lllm.toml']
    >>> app_files("my-app")["lllm.toml"].splitlines()[1]
    'name = "my_app"'
"""

from __future__ import annotations

import os

__all__ = ["app_files", "create_app"]

LLLM_TOML = '''[package]
name = "{package}"

# prompts/, tactics/ and configs/ are discovered because they exist; tools/ and proxies/ would be too.
'''

WRITER_PROMPT = "Write a one-paragraph brief about {{topic}}.\n"
REVIEWER_PROMPT = "Tighten the draft you receive.\n"

TACTIC = '''from lllm import Tactic


class DraftAndReview(Tactic):
    """A writer drafts a brief; a reviewer tightens it."""
    name = "draft_and_review"
    agent_group = ["writer", "reviewer"]

    def call(self, task: str) -> str:
        writer, reviewer = self.agents["writer"], self.agents["reviewer"]

        writer.open("draft", prompt_args={{"topic": task}})
        draft = writer.respond().content

        reviewer.open("review")
        reviewer.receive(draft, name="writer")
        return reviewer.respond().content
'''

DEFAULT_CONFIG = '''tactic_type = "{package}:draft_and_review"

[global]
model_name = "scripted"
invoker = "scripted"

[[agent_configs]]
name = "writer"
system_prompt_path = "{package}:writer"
invoker_config = {{ replies = ["Dialogs are trees: every fork keeps its parent intact."] }}

[[agent_configs]]
name = "reviewer"
system_prompt_path = "{package}:reviewer"
invoker_config = {{ replies = ["Dialogs are trees; forks never change their parent."] }}
'''

TINYLLM_CONFIG = '''base = "default"

[global]
model_name = "tinyllm"
invoker = "tinyllm"
invoker_config = {{ path = "build/model/tinyllm.onnx", max_new_tokens = 120 }}
'''

MAIN = '''"""{package}: build the tactic from a config and run it. `python main.py "dialog trees"`."""

import os
import sys

from lllm import build_tactic, load_runtime, resolve_config

HERE = os.path.dirname(os.path.abspath(__file__))


def build(config: str = "default"):
    runtime = load_runtime(HERE)
    return build_tactic(resolve_config(config, runtime), runtime)


if __name__ == "__main__":
    session = build()(sys.argv[1] if len(sys.argv) > 1 else "dialog trees", return_session=True)
    print(session.delivery)
    print(session.report())
'''

SMOKE_TEST = '''"""Runs offline: the default config uses scripted replies."""

from main import build


def test_the_tactic_runs_on_scripted_replies():
    session = build()("dialog trees", return_session=True)
    assert session.state == "success"
    assert session.delivery == "Dialogs are trees; forks never change their parent."
    assert [s.agent for s in session.agent_sessions] == ["writer", "reviewer"]


def test_the_writer_saw_the_topic():
    session = build()("dialog trees", return_session=True)
    assert "brief about dialog trees" in session.agent_sessions[0].steps[0].shown
'''

PYTEST_INI = "[pytest]\npythonpath = .\ntestpaths = tests\n"


def app_files(name: str) -> dict[str, str]:
    package = name.replace("-", "_")
    if not package.isidentifier():
        raise ValueError(f"app name {name!r} must be letters, digits, '_' or '-' (and not start with a digit)")
    fill = {"package": package}
    return {"lllm.toml": LLLM_TOML.format(**fill), "prompts/writer.md": WRITER_PROMPT.format(**fill),
            "prompts/reviewer.md": REVIEWER_PROMPT.format(**fill), "tactics/draft_and_review.py": TACTIC.format(**fill),
            "configs/default.toml": DEFAULT_CONFIG.format(**fill), "configs/tinyllm.toml": TINYLLM_CONFIG.format(**fill),
            "main.py": MAIN.format(**fill), "tests/test_smoke.py": SMOKE_TEST, "pytest.ini": PYTEST_INI}


def create_app(name: str, parent: str = ".") -> str:
    """Write the app into `parent/name` (which must not exist yet); returns its path."""
    root = os.path.join(parent, name)
    files = app_files(name)
    if os.path.exists(root):
        raise FileExistsError(f"{root} already exists; choose another name or remove it")
    for relative, text in files.items():
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return root
