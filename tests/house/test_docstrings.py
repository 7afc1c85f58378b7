"""One house rule in one place: every module under lllm/ and export/ shows how it is used, and its examples run.

Each module is imported and its docstrings' `>>>` examples are run with doctest (ELLIPSIS on); a
module whose source holds an example must run at least one. Every module that is not a package
`__init__` or a command (commands show shell lines) has an example, except those in `NO_EXAMPLE`,
each with its reason. Two modules act when imported (`SKIP`, below), so they are left out.
"""

import doctest
import importlib
import pathlib

import pytest

from support.own_thread import own_thread

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Modules that act when imported: the command line runs, and the page adapter tells the predictors
# that "tinyllm" means the page's model (it runs only in Pyodide; importing it in CPython would
# change what every later make_predictor call returns).
SKIP = {"lllm.__main__", "lllm.web.browser"}
NO_EXAMPLE = {
    "lllm.cli": "a re-export of lllm-core's import path; the commands it names have their own",
    "lllm.integrations": "a re-export of lllm-core's import path (lllm.services.tactic_card has the example)",
    "lllm.runtimes.python": "a re-export of lllm-core's import path (lllm.runtimes.function_tactic has the example)",
    "lllm.services.fastapi": "a re-export of lllm-core's import path (lllm.services.tactic_app has the example)",
    "lllm.protocol._validation": "a re-export kept for lllm-core's own tests (validation.py has the examples)",
    "lllm.services.client": "a re-export of lllm-core's import path (composition/remote.py has the example)",
    "lllm.model.onnx_backend": "needs a trained model file; tests/model/test_onnx_backend.py runs it",
    "lllm.predictors.http_predictor": "needs an HTTP server; tests/predictors/test_http_predictor.py starts one",
    "export.build": "trains a model (minutes); make model runs it",
    "export.agent_recipe": "trains a model; its functions' examples live in tests/export/test_agent_model.py",
}


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
@own_thread                   # examples may call asyncio.run; the browser tests' loop must not be in the way
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    source = pathlib.Path(module.__file__).read_text(encoding="utf-8")
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} docstring examples failed (run it with -s)"
    if ">>>" in source:
        assert result.attempted > 0, f"{name}: its examples were not found by doctest (are they in a docstring?)"


def needs_an_example(name: str) -> bool:
    path = ROOT / (name.replace(".", "/") + ".py")
    return path.is_file() and not name.startswith("lllm.commands.") and name not in NO_EXAMPLE


@pytest.mark.parametrize("name", [n for n in MODULES if needs_an_example(n)])
def test_every_module_shows_how_it_is_used(name):
    source = (ROOT / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    assert ">>>" in source, f"{name}: its docstring needs a runnable example (or a reason in NO_EXAMPLE)"


def test_every_exemption_is_a_module_without_an_example():
    for name in NO_EXAMPLE:
        assert name in MODULES and ">>>" not in (ROOT / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8"), name


def test_a_failing_example_fails(tmp_path, monkeypatch):
    (tmp_path / "wrong_example.py").write_text('"""\n>>> 1 + 1\n3\n"""\n', encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("wrong_example")
    assert doctest.testmod(module, report=False).failed == 1
