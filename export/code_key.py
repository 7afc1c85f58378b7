"""Layer 1 · the code half of a build key: what in the sources shapes a model, blind to where it lives.

It consumes no layer of `lllm/` at run time: it reads `export/` and `lllm/` source files as text
(the modules the agent model's build reaches, layers 1-4) and never imports them.

A build key must change when the bytes a build writes can change, and only then: the committed
agent model is reused while its card's key matches, and a changed key retrains it (~45 min).
Hashing whole files made every move, docstring or command-line edit a retrain. Here the code part
of the key is the set of the definitions the build can run, each in a normal form:

- reached by name from an entry point (`module:name`): a top-level function, class or
  assignment, then every top-level name its body uses, followed through imports (lazy ones
  inside functions too, and package re-exports) to the module that defines it. Code the build
  never calls (command lines, other labs) is never reached, whichever file it sits in.
- each definition as `ast.dump` of its statements with docstrings, imports (they say where a
  name lives, and the names they bring in are followed) and `print(...)` statements removed (what
  a build says is not what it builds); comments and line numbers are not in the AST.
- keyed by its name, not its file: moving a definition to another module changes nothing;
  changing its body, its name or a constant it uses changes the key.
- the module-level statements that are not definitions or imports (e.g. export/__init__.py's
  OpenBLAS pin), of every module reached and of its parent packages: they run on import.
- `stop` names are not followed: the key's own code (`build_key`) does not hash itself.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "pkg").mkdir()
    >>> _ = (root / "pkg" / "__init__.py").write_text("")
    >>> _ = (root / "pkg" / "a.py").write_text('from pkg.b import f\\ndef g():\\n    "Doc."\\n    return f() + 1\\n')
    >>> _ = (root / "pkg" / "b.py").write_text("def f():\\n    return 2  # two\\n")
    >>> before = code_digest([("pkg.a", "g")], root)
    >>> _ = (root / "pkg" / "a.py").write_text("def f():\\n    return 2\\ndef g():\\n    return f() + 1\\n")
    >>> code_digest([("pkg.a", "g")], root) == before          # f moved into a.py, docstring gone
    True
    >>> _ = (root / "pkg" / "a.py").write_text("def f():\\n    return 3\\ndef g():\\n    return f() + 1\\n")
    >>> code_digest([("pkg.a", "g")], root) == before          # f's body changed
    False
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

__all__ = ["code_digest", "reached_definitions"]


class _Module:
    """One source file: its top-level definitions (name -> statements), the names its top-level
    imports bind (name -> (module, name or None for a module)) and its other statements."""

    def __init__(self, name: str, path: Path, is_package: bool):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        self.name, self.is_package = name, is_package
        self.defs: dict[str, list[ast.stmt]] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}
        self.bare: list[ast.stmt] = []
        for node in _without_docstring(tree.body):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports.update(_bindings(node, name, is_package))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs.setdefault(node.name, []).append(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            self.defs.setdefault(n.id, []).append(node)
            elif _mutated(node) in self.defs:                # `SOURCES.append(...)` belongs to SOURCES
                self.defs[_mutated(node)].append(node)
            elif not _is_main_guard(node):
                self.bare.append(node)


def _mutated(node) -> str | None:
    """X for a statement `X.method(...)`."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
            and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name):
        return node.value.func.value.id
    return None


def _is_main_guard(node) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _bindings(node, module: str, is_package: bool) -> dict[str, tuple[str, str | None]]:
    """What an import binds: `import a.b` -> {"a": ("a", None)}; `from m import x as y` -> {"y": ("m", "x")}."""
    if isinstance(node, ast.Import):
        return {a.asname or a.name.split(".")[0]: (a.name if a.asname else a.name.split(".")[0], None)
                for a in node.names}
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[:len(base) - (node.level - 1)] + ([node.module] if node.module else [])
        source = ".".join(base)
    else:
        source = node.module or ""
    return {a.asname or a.name: (source, a.name) for a in node.names if a.name != "*"}


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


