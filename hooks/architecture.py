"""MkDocs hook: the architecture page's diagrams and interconnections table, from the code.

An AST walk over lllm/**/*.py finds which lllm module imports which (lazy imports inside functions
included). roadmap.yml says which piece owns which modules, and each piece's seed family and layer.
In a page:

- `<!-- lllm:pieces overview -->` becomes the four-layer overview: one node per seed family and
  layer (a "group"), arrows between groups.
- `<!-- lllm:pieces 004 -->` (or another name in VIEWS) becomes one seed family's diagram: each of
  its pieces by layer, coloured by status; other pieces linked to them appear as their group.
- `<!-- lllm:folders -->` becomes the table of lllm/'s folders (the layers), read from the tree;
  `<!-- lllm:layers -->`, `<!-- lllm:tree -->` and `<!-- lllm:exemplars -->` come from hooks/layers.py.
- `<!-- lllm:interconnections -->` becomes the table: module, piece, imports from, imported by,
  optional third-party imports. The table keeps every import; the diagrams draw structure.

In every diagram a solid arrow stands for real imports found in the code (provider --> user) and a
dotted arrow for a designed dependency of a piece whose code is not there yet. Arrows are drawn at
piece (or group) level, once per pair, and transitively reduced: A --> C is left out when a chain of
drawn arrows A --> B --> ... --> C already leads there (a solid arrow only by a chain of solid ones).
Package `__init__` modules only re-export: they are listed in the table but draw no arrows.
"""

from __future__ import annotations

import ast
import fnmatch
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from hooks import layers  # noqa: E402  (MkDocs loads hook files by path)
from hooks import roadmap as roadmap_mod  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "lllm"


@dataclass
class Module:
    name: str                                            # dotted, e.g. "lllm.model.generate"
    path: str                                            # relative to the repo root
    imports: set[str] = field(default_factory=set)       # lllm modules it imports
    external: set[str] = field(default_factory=set)      # top-level non-stdlib imports
    is_package: bool = False
    missing: set[str] = field(default_factory=set)       # lllm modules it imports that do not exist


def module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def resolve(node: ast.ImportFrom, current: str, is_package: bool) -> str:
    """The absolute module an ImportFrom names (`from .generate import x` in lllm.cli -> lllm.model.generate)."""
    if not node.level:
        return node.module or ""
    base = current.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, Module]:
    """Every module of `package` under `root`, with the package modules it imports."""
    modules: dict[str, Module] = {}
    for path in sorted((root / package).rglob("*.py")):
        name, is_package = module_name(path, root)
        modules[name] = Module(name, path.relative_to(root).as_posix(), is_package=is_package)
    trees = {name: ast.parse((root / m.path).read_text(encoding="utf-8"), m.path) for name, m in modules.items()}
    # what each package __init__ re-exports: `from lllm import Predictor` really uses lllm.predictors.contract
    reexports: dict[str, dict[str, str]] = {}
    for name, module in modules.items():
        if module.is_package:
            reexports[name] = {a.asname or a.name: resolve(node, name, True)
                               for node in trees[name].body if isinstance(node, ast.ImportFrom)
                               for a in node.names}
    for module in modules.values():
        for node in ast.walk(trees[module.name]):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = resolve(node, module.name, module.is_package)
                # `from lllm import generate` names a module; `from lllm import Predictor` names the package
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules
                           else reexports.get(base, {}).get(a.name, base) for a in node.names]
            for target in targets:
                top = target.split(".")[0]
                if top == package:
                    if target in modules and target != module.name:
                        module.imports.add(target)
                    elif target not in modules:
                        module.missing.add(target)
                elif top and top not in sys.stdlib_module_names and top != "__future__":
                    module.external.add(top)
    return modules


# ---- the pieces that own the modules ------------------------------------------------------------

