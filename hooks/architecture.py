"""MkDocs hook: the architecture page's overview diagram and interconnections table, from the code.

An AST walk over lllm/**/*.py finds which lllm module imports which (lazy imports inside functions
included). roadmap.yml says which piece owns which modules. In a page:

- `<!-- lllm:overview -->` becomes the layered Mermaid overview: every piece of the three seeds,
  grouped by layer and coloured by status; a solid arrow is a real import found in the code
  (provider --> user), a dotted arrow is a designed dependency of a piece whose code is not there yet.
- `<!-- lllm:interconnections -->` becomes the table: module, piece, imports from, imported by,
  optional third-party imports.

Package `__init__` modules only re-export: they are listed in the table but draw no arrows.
"""

from __future__ import annotations

import ast
import fnmatch
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from hooks import roadmap as roadmap_mod  # noqa: E402  (MkDocs loads hook files by path)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "lllm"


@dataclass
class Module:
    name: str                                            # dotted, e.g. "lllm.generate"
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
    """The absolute module an ImportFrom names (`from .generate import x` in lllm.cli -> lllm.generate)."""
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
    # what each package __init__ re-exports: `from lllm import Predictor` really uses lllm.predictor
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


def overview_mermaid(roadmap=None, modules=None) -> str:
    roadmap = roadmap or roadmap_mod.load()
    modules = modules if modules is not None else import_graph()
    imports, designed = item_edges(roadmap, modules)
    lines = ["flowchart TD"]
    for layer in sorted(roadmap.layers, reverse=True):
        lines.append(f'    subgraph L{layer}["{roadmap.layers[layer]}"]')
        for item in roadmap.items:
            if item.layer == layer:
                lines.append(f'        {item.id}["{item.name}"]')  # paths are in the table below
        lines.append("    end")
    for a, b in sorted(imports):
        lines.append(f"    {a} --> {b}")
    for a, b in sorted(designed):
        lines.append(f"    {a} -.-> {b}")
    lines.append("    classDef done fill:#c8e6c9,stroke:#2e7d32")
    lines.append("    classDef progress fill:#fff3c4,stroke:#b28704")
    lines.append("    classDef planned fill:#eeeeee,stroke:#9e9e9e,stroke-dasharray:4 3")
    for status, cls in (("done", "done"), ("in progress", "progress"), ("planned", "planned")):
        ids = [item.id for item in roadmap.items if item.status == status]
        if ids:
            lines.append(f"    class {','.join(ids)} {cls}")
    return "\n".join(lines) + "\n"


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


def on_page_markdown(markdown: str, page, config, files) -> str:
    if "<!-- lllm:overview -->" in markdown:
        markdown = markdown.replace("<!-- lllm:overview -->", f"```mermaid\n{overview_mermaid()}```")
    if "<!-- lllm:interconnections -->" in markdown:
        markdown = markdown.replace("<!-- lllm:interconnections -->", interconnections_table())
    return markdown
