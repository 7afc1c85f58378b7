"""Every test can fail: each `test_*` function under tests/ checks something itself, read with `ast`.

The rule. A test function (module level, or a method of a class) checks something when its own body, not
counting the bodies of functions or lambdas defined inside it, holds one of:

- an `assert` statement, or `raise AssertionError(...)`;
- a call of `pytest.raises`, `pytest.warns`, `pytest.fail`, `pytest.xfail` or `pytest.skip`;
- a call of Playwright's `expect(...)` (imported from playwright), whose matchers fail the test;
- a call of a helper defined under tests/ that itself checks something by this same rule (followed through
  any depth of helpers, cycles cut): a function of the same module or one defined inside the test, a
  function imported from another module under tests/ (`from support.engines import check_report`,
  `engines.check_report(...)`, `from test_site_browser import wait_for_diagrams`), or a method, by its
  name, of a class defined under tests/ (`watched.assert_clean()`). A helper's name counts for nothing:
  `check_x()` that only returns a value is no check.

Assertions made by fixtures do not count: the test's own body must say what it checks.
"""

from __future__ import annotations

import ast
import pathlib
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
PYTEST_CHECKS = {"raises", "warns", "fail", "xfail", "skip"}
Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Module:
    """One parsed file: its functions (name -> def), its classes' methods, and what its names were imported as."""
    functions: dict[str, Function] = field(default_factory=dict)
    methods: dict[str, list[Function]] = field(default_factory=dict)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)   # local name -> (module, name or "")


def read_module(tree: ast.Module) -> Module:
    module = Module()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    module.methods.setdefault(item.name, []).append(item)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                module.imported[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                module.imported[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else alias.name.split(".")[0], "")
    return module


def own_nodes(function: Function):
    """The nodes of a function's own body: nested functions, lambdas and classes are skipped (only defined)."""
    todo = list(function.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))


class Checker:
    """Answers `checks(module, function)` over a set of modules: name ("support.engines", "conftest",
    "test_site_browser") -> Module. Unknown modules (the standard library, packages) never check."""

    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self.methods: dict[str, list[tuple[str, Function]]] = {}
        for name, module in modules.items():
            for method, defs in module.methods.items():
                self.methods.setdefault(method, []).extend((name, d) for d in defs)
        self.seen: dict[int, bool] = {}

    def checks(self, where: str, function: Function) -> bool:
        key = id(function)
        if key in self.seen:
            return self.seen[key]               # a cycle (or already answered): no new evidence from it
        self.seen[key] = False
        nested = {n.name: n for n in ast.walk(function) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not function}
        found = any(self.node_checks(where, node, nested) for node in own_nodes(function))
        self.seen[key] = found
        return found

    def node_checks(self, where: str, node: ast.AST, nested: dict[str, Function]) -> bool:
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            return isinstance(target, ast.Name) and target.id == "AssertionError"
        if isinstance(node, ast.Call):
            return self.call_checks(where, node.func, nested)
        return False

    def call_checks(self, where: str, func: ast.AST, nested: dict[str, Function]) -> bool:
        module = self.modules[where]
        if isinstance(func, ast.Name):
            if func.id in nested:
                return self.checks(where, nested[func.id])
            if func.id in module.functions:
                return self.checks(where, module.functions[func.id])
            source, name = module.imported.get(func.id, ("", ""))
            if source.startswith("playwright") and name == "expect":
                return True
            return self.imported_checks(source, name)
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name):
                source, name = module.imported.get(func.value.id, ("", ""))
                if source == "pytest" and not name:
                    return func.attr in PYTEST_CHECKS
                if not name and source:
                    return self.imported_checks(source, func.attr)
                if name and f"{source}.{name}" in self.modules:       # from support import engines
                    return self.imported_checks(f"{source}.{name}", func.attr)
            return any(self.checks(owner, method) for owner, method in self.methods.get(func.attr, []))
        return False

    def imported_checks(self, source: str, name: str, depth: int = 0) -> bool:
        module = self.modules.get(source)
        if module is None or depth > 5:
            return False
        if name in module.functions:
            return self.checks(source, module.functions[name])
        if name in module.imported:                                   # re-exported: follow it
            return self.imported_checks(*module.imported[name], depth=depth + 1)
        return False