def owners(roadmap, modules: dict[str, Module]) -> dict[str, str]:
    """module name -> roadmap item id (modules nobody claims are absent)."""
    found = {}
    for name in modules:
        for item in roadmap.items:
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in item.modules):
                found.setdefault(name, item.id)
    return found


def item_edges(roadmap, modules: dict[str, Module]) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(import edges, designed edges) between item ids, each as (provider, user)."""
    owner = owners(roadmap, modules)
    imports = set()
    for module in modules.values():
        if module.is_package or module.name not in owner:
            continue
        for target in module.imports:
            if target in owner and not modules[target].is_package and owner[target] != owner[module.name]:
                imports.add((owner[target], owner[module.name]))
    has_code = set(owner.values())
    designed = set()
    for item in roadmap.items:
        for used in item.uses:
            if (used, item.id) in imports:
                continue
            if item.id not in has_code or used not in has_code:
                designed.add((used, item.id))
    return imports, designed


# ---- what the diagrams draw: deduplicated, transitively reduced arrows --------------------------------

FAMILIES = {"000": "Prototype collection", "004": "Native runtime", "003": "Reasoning frameworks"}
STATUS_CLASSES = {"done": "done", "in progress": "progress", "planned": "planned"}
# Light fills in both colour schemes, so the text on them is dark in both (the scheme's own label
# colour is light in dark mode: 1.05:1 on these fills; tests/browser/test_diagram_layout.py checks it).
CLASS_DEFS = ["    classDef done fill:#c8e6c9,stroke:#2e7d32,color:#1b5e20",
              "    classDef progress fill:#fff3c4,stroke:#b28704,color:#5c4300",
              "    classDef planned fill:#eeeeee,stroke:#9e9e9e,stroke-dasharray:4 3,color:#333333"]


def reaches(edges: set[tuple[str, str]], start: str, goal: str, through=None) -> bool:
    """Whether a chain of `edges` leads from start to goal (passing only `through` nodes, if given)."""
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        for a, b in edges:
            if a == node and b not in seen:
                if b == goal:
                    return True
                if through is None or b in through:
                    seen.add(b)
                    todo.append(b)
    return False


def reduce_edges(edges: set[tuple[str, str]], via: set[tuple[str, str]] = frozenset(),
                 through=None) -> set[tuple[str, str]]:
    """Transitive reduction: drop each A -> C that the other kept edges (plus `via`) still connect,
    by a chain whose inner nodes are all in `through` (default: any node).

    Edges are tried one at a time in sorted order, so what can be reached never changes, even
    around a cycle (two pieces that import each other); on an acyclic graph the result is the
    unique transitive reduction."""
    kept = set(edges)
    for edge in sorted(edges):
        if reaches((kept | set(via)) - {edge}, *edge, through=through):
            kept.discard(edge)
    return kept


@dataclass
class Drawing:
    """One diagram's content: nodes (id -> label, status, layer) and reduced arrows."""
    nodes: dict[str, tuple[str, str, int]]
    solid: set[tuple[str, str]]
    dotted: set[tuple[str, str]]


def group_id(item) -> str:
    return f"S{item.seed}L{item.layer}"


def group_status(items) -> str:
    statuses = {item.status for item in items}
    return statuses.pop() if len(statuses) == 1 else "in progress"


def group_label(roadmap, members: list, detailed: bool) -> str:
    """'Native runtime<br/>Prompt, Dialog and 8 more' (overview) or 'Native runtime · Composition'."""
    family = FAMILIES.get(members[0].seed, f"seed {members[0].seed}")
    if not detailed:
        return f"{family} · {roadmap.layers[members[0].layer].split('·')[-1].strip()}"
    names = [m.name for m in members]
    listed = ", ".join(names) if len(names) <= 3 else f"{names[0]}, {names[1]} and {len(names) - 2} more"
    return f"{family}<br/>{listed}"


