"""The page's one module (site/assets/runtime/loader.mjs), read without a browser: it is the only
module mkdocs.yml lists, every file it names exists, and every widget module — a module under
site/assets/ that sets up elements on `document$` — is reached from it (or is a page's own script),
so a new widget cannot be forgotten. Which modules a page really imports is checked in Chromium
(tests/browser/test_loader_browser.py)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "site" / "assets"
LOADER = ASSETS / "runtime" / "loader.mjs"
IMPORT = re.compile(r'(?:^import\s+(?:[^"\']*\sfrom\s+)?|import\()\s*["\'](\.{1,2}/[^"\']+\.mjs)["\']', re.M)
ROW = re.compile(r'\[\s*"([^"]+)",\s*"(\.{1,2}/[^"]+\.mjs)",?\s*\]', re.S)   # one line, or laid out by the formatter


def imports(path: Path) -> set[Path]:
    """The modules `path` imports, statically or dynamically, by relative path."""
    return {(path.parent / rel).resolve() for rel in IMPORT.findall(path.read_text(encoding="utf-8"))}


def reached(start: Path) -> set[Path]:
    seen, todo = set(), [start.resolve()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo += [p for p in imports(path) if p.is_file()]
    return seen


def widget_rows() -> list[tuple[str, Path]]:
    text = LOADER.read_text(encoding="utf-8")
    block = text[text.index("const WIDGETS"):text.index("];", text.index("const WIDGETS"))]
    return [(selector, (LOADER.parent / rel).resolve()) for selector, rel in ROW.findall(block)]


def page_scripts() -> set[Path]:
    """Modules a page names itself with a <script type="module"> tag (the reasoning lab, the dialog tree)."""
    found = set()
    for page in (ROOT / "site").rglob("*.md"):
        for src in re.findall(r'<script type="module" src="([^"]+)"', page.read_text(encoding="utf-8")):
            base = page.parent if page.name == "index.md" else page.parent / page.stem   # the page's URL folder
            found.add((base / src).resolve())
    return found


def test_a_row_is_read_on_one_line_or_laid_out_over_several():
    one = '[".a", "./a.mjs"], // a\n'
    laid_out = '[\n    ".b, .c",\n    "../b/b.mjs",\n  ],\n'
    assert ROW.findall(one + laid_out) == [(".a", "./a.mjs"), (".b, .c", "../b/b.mjs")]


def test_mkdocs_lists_the_loader_as_its_only_module():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    paths = [s if isinstance(s, str) else s["path"] for s in config["extra_javascript"]]
    modules = [s for s in paths if s.endswith(".mjs")]
    assert modules == ["assets/runtime/loader.mjs"]


def test_every_row_names_a_module_that_exists_and_a_selector():
    rows = widget_rows()
    assert len(rows) >= 9, rows
    missing = [str(path) for _, path in rows if not path.is_file()]
    assert not missing, missing
    assert all(selector.strip() for selector, _ in rows)


def test_every_widget_module_is_reached_from_the_loader_or_a_page():
    reach = reached(LOADER)
    for script in page_scripts() | {path for _, path in widget_rows()}:   # the rows are imported by name
        if script.is_file():
            reach |= reached(script)
    widgets = [p for p in ASSETS.rglob("*.mjs") if "vendor" not in p.parts
               and re.search(r"document\$\s*(?:\)|\.subscribe|&&)", p.read_text(encoding="utf-8"))]
    assert len(widgets) >= 10, widgets
    forgotten = sorted(str(p.relative_to(ROOT)) for p in widgets if p.resolve() not in reach)
    assert not forgotten, f"widget modules no page loads: {forgotten}"
