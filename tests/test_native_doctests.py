"""Every native-runtime module's docstring example runs, and every module stays within the line budget."""

import doctest
import importlib
import pathlib

import pytest

import lllm.runtimes.native as native

FOLDER = pathlib.Path(native.__file__).parent
# module paths inside the native folder and its sub-folders: "agent", "sandbox/worker", "sandbox/__init__"
MODULES = sorted(p.relative_to(FOLDER).with_suffix("").as_posix() for p in FOLDER.rglob("*.py"))


def dotted(name: str) -> str:
    return ".".join(["lllm.runtimes.native", *name.split("/")]).removesuffix(".__init__")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(dotted(name))
    assert module.__doc__ and "Usage:" in module.__doc__, f"{name}.py needs a docstring with a usage example"
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_modules_stay_within_300_code_lines(name):
    lines = (FOLDER / f"{name}.py").read_text().splitlines()
    code = [line for line in lines if line.strip() and not line.strip().startswith("#")]
    assert len(code) <= 300, f"{name}.py has {len(code)} code lines"