def drawing(roadmap, modules: dict[str, Module], shown: set[str] = frozenset()) -> Drawing:
    """The pieces in `shown` as nodes of their own, every other piece folded into its group (one
    node per seed family and layer). No `shown`: the overview, every group. Otherwise only the
    groups that an arrow links to a shown piece are drawn."""
    imports, designed = item_edges(roadmap, modules)
    items = roadmap.by_id()
    groups: dict[str, list] = {}
    for item in roadmap.items:
        groups.setdefault(group_id(item), []).append(item)

    def node(item_id: str) -> str:
        return item_id if item_id in shown else group_id(items[item_id])

    def mapped(edges):
        return {(node(a), node(b)) for a, b in edges if node(a) != node(b)}

    all_solid = mapped(imports)
    all_dotted = mapped(designed) - all_solid
    touched = {n for edge in all_solid | all_dotted if set(shown) & set(edge) for n in edge}
    nodes = {}
    for item in roadmap.items:
        if item.id in shown:
            nodes[item.id] = (item.name, item.status, item.layer)
        elif not shown or group_id(item) in touched:
            members = groups[group_id(item)]
            nodes[group_id(item)] = (group_label(roadmap, members, detailed=not shown), group_status(members), item.layer)
    # a piece view draws only arrows that touch its pieces, and never shortens one through a folded
    # group: "A --> group --> C" does not mean that A reaches C
    drawn = (lambda e: e[0] in nodes and e[1] in nodes) if not shown else (lambda e: set(shown) & set(e))
    all_solid = {e for e in all_solid if drawn(e)}
    all_dotted = {e for e in all_dotted if drawn(e)}
    through = set(shown) or None
    solid = reduce_edges(all_solid, through=through)
    return Drawing(nodes, solid, reduce_edges(all_dotted, via=solid, through=through))


def mermaid(roadmap, d: Drawing, direction: str = "TD") -> str:
    lines = [f"flowchart {direction}"]
    for layer in sorted(roadmap.layers):
        members = [(nid, label) for nid, (label, _, lay) in d.nodes.items() if lay == layer]
        if members:
            lines.append(f'    subgraph L{layer}["{roadmap.layers[layer]}"]')
            lines += [f'        {nid}["{label}"]' for nid, label in members]  # module paths are in the table
            lines.append("    end")
    lines += [f"    {a} --> {b}" for a, b in sorted(d.solid)]
    lines += [f"    {a} -.-> {b}" for a, b in sorted(d.dotted)]
    lines += CLASS_DEFS
    for status, cls in STATUS_CLASSES.items():
        ids = [nid for nid, (_, s, _) in d.nodes.items() if s == status]
        if ids:
            lines.append(f"    class {','.join(ids)} {cls}")
    return "\n".join(lines) + "\n"


# Each view is one generated diagram, `<!-- lllm:pieces NAME -->` in a page: which pieces get a box of
# their own (the rest fold into their groups), the direction, and the least width in rem the page
# gives it (0: the text column). A diagram shrunk far below its natural size has unreadable text,
# so a wide one keeps a minimum width and its frame scrolls sideways; a browser test checks that
# every diagram is drawn at 70% of its natural size or more.
VIEWS = {
    "overview": (lambda item: False, "TD", 0),
    "000-base": (lambda item: item.seed == "000" and item.layer <= 2, "TD", 76),
    "000-agents": (lambda item: item.seed == "000" and item.layer >= 3, "LR", 94),
    "004": (lambda item: item.seed == "004", "TD", 58),
    "003": (lambda item: item.seed == "003", "TD", 60),
}


def view_mermaid(name: str, roadmap=None, modules=None, direction: str | None = None) -> str:
    if name not in VIEWS:
        raise ValueError(f"<!-- lllm:pieces {name} -->: no such view; known: {', '.join(VIEWS)}")
    roadmap = roadmap or roadmap_mod.load()
    modules = modules if modules is not None else import_graph()
    pick, default_direction, _ = VIEWS[name]
    shown = {item.id for item in roadmap.items if pick(item)}
    return mermaid(roadmap, drawing(roadmap, modules, shown), direction or default_direction)


