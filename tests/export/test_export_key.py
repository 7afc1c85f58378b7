"""The agent model's build key (export/code_key.py, export/agent_build.py): blind to where code lives,
to docstrings, comments and command lines; changed by a change to code the build runs. Each case edits
a copy of export/ and lllm/ and computes the code digest on it."""

import ast
import shutil
from pathlib import Path

import pytest

from export import agent_build, code_key
from export.code_key import code_digest

ROOT = Path(__file__).resolve().parents[2]
ENTRY = [agent_build.ENTRY]


@pytest.fixture()
def tree(tmp_path):
    for package in ("export", "lllm"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "trained"))
    return tmp_path


def cut(path: Path, name: str) -> str:
    """Remove the top-level definition `name` (decorators included) from `path`; return its source."""
    text = path.read_text()
    node = next(n for n in ast.parse(text).body if getattr(n, "name", None) == name)
    lines = text.splitlines(keepends=True)
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    path.write_text("".join(lines[:start] + lines[node.end_lineno:]))
    return "".join(lines[start:node.end_lineno])


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def test_the_committed_cards_key_is_todays_code_digest():
    assert code_digest(ENTRY, ROOT) == code_digest(ENTRY, ROOT)          # deterministic
    found = code_key.reached_definitions(ENTRY, ROOT)
    assert {"train_agent", "learning_rate", "make_task", "reshape", "run_react", "to_onnx_ensemble"} <= set(found)
    assert not {"main", "add_cli", "run_cli", "build_key", "SOURCES"} & set(found)     # command lines, the key itself


def test_docstrings_comments_and_prints_do_not_change_the_key(tree):
    before = code_digest(ENTRY, tree)
    recipe = tree / "export" / "agent_recipe.py"
    edit(recipe, '    """Train from scratch on fresh factory episodes', '    """Train, from scratch, on fresh factory episodes')
    edit(recipe, "    tok = vocabulary()\n", "    tok = vocabulary()                # the story model's characters\n")
    edit(recipe, "        if progress and (step % 500 == 0", "        print('step', step)\n        if progress and (step % 500 == 0")
    edit(tree / "export" / "agent_build.py", "`--force` trains anyway", "`--force` always trains")
    assert code_digest(ENTRY, tree) == before


def test_moving_code_between_files_does_not_change_the_key(tree):
    before = code_digest(ENTRY, tree)
    recipe = tree / "export" / "agent_recipe.py"                # learning_rate moves to export/train.py
    moved = cut(recipe, "learning_rate")
    (tree / "export" / "train.py").write_text((tree / "export" / "train.py").read_text() + "\n\n" + moved)
    edit(recipe, "from export.train import AdamW, clip_global_norm", "from export.train import AdamW, clip_global_norm, learning_rate")
    tasks = tree / "lllm" / "labs" / "factory" / "tasks.py"   # a module renamed: its importers follow
    tasks.rename(tasks.with_name("task_grammar.py"))
    for path in [*(tree / "lllm").rglob("*.py"), *(tree / "export").glob("*.py")]:
        text = path.read_text()
        if "lllm.labs.factory.tasks" in text:
            path.write_text(text.replace("lllm.labs.factory.tasks", "lllm.labs.factory.task_grammar"))
    assert code_digest(ENTRY, tree) == before


@pytest.mark.parametrize("path, old, new", [
    ("export/agent_recipe.py", "return settings.lr * (0.1 + 0.9 * 0.5", "return settings.lr * (0.2 + 0.8 * 0.5"),   # the schedule
    ("export/model.py", "def init_params(", "def init_params_renamed(x):\n    return x\n\n\ndef init_params("),
    ("lllm/labs/factory/tasks.py", "SAME_NUMBER = ", "SAME_NUMBER = 1 + "),                                   # training text
    ("export/__init__.py", '"Haswell"', '"SkylakeX"'),                                                        # the kernels
])
def test_a_change_to_code_the_build_runs_changes_the_key(tree, path, old, new):
    before = code_digest(ENTRY, tree)
    edit(tree / path, old, new)
    changed = code_digest(ENTRY, tree) != before
    assert changed == (path != "export/model.py"), "an unreached new function must not change the key"