class _Normal(ast.NodeTransformer):
    """Docstrings, imports (a lazy import says where, not what) and print(...) statements out;
    an emptied body becomes `pass`."""

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                kept = [s for s in (_without_docstring(body) if field == "body" and isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else body) if not _is_print(s) and not isinstance(s, (ast.Import, ast.ImportFrom))]
                setattr(node, field, kept or ([ast.Pass()] if field == "body" else []))
        return node


def _is_print(stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "print")


def _normal(node: ast.stmt) -> str:
    import copy
    return ast.dump(_Normal().visit(copy.deepcopy(node)))


class _Sources:
    """The modules under `root`, parsed on first use."""

    def __init__(self, root: Path):
        self.root, self.cache = root, {}

    def get(self, name: str) -> _Module | None:
        if name not in self.cache:
            path = self.root.joinpath(*name.split("."))
            if path.with_suffix(".py").is_file():
                self.cache[name] = _Module(name, path.with_suffix(".py"), False)
            elif (path / "__init__.py").is_file():
                self.cache[name] = _Module(name, path / "__init__.py", True)
            else:
                self.cache[name] = None                  # outside the tree: numpy, onnx, the stdlib
        return self.cache[name]


def reached_definitions(entries, root: Path, stop=("build_key",)) -> dict[str, set[str]]:
    """name -> the normal forms of every definition of that name reached from `entries`
    ((module, name) pairs), plus "" -> the bare module-level statements of the modules reached."""
    sources, found, seen = _Sources(Path(root)), {"": set()}, set()
    todo, modules = list(entries), set()
    while todo:
        module_name, name = todo.pop()
        if (module_name, name) in seen or name in stop:
            continue
        seen.add((module_name, name))
        module = sources.get(module_name)
        if module is None:
            continue
        if name in module.imports and name not in module.defs:          # a re-export: follow it
            source, original = module.imports[name]
            if original is not None:
                todo.append((source, original))
            continue
        if name not in module.defs:
            continue
        parts = module_name.split(".")
        modules.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        for node in module.defs[name]:
            found.setdefault(name, set()).add(_normal(node))
            todo += _uses(node, module, sources)
    for module_name in sorted(modules):
        module = sources.get(module_name)
        if module is not None:
            found[""].update(_normal(node) for node in module.bare)
    return found


def _uses(node: ast.stmt, module: _Module, sources: _Sources) -> list[tuple[str, str]]:
    """The (module, name) pairs a definition's body refers to."""
    local = {}
    for inner in ast.walk(node):                         # lazy imports inside the definition
        if isinstance(inner, (ast.Import, ast.ImportFrom)):
            local.update(_bindings(inner, module.name, module.is_package))
    uses = []

    def target(name: str):
        if name in local:
            return local[name]
        if name in module.defs:
            return module.name, name
        return module.imports.get(name)

    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found = target(inner.id)
        elif isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name):
            bound = target(inner.value.id)               # `factory_tasks.make_suite` on a module
            found = None
            if bound and bound[1] is None:
                found = (bound[0], inner.attr)
            elif bound and sources.get(f"{bound[0]}.{bound[1]}") is not None:
                found = (f"{bound[0]}.{bound[1]}", inner.attr)
        else:
            continue
        if found is None:
            continue
        source, name = found
        if name is None:
            continue
        if sources.get(f"{source}.{name}") is not None:   # `from lllm.labs import factory_tasks`
            continue
        uses.append((source, name))
    for source, name in local.values():                  # a lazy `from m import x` is there to be used
        if name is not None and sources.get(f"{source}.{name}") is None:
            uses.append((source, name))
    return uses


def code_digest(entries, root: Path, stop=("build_key",)) -> str:
    """sha256 of `reached_definitions`: the same for the same code wherever it lives."""
    found = reached_definitions(entries, root, stop)
    return hashlib.sha256(json.dumps({name: sorted(forms) for name, forms in found.items()},
                                     sort_keys=True).encode()).hexdigest()
