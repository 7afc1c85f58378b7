"""Rules that keep lllm/ honest (site/design.md: the layers and the house style): stdlib-only, no browser imports in the core,
and a docstring on every module (tests/house/test_layers.py checks the layers and prints the line table)."""

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODULES = sorted(p for p in (ROOT / "lllm").rglob("*.py"))
BROWSER_ADAPTERS = {"browser.py", "yourmodel.py", "page_tools.py"}   # the only files allowed to import js / pyodide (lazily)
# The native runtime, the protocol layer, its service models and the Pydantic AI adapter use Pydantic,
# as lllm-core does; nothing else may.
PYDANTIC_PACKAGES = ("lllm/runtimes/native/", "lllm/protocol/", "lllm/services/", "lllm/runtimes/pydantic_ai.py", "lllm/runtimes/tactic_tools.py")


def top_level_imports(path):
    """Modules imported at import time (module level, not inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
        elif isinstance(node, (ast.If, ast.Try)):
            # `if TYPE_CHECKING:` / try-import blocks count too
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import):
                    names += [a.name.split(".")[0] for a in sub.names]
                elif isinstance(sub, ast.ImportFrom) and sub.level == 0 and sub.module:
                    names.append(sub.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_stdlib_only_at_import_time(path):
    allowed = set(sys.stdlib_module_names) | {"lllm", "__future__"}
    if path.name in BROWSER_ADAPTERS:
        allowed |= {"js", "pyodide"}
    if str(path.relative_to(ROOT)).startswith(PYDANTIC_PACKAGES):
        allowed |= {"pydantic"}
    foreign = [name for name in top_level_imports(path) if name not in allowed]
    assert not foreign, f"{path.relative_to(ROOT)} imports {foreign} at module level (import lazily inside the adapter)"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_the_browser(path):
    if path.name in BROWSER_ADAPTERS:
        return
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] in ("js", "pyodide") for a in node.names), path
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.module.split(".")[0] not in ("js", "pyodide"), path


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_opens_with_a_docstring(path):
    assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))), f"{path} has no module docstring"


def test_import_lllm_pulls_in_no_third_party_module():
    import subprocess
    code = ("import sys, lllm; bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'onnxruntime', 'onnx', 'js', 'pyodide', 'pydantic', 'pydantic_core')); print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_every_public_name_of_the_package_resolves_lazily():
    import subprocess
    code = ("import sys, lllm; before = set(sys.modules); names = list(lllm.__all__); "
            "print(len(names), 'lllm.runtimes.native' in before, "
            "all(getattr(lllm, n) is not None for n in names), 'lllm.runtimes.native' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    count, loaded_early, resolved, loaded_late = out.stdout.split()
    assert int(count) > 20 and loaded_early == "False" and resolved == "True" and loaded_late == "True"


def test_an_unknown_name_is_an_attribute_error():
    import lllm
    with pytest.raises(AttributeError, match="no attribute 'Nonsense'"):
        lllm.Nonsense