def index(trees: dict[str, ast.Module]) -> dict[str, Module]:
    """The modules by the names tests import them as: "conftest", "support.engines", and test modules by
    their basename too ("test_site_browser": basenames are unique, pytest puts their folders on the path)."""
    modules = {name: read_module(tree) for name, tree in trees.items()}
    for name in list(modules):
        base = name.rsplit(".", 1)[-1]
        if base.startswith("test_") or base == "conftest":
            modules.setdefault(base, modules[name])
    return modules


def collected_tests(tree: ast.Module):
    """(name, def) of every test function: module level `test_*`, and `test_*` methods of classes."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    yield f"{node.name}.{item.name}", item


def unchecked(sources: dict[str, str]) -> list[str]:
    """The test functions, in `sources` (module name -> source), that check nothing: "module::test"."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    checker = Checker(index(trees))
    return [f"{name}::{test}" for name, tree in trees.items() for test, node in collected_tests(tree)
            if name.rsplit(".", 1)[-1].startswith("test_") and not checker.checks(name, node)]


def test_a_test_that_checks_nothing_is_found():
    helper = "def check_report(r):\n    assert r['ok']\n\ndef check_nothing(r):\n    return r\n"
    tests = ("import pytest\nfrom playwright.sync_api import expect\nfrom support import engines\nfrom support.engines import check_nothing\n"
             "def test_plain():\n    x = 1\n    print(x)\n"                                # nothing: found
             "def test_named_helper_that_does_not_check():\n    check_nothing(run())\n"    # a name is no check: found
             "def test_nested_assert_never_called():\n    def inner():\n        assert False\n    run(inner)\n"  # found
             "def test_lambda():\n    wait(lambda: (yield_()))\n"                             # found
             "def test_assert():\n    assert run() == 1\n"
             "def test_raises():\n    with pytest.raises(ValueError):\n        run()\n"
             "def test_skip():\n    pytest.skip('no browser')\n"
             "def test_helper_by_module():\n    engines.check_report(run())\n"
             "def test_local_helper():\n    local(run())\n"
             "def local(r):\n    if not r:\n        raise AssertionError(r)\n"
             "def test_nested_called():\n    def inner():\n        assert run()\n    inner()\n"
             "def test_expect(page):\n    expect(page.locator('h1')).to_be_visible()\n"
             "def test_method(page):\n    page.assert_clean()\n"
             "class TestGroup:\n    def test_in_class(self):\n        self.helper()\n    def helper(self):\n        return 1\n")
    conftest = "class WatchedPage:\n    def assert_clean(self):\n        assert not self.errors\n"
    found = unchecked({"support.engines": helper, "conftest": conftest, "folder.test_snippet": tests})
    assert found == ["folder.test_snippet::test_plain", "folder.test_snippet::test_named_helper_that_does_not_check",
                     "folder.test_snippet::test_nested_assert_never_called", "folder.test_snippet::test_lambda",
                     "folder.test_snippet::TestGroup.test_in_class"]


def test_a_cycle_of_helpers_checks_nothing_unless_one_asserts():
    assert unchecked({"a.test_cycle": "def f():\n    g()\ndef g():\n    f()\ndef test_x():\n    f()\n"}) == ["a.test_cycle::test_x"]
    assert unchecked({"a.test_cycle": "def f():\n    g()\ndef g():\n    f()\n    assert 1\ndef test_x():\n    f()\n"}) == []


def test_every_test_checks_something():
    sources = {}
    for path in sorted(TESTS.rglob("*.py")):
        sources[".".join(path.relative_to(TESTS).with_suffix("").parts)] = path.read_text(encoding="utf-8")
    assert len(sources) > 200, "the test files were not found"
    found = unchecked(sources)
    assert not found, "these tests check nothing themselves (see this file's docstring for what counts):\n" + "\n".join(found)
