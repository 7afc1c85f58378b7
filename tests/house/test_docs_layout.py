"""The docs describe the tree as it is: the README's layout table, the architecture page's folder
table, and the API reference (a page per layer, every module on exactly one of them)."""

import re
import subprocess
from pathlib import Path

from hooks import architecture, layers, roadmap

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "site" / "api"
LAYER_PAGES = {"model": "lllm.model", "predictors": "lllm.predictors", "agents": "lllm.agents",
               "native": "lllm.runtimes.native", "labs": "lllm.labs", "web": "lllm.web"}


def lllm_folders() -> list[str]:
    return sorted(p.parent.relative_to(ROOT).as_posix() + "/" for p in (ROOT / "lllm").rglob("__init__.py"))


def test_the_readme_layout_table_matches_the_tree():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):readme.index("## Current prototypes")]
    listed = set(re.findall(r"^\| `([^`]+)` \|", layout, re.M))
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    top = {name.split("/")[0] + "/" for name in tracked if "/" in name and not name.startswith(".")}
    subfolders = {f for f in lllm_folders() if f.count("/") == 2}               # lllm/model/, lllm/agents/, ...
    assert top <= listed, f"README layout is missing {sorted(top - listed)}"
    assert subfolders <= listed, f"README layout is missing {sorted(subfolders - listed)}"
    assert listed <= top | subfolders, f"README layout lists what is not there: {sorted(listed - top - subfolders)}"


def test_the_architecture_folder_table_is_ls_lllm():
    rows = architecture.folders()
    assert [folder for folder, _, _ in rows][0] == "lllm/"
    assert sorted(folder for folder, _, _ in rows) == lllm_folders()
    for folder, summary, modules in rows:
        on_disk = sorted(p.name for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py")
        assert modules == on_disk and summary, folder
    order = [layers.layer_of_folder(folder.split("/")[1]) for folder, _, _ in rows[1:]]
    assert order == sorted(order), "bottom layer first, the edges last (hooks/layers.py)"
    assert "<!-- lllm:folders -->" in (ROOT / "site" / "architecture.md").read_text(encoding="utf-8")


def documented_modules() -> dict[str, list[str]]:
    return {page.stem: re.findall(r"^::: ([\w.]+)$", page.read_text(encoding="utf-8"), re.M)
            for page in sorted(API.glob("*.md")) if page.stem != "index"}


def test_the_api_reference_has_a_page_per_layer_and_every_module_once():
    pages = documented_modules()
    assert set(pages) == set(LAYER_PAGES)
    everything = [m for modules in pages.values() for m in modules]
    assert len(everything) == len(set(everything)), "a module is documented twice"
    graph = architecture.import_graph()
    wanted = {name for name, m in graph.items() if not m.is_package and name not in ("lllm.__main__",)}
    assert set(everything) == wanted, (sorted(wanted - set(everything)), sorted(set(everything) - wanted))
    for page, modules in pages.items():
        for module in modules:
            assert roadmap.api_page(module) == f"api/{page}.md", (module, page)


def test_concept_pages_link_their_modules_to_the_api_reference():
    items = roadmap.load()
    line = roadmap.api_links(items, "agents/react.md")
    assert "[`lllm.agents.react`](../api/agents.md#lllm.agents.react)" in line
    pages = {item.page for item in items.items if item.page and item.modules}
    assert all(roadmap.api_links(items, page) for page in pages)
    assert roadmap.api_links(items, "index.md") == ""
