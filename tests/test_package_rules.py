"""Rules that keep lllm/ honest (DESIGN.md §1, STYLE.md): stdlib-only, no browser imports in the core,
a docstring on every module, and a visible line budget per file."""

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = sorted(p for p in (ROOT / "lllm").rglob("*.py"))
BROWSER_ADAPTERS = {"browser.py"}          # the only files allowed to import js / pyodide (lazily)
# The native runtime and the protocol layer use Pydantic, as lllm-core does; nothing else may.
PYDANTIC_PACKAGES = ("lllm/runtimes/native/", "lllm/protocol/")
CEILING = 400                              # STYLE.md: aim for <= 300 code lines, 400 is the ceiling


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


def code_lines(path):
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.strip().startswith("#"))


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


def test_line_budget():
    rows = sorted(((code_lines(p), str(p.relative_to(ROOT))) for p in MODULES), reverse=True)
    print("\ncode lines per file (STYLE.md: aim <= 300, ceiling 400)")
    for n, name in rows:
        print(f"  {n:4d}  {name}")
    over = [f"{name} ({n})" for n, name in rows if n > CEILING]
    assert not over, f"over the {CEILING}-line ceiling: {over}"


def test_import_lllm_pulls_in_no_third_party_module():
    import subprocess
    code = ("import sys, lllm; bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'onnxruntime', 'onnx', 'js', 'pyodide', 'pydantic', 'pydantic_core')); print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