def overview_mermaid(roadmap=None, modules=None) -> str:
    """The four layers: one node per seed family and layer, the reduced arrows between them."""
    return view_mermaid("overview", roadmap, modules)


def generated_diagrams(roadmap=None, modules=None) -> dict[str, str]:
    """Every diagram the hook can put on a page: {marker: Mermaid text} (the tests check them all)."""
    roadmap = roadmap or roadmap_mod.load()
    modules = modules if modules is not None else import_graph()
    return {f"<!-- lllm:pieces {name} -->": view_mermaid(name, roadmap, modules) for name in VIEWS}


def interconnections_table(roadmap=None, modules=None) -> str:
    roadmap = roadmap or roadmap_mod.load()
    modules = modules if modules is not None else import_graph()
    owner = owners(roadmap, modules)
    names = roadmap.by_id()
    used_by: dict[str, set[str]] = {name: set() for name in modules}
    for module in modules.values():
        for target in module.imports:
            used_by[target].add(module.name)

    def code(names_: set[str]) -> str:
        return ", ".join(f"`{n}`" for n in sorted(names_)) or "—"

    rows = ["| module | piece | imports from | imported by | optional imports |", "|---|---|---|---|---|"]
    for name, module in sorted(modules.items()):
        piece = names[owner[name]].name if name in owner else ("package (re-exports)" if module.is_package else "not in roadmap.yml")
        rows.append(f"| `{name}` | {piece} | {code(module.imports)} | {code(used_by[name])} | {code(module.external)} |")
    return "\n".join(rows) + "\n"


def framed(name: str, text: str) -> str:
    """A generated diagram in a frame that scrolls sideways (site/assets/stylesheets/diagrams.css);
    site/assets/javascripts/diagrams.js adds an Enlarge button that shows it at natural size."""
    least = f' style="--lllm-diagram-min: {VIEWS[name][2]}rem"' if VIEWS[name][2] else ""
    return f'<div class="lllm-diagram"{least} markdown>\n\n```mermaid\n{text}```\n\n</div>'


# ---- the folders: the layers as `ls lllm/` shows them ---------------------------------------------

def folders(root: Path = ROOT, package: str = PACKAGE) -> list[tuple[str, str, list[str]]]:
    """(folder, the first line of its __init__ docstring, its modules) for every package folder,
    root first: what `ls lllm/` shows, read from the tree itself."""
    rows = []
    for init in sorted((root / package).rglob("__init__.py")):
        folder = init.parent.relative_to(root).as_posix()
        doc = (ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "").splitlines()
        modules = sorted(p.name for p in init.parent.glob("*.py") if p.name != "__init__.py")
        rows.append((folder + "/", doc[0] if doc else "", modules))
    place = {name: i for i, (name, _, _) in enumerate(layers.FOLDERS)}      # the one table's order
    order = lambda row: (-1 if row[0] == package + "/" else place.get(row[0].split("/")[1], 99), row[0])
    return sorted(rows, key=order)


def folders_table() -> str:
    lines = ["| folder | what it is (its `__init__` docstring) | modules |", "|---|---|---|"]
    for folder, summary, modules in folders():
        lines.append(f"| `{folder}` | {summary.replace('|', '/')} | {', '.join(f'`{m}`' for m in modules)} |")
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, page, config, files) -> str:
    if "<!-- lllm:" not in markdown:
        return markdown
    markdown = layers.on_page_markdown(markdown)
    if "<!-- lllm:folders -->" in markdown:
        markdown = markdown.replace("<!-- lllm:folders -->", folders_table())
    for name in VIEWS:
        marker = f"<!-- lllm:pieces {name} -->"
        if marker in markdown:
            markdown = markdown.replace(marker, framed(name, view_mermaid(name)))
    if "<!-- lllm:interconnections -->" in markdown:
        markdown = markdown.replace("<!-- lllm:interconnections -->", interconnections_table())
    return markdown
