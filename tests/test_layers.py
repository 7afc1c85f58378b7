"""The layers, checked by reading every module (site/design.md, "The four layers").

Each folder of lllm/ is one layer. A module's docstring opens with that layer; it imports only from
its own layer or below (lazy imports inside functions count too), never another module's private
names, and no chain of imports leads back to where it started. `export/` says in its docstrings
which layers of the package it consumes. The per-layer, per-file line table is printed (`-s`).
"""

import ast
import pathlib
import re

import pytest

from hooks import architecture

ROOT = pathlib.Path(__file__).resolve().parent.parent
GRAPH = architecture.import_graph()
FOLDER_LAYER = {"model": 1, "predictors": 2, "agents": 3, "protocol": 3, "runtimes": 3, "reasoning": 3, "labs": 4,
                "services": 4, "web": 5}
LAYER_NAMES = {1: "Layer 1", 2: "Layer 2", 3: "Layer 3", 4: "Layer 4", 5: "Platform adapter"}
# The root: the dispatcher and its argument types (any layer may raise cli.UsageError), the
# package's lazy public names, `python -m lllm`, and lllm-core's import path `lllm.create` (a
# re-export of a native-runtime module), and `lllm.integrations` (a re-export of the service API's
# PsiHub helper). They sit outside the order.
ROOT_MODULES = {"lllm", "lllm.cli", "lllm.__main__", "lllm.create", "lllm.integrations"}
# Command modules kept beside the runtime they serve, as the real LLLM keeps them: layer 4 in a layer-3 folder.
LAYER_4_IN_NATIVE = {"lllm.runtimes.native.service", "lllm.runtimes.native.scaffold",
                     "lllm.runtimes.native.protocol_service", "lllm.runtimes.native.create",
                     "lllm.runtimes.native.project_templates", "lllm.runtimes.native.inspection"}
CEILING = 400                              # house style: aim for <= 300 code lines, 400 is the ceiling
LAYERED = sorted(name for name in GRAPH if name not in ROOT_MODULES)


def folder_layer(name: str) -> int:
    return FOLDER_LAYER[name.split(".")[1]]


def layer_of(name: str) -> int:
    """The layer the module's docstring names (checked against its folder below)."""
    doc = ast.get_docstring(ast.parse((ROOT / GRAPH[name].path).read_text(encoding="utf-8"))) or ""
    found = re.match(r"(Layer ([1-4])|Platform adapter) · ", doc)
    assert found, f"{GRAPH[name].path}: the docstring's first line must open with 'Layer N · ' or 'Platform adapter · '"
    return int(found.group(2)) if found.group(2) else 5


@pytest.mark.parametrize("name", LAYERED)
def test_the_docstring_names_the_folders_layer(name):
    expected = 4 if name in LAYER_4_IN_NATIVE else folder_layer(name)
    assert layer_of(name) == expected, (f"{GRAPH[name].path} says {LAYER_NAMES[layer_of(name)]}, "
                                        f"its folder is {LAYER_NAMES[expected]}")


@pytest.mark.parametrize("name", LAYERED)
def test_nothing_imports_from_a_higher_layer(name):
    higher = [target for target in GRAPH[name].imports
              if target not in ROOT_MODULES and layer_of(target) > layer_of(name)]
    assert not higher, f"{GRAPH[name].path} ({LAYER_NAMES[layer_of(name)]}) imports from higher layers: {sorted(higher)}"


def test_the_layers_never_import_the_package_root():
    """`from lllm import X` is for users; inside the package, import from the module that defines X."""
    offenders = [name for name in LAYERED if "lllm" in GRAPH[name].imports]
    assert not offenders, offenders


# lllm-core's own tests import this module by its private name, so our protocol keeps the path.
UPSTREAM_PRIVATE_PATHS = {"lllm.protocol._validation"}


def private_imports(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"{node.module}.{alias.name}" for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lllm")
             for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
    return [name for name in found if name not in UPSTREAM_PRIVATE_PATHS]


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_no_module_imports_another_modules_private_names(name):
    found = private_imports(ROOT / GRAPH[name].path)
    assert not found, f"{GRAPH[name].path} imports private names {found}: make them public or move them"


def cycles(graph) -> list[list[str]]:
    """Every import cycle among plain modules (package __init__ files only re-export), as found by DFS."""
    edges = {name: sorted(t for t in m.imports if not graph[t].is_package)
             for name, m in graph.items() if not m.is_package}
    found, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for target in edges.get(node, ()):
            if state.get(target) == "open":
                found.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[node] = "done"
    for node in edges:
        if node not in state:
            visit(node, [node])
    return found


def test_there_are_no_import_cycles():
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle():
    loop = {"a": architecture.Module("a", "a.py", {"b"}), "b": architecture.Module("b", "b.py", {"a"}),
            "c": architecture.Module("c", "c.py", {"a"})}
    assert cycles(loop) == [["a", "b", "a"]]


def test_nothing_outside_the_page_adapters_imports_them():
    users = [name for name in GRAPH if folder_layer_or_root(name) != 5
             and any(t.startswith("lllm.web") for t in GRAPH[name].imports)]
    assert not users, users


def folder_layer_or_root(name: str) -> int | None:
    return None if name in ROOT_MODULES else folder_layer(name)


@pytest.mark.parametrize("path", sorted((ROOT / "export").glob("*.py")), ids=lambda p: p.name)
def test_export_says_which_layers_it_consumes(path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert re.search(r"\bconsumes\b", doc, re.I), f"{path.name}: say which layers of lllm/ it consumes"


def code_lines(path: pathlib.Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.strip().startswith("#"))


def test_line_table_per_layer_and_file():
    rows = {}
    for name in sorted(GRAPH):
        layer = "root" if name in ROOT_MODULES else LAYER_NAMES[layer_of(name)]
        rows.setdefault(layer, []).append((code_lines(ROOT / GRAPH[name].path), GRAPH[name].path))
    print("\ncode lines per layer and file (house style: aim <= 300, ceiling 400)")
    for layer in ["root"] + list(LAYER_NAMES.values()):
        files = sorted(rows.get(layer, []), reverse=True)
        print(f"  {layer}: {sum(n for n, _ in files)} lines in {len(files)} files")
        for n, path in files:
            print(f"    {n:4d}  {path}")
    over = [f"{path} ({n})" for files in rows.values() for n, path in files if n > CEILING]
    assert not over, f"over the {CEILING}-line ceiling: {over}"


def test_each_roadmap_piece_sits_on_its_modules_layer():
    """roadmap.yml's layer for a piece is the layer its modules' docstrings name (page adapters and the
    root are the front ends of layer-4 pieces)."""
    import fnmatch
    from hooks import roadmap
    wrong = []
    for item in roadmap.load().items:
        for name in LAYERED:
            if not GRAPH[name].is_package and any(fnmatch.fnmatchcase(name, p) for p in item.modules):
                layer = layer_of(name)
                if layer != item.layer and not (layer == 5 and item.layer == 4):
                    wrong.append(f"{item.id} (layer {item.layer}) owns {name} ({LAYER_NAMES[layer]})")
    assert not wrong, wrong
