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

from hooks import architecture, layers

ROOT = pathlib.Path(__file__).resolve().parents[2]
GRAPH = architecture.import_graph()
FOLDER_LAYER = {name: layer for name, layer, _ in layers.FOLDERS}     # the one table (hooks/layers.py)
LAYER_NAMES = layers.LAYER_NAMES
# The root: lllm-core's import paths kept as short re-export modules (`lllm.cli`, `lllm.integrations`),
# the package's lazy public names, the one lazy loader every package uses (`lllm.lazy`) and `python -m
# lllm`. They sit outside the order.
ROOT_MODULES = {"lllm", "lllm.cli", "lllm.__main__", "lllm.integrations", "lllm.lazy"}
LAYERED = sorted(name for name in GRAPH if name not in ROOT_MODULES)


def folder_layer(name: str) -> int:
    return FOLDER_LAYER[name.split(".")[1]]


def layer_of(name: str) -> int:
    """The layer the module's docstring names (checked against its folder below)."""
    doc = ast.get_docstring(ast.parse((ROOT / GRAPH[name].path).read_text(encoding="utf-8"))) or ""
    found = re.match(r"(Layer ([1-4])|Platform adapter|Command line) · ", doc)
    assert found, (f"{GRAPH[name].path}: the docstring's first line must open with 'Layer N · ', "
                   "'Platform adapter · ' or 'Command line · '")
    return int(found.group(2)) if found.group(2) else {"Platform adapter": 5, "Command line": 6}[found.group(1)]


@pytest.mark.parametrize("name", LAYERED)
def test_the_docstring_names_the_folders_layer(name):
    expected = folder_layer(name)
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


def private_imports(path: pathlib.Path, text: str | None = None) -> list[str]:
    """Private names (`_x`) imported from another module, and private modules (`pkg._x`) imported from
    outside their own package."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    here = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lllm"):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
        modules = ([node.module] if isinstance(node, ast.ImportFrom) and node.module else
                   [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for module in modules:
            parts = module.split(".")
            private = [i for i, part in enumerate(parts) if part.startswith("_") and not part.startswith("__")]
            if module.startswith("lllm") and private and ".".join(parts[:private[0]]) != here:
                found.append(module)
    return found


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_no_module_imports_another_modules_private_names(name):
    found = private_imports(ROOT / GRAPH[name].path)
    assert not found, f"{GRAPH[name].path} imports private names {found}: make them public or move them"


def test_the_private_import_check_can_fail():
    text = ("from lllm.protocol._validation import public_boundary_value\n"
            "from lllm.model.sampling import _private\n")
    assert private_imports(ROOT / "lllm" / "agents" / "x.py", text) == ["lllm.protocol._validation",
                                                                       "lllm.model.sampling._private"]
    assert private_imports(ROOT / "lllm" / "protocol" / "x.py", text) == ["lllm.model.sampling._private"]


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


def test_the_one_table_names_every_folder():
    on_disk = {p.parent.name for p in (ROOT / "lllm").glob("*/__init__.py")}
    assert on_disk == set(FOLDER_LAYER), f"hooks/layers.py FOLDERS differs from lllm/'s folders: {sorted(on_disk ^ set(FOLDER_LAYER))}"


def test_the_package_docstring_shows_the_one_table():
    import lllm
    assert layers.layer_map() in lllm.__doc__, f"lllm/__init__.py's map has drifted; it should read:\n{layers.layer_map()}"


def importers_of_the_command_line() -> list[str]:
    edge = ("lllm.commands", "lllm.cli")
    return sorted(name for name in GRAPH if name not in ROOT_MODULES and not name.startswith("lllm.commands")
                  and any(t == e or t.startswith(e + ".") for t in GRAPH[name].imports for e in edge))


def test_no_library_module_imports_the_command_line():
    assert importers_of_the_command_line() == [], "the command line imports the library, never the reverse"


def folder_of(name: str, depth: int) -> str:
    module = GRAPH[name]
    parts = name.split(".") if module.is_package else name.split(".")[:-1]
    return ".".join(parts[:depth + 1])


def folder_cycles(depth: int) -> list[tuple[str, str]]:
    """Pairs of folders (at `depth` below lllm) whose modules import each other, directly. A package's
    `__init__` only re-exports, so it is nobody's importer here (as in the cycle finder)."""
    edges = {(folder_of(name, depth), folder_of(t, depth)) for name in LAYERED for t in GRAPH[name].imports
             if t not in ROOT_MODULES and t in GRAPH and not GRAPH[name].is_package}
    return sorted((a, b) for a, b in edges if a < b and (b, a) in edges and a != b)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_no_two_folders_import_each_other(depth):
    assert folder_cycles(depth) == [], f"folders that import each other: {folder_cycles(depth)}"


def test_each_roadmap_piece_sits_on_its_modules_layer():
    """roadmap.yml's layer for a piece is the layer its modules' docstrings name (page adapters and the
    command line and the root are the front ends of layer-4 pieces)."""
    import fnmatch
    from hooks import roadmap
    wrong = []
    for item in roadmap.load().items:
        for name in LAYERED:
            if not GRAPH[name].is_package and any(fnmatch.fnmatchcase(name, p) for p in item.modules):
                layer = layer_of(name)
                if layer != item.layer and not (layer in (5, 6) and item.layer == 4):
                    wrong.append(f"{item.id} (layer {item.layer}) owns {name} ({LAYER_NAMES[layer]})")
    assert not wrong, wrong
