"""MkDocs hook and tool: roadmap.yml -> the Roadmap table, the prototypes list, README's list.

roadmap.yml is the one list of every prototype and runtime piece, with its status. In a page,
`<!-- lllm:roadmap -->` becomes the full table and `<!-- lllm:prototypes -->` the list of what is
done or in progress. The README carries the same list between `<!-- prototypes:start -->` and
`<!-- prototypes:end -->`:

    python -m hooks.roadmap --readme   # rewrite that part of README.md
    python -m hooks.roadmap --check    # exit 1 if README.md is out of date (a test runs this)
"""

from __future__ import annotations

import posixpath
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
ROADMAP = ROOT / "roadmap.yml"
README = ROOT / "README.md"
STATUSES = ("done", "in progress", "planned")
README_START, README_END = "<!-- prototypes:start -->", "<!-- prototypes:end -->"


@dataclass
class Item:
    id: str
    name: str
    layer: int
    seed: str
    status: str
    where: str
    summary: str
    modules: list[str] = field(default_factory=list)
    uses: list[str] = field(default_factory=list)
    page: str | None = None


@dataclass
class Roadmap:
    layers: dict[int, str]
    items: list[Item]

    def by_id(self) -> dict[str, Item]:
        return {item.id: item for item in self.items}


def load(path: Path = ROADMAP) -> Roadmap:
    """Read and validate roadmap.yml; a bad entry is a ValueError naming the file and the item."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    layers = {int(k): v for k, v in data["layers"].items()}
    items, seen = [], set()
    for n, raw in enumerate(data["items"], 1):
        where = f"{path.name}: item {n} ({raw.get('id', '?')})"
        try:
            item = Item(**raw)
        except TypeError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if item.status not in STATUSES:
            raise ValueError(f"{where}: status {item.status!r} is not one of {STATUSES}")
        if item.layer not in layers:
            raise ValueError(f"{where}: layer {item.layer} is not one of {sorted(layers)}")
        if not item.id.isidentifier() or item.id.lower() == "end" or item.id in seen:
            raise ValueError(f"{where}: id must be a unique identifier (and never 'end')")
        seen.add(item.id)
        items.append(item)
    for item in items:
        for used in item.uses:
            if used not in seen:
                raise ValueError(f"{path.name}: {item.id} uses unknown id {used!r}")
    return Roadmap(layers, items)


# ---- rendering -----------------------------------------------------------------------------------

def badge(status: str) -> str:
    return f'<span class="lllm-status lllm-status--{status.replace(" ", "-")}">{status}</span>'


def link(item: Item, from_page: str | None) -> str:
    """The item's name, linked to its page relative to `from_page` (None: plain text)."""
    if not item.page or from_page is None:
        return item.name
    return f"[{item.name}]({posixpath.relpath(item.page, posixpath.dirname(from_page) or '.')})"


def roadmap_table(roadmap: Roadmap, from_page: str | None = None) -> str:
    rows = ["| piece | layer | status | where | what |", "|---|---|---|---|---|"]   # no seed numbers for readers
    for item in sorted(roadmap.items, key=lambda i: (STATUSES.index(i.status), i.layer)):
        rows.append(f"| {link(item, from_page)} | {item.layer} | {badge(item.status)} "
                    f"| `{item.where}` | {item.summary} |")
    counts = ", ".join(f"{sum(i.status == s for i in roadmap.items)} {s}" for s in STATUSES)
    return "\n".join(rows) + f"\n\n{len(roadmap.items)} pieces: {counts}.\n"


def prototypes_list(roadmap: Roadmap, from_page: str | None = None) -> str:
    """One bullet per piece that is done or in progress (the README's "Current prototypes")."""
    lines = []
    for item in roadmap.items:
        if item.status != "planned":
            lines.append(f"- **{link(item, from_page)}** (`{item.where}`, {item.status}): {item.summary}")
    return "\n".join(lines) + "\n"


def readme_block(roadmap: Roadmap) -> str:
    return f"{README_START}\n{prototypes_list(roadmap)}{README_END}"


def readme_with_block(text: str, roadmap: Roadmap) -> str:
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"README.md: markers {README_START} ... {README_END} not found")
    return text[:start] + readme_block(roadmap) + text[end + len(README_END):]


# ---- MkDocs hook -----------------------------------------------------------------------------------

API_PAGES = (("lllm.model", "model"), ("lllm.predictors", "predictors"), ("lllm.agents", "agents"),
             ("lllm.reasoning", "agents"), ("lllm.timetravel", "labs"), ("lllm.runtimes", "native"), ("lllm.protocol", "native"), ("lllm.labs", "labs"),
             ("lllm.web", "web"), ("lllm.cli", "web"), ("lllm.commands", "web"), ("lllm.create", "web"),
             ("lllm.integrations", "web"), ("lllm.lazy", "web"), ("lllm.services", "web"))


def api_page(module: str) -> str | None:
    """The API reference page (site/api/*.md) that documents `module`, or None."""
    return next((f"api/{page}.md" for prefix, page in API_PAGES if module == prefix or module.startswith(prefix + ".")), None)


def is_package(module: str) -> bool:
    """A folder with an `__init__.py`: the API reference documents its modules, not the folder."""
    return (ROOT.joinpath(*module.split(".")) / "__init__.py").is_file()


def api_links(roadmap: Roadmap, src: str) -> str:
    """A closing line for a concept page: its pieces' modules, linked to the API reference."""
    modules = [m for item in roadmap.items if item.page == src for m in item.modules
               if "*" not in m and not m.endswith("__main__") and not is_package(m) and api_page(m)]
    if not modules:
        return ""
    here = posixpath.dirname(src) or "."
    links = ", ".join(f"[`{m}`]({posixpath.relpath(api_page(m), here)}#{m})" for m in dict.fromkeys(modules))
    return f"\n\n---\n\n**API reference:** {links}.\n"


def on_page_markdown(markdown: str, page, config, files) -> str:
    roadmap = load()
    src = page.file.src_uri
    markdown += api_links(roadmap, src)
    if "<!-- lllm:roadmap -->" not in markdown and "<!-- lllm:prototypes -->" not in markdown:
        return markdown
    markdown = markdown.replace("<!-- lllm:roadmap -->", roadmap_table(roadmap, src))
    return markdown.replace("<!-- lllm:prototypes -->", prototypes_list(roadmap, src))


def main(argv: list[str]) -> int:
    roadmap = load()
    if argv == ["--readme"]:
        README.write_text(readme_with_block(README.read_text(encoding="utf-8"), roadmap), encoding="utf-8")
        return 0
    if argv == ["--check"]:
        text = README.read_text(encoding="utf-8") if README.is_file() else ""
        if README_START not in text or readme_with_block(text, roadmap) != text:
            print("README.md's prototypes list differs from roadmap.yml; run python -m hooks.roadmap --readme",
                  file=sys.stderr)
            return 1
        return 0
    print(readme_block(roadmap))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
