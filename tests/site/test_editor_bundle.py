"""The code editor's bundle (hooks/editor.py): built from node_modules/ at the versions the lockfile
pins, one ES module with the one export editor.mjs uses, within its byte budget, and fetched by no
page until code comes near (no page links or preloads it; only site/assets/editor/editor.mjs imports it).
The browser side (typing, drafts, keys, loading on approach) is tests/browser/test_editor_browser.py."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from hooks import editor

ROOT = Path(__file__).resolve().parents[2]
BUDGET_GZIP = 140_000      # bytes: measured 119,701 gzip (354,818 raw) on 2026-12-06; a new package shows here


def built(site_build) -> bytes:
    return (site_build.dir / editor.DEST).read_bytes()


def test_the_bundle_is_one_module_exporting_create_editor(site_build):
    code = built(site_build).decode("utf-8")
    assert re.search(r"export\s*\{[^}]*\bas createEditor\b|export\s*\{[^}]*\bcreateEditor\b", code), "no createEditor export"
    assert not re.search(r"""\bimport\s*[\w{*][^;]*from\s*["']""", code), "the bundle imports another module: it must be self-contained"
    assert "codemirror.mjs" in (site_build.dir / "assets/editor/editor.mjs").read_text(encoding="utf-8")


def test_its_banner_names_each_package_at_the_locked_version():
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    banner = editor.bundle().split(b"\n", 1)[0].decode("utf-8")
    for name in ("@codemirror/view", "@codemirror/state", "@codemirror/commands", "@codemirror/language",
                 "@codemirror/lang-python", "@lezer/python"):
        assert f"{name} {lock['node_modules/' + name]['version']} (MIT)" in banner, (name, banner)
    assert "@codemirror/autocomplete" not in banner, "completion is not used: it should be tree-shaken away"


def test_the_bundle_stays_within_its_budget(site_build):
    code = built(site_build)
    size = len(gzip.compress(code, compresslevel=6))
    print(f"editor bundle: {len(code)} bytes raw, {size} bytes gzip")
    assert 50_000 < size <= BUDGET_GZIP, f"{size} bytes gzip"


def test_no_page_loads_the_bundle_up_front(site_build):
    named = [p.relative_to(site_build.dir).as_posix() for p in site_build.dir.rglob("*.html")
             if re.search(r'(src|href)="[^"]*codemirror\.mjs"', p.read_text(encoding="utf-8"))]
    assert named == [], f"pages that name the editor's bundle (it must load only when code comes near): {named[:5]}"
    assert "assets/editor/codemirror.mjs" in (site_build.dir / "sw.js").read_text(encoding="utf-8"), \
        "the service worker's list has no editor: it would not work offline"
