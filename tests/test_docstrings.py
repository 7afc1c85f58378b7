"""One house rule in one place: every docstring example under lllm/ and export/ runs.

Each module is imported and its docstrings' `>>>` examples are run with doctest (ELLIPSIS on); a
module whose docstrings hold an example must run at least one. `lllm/__main__.py` runs the command
line when imported, so it is the one module left out.
"""

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SKIP = {"lllm.__main__"}


def modules() -> list[str]:
    names = []
    for folder in ("lllm", "export"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            if name not in SKIP:
                names.append(name)
    return names


MODULES = modules()


def test_every_module_is_found():
    assert {"lllm", "lllm.model.sampling", "export.model", "lllm.runtimes.native.core.dialog"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    source = pathlib.Path(module.__file__).read_text(encoding="utf-8")
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} docstring examples failed (run it with -s)"
    if ">>>" in source:
        assert result.attempted > 0, f"{name}: its examples were not found by doctest (are they in a docstring?)"


def test_a_failing_example_fails(tmp_path, monkeypatch):
    (tmp_path / "wrong_example.py").write_text('"""\n>>> 1 + 1\n3\n"""\n', encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("wrong_example")
    assert doctest.testmod(module, report=False).failed == 1
