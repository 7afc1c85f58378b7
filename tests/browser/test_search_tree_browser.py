"""The reasoning lab's search tree in Chromium, Firefox and WebKit (one browser launch per engine): Tree of
Thoughts on a Game-of-24 puzzle draws the lines `python -m lllm reason --tree` prints, the path to the
answer open and marked in words; a closed node opens and closes by keyboard. In Chromium with real key
presses, at 390 px, and axe finds nothing serious (tests/support/search_tree_scenario.js; the other
drivers are tests/support/engines.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from support import engines
from support.axe import serious_violations
from test_site_a11y_browser import switch_palette

pytestmark = pytest.mark.browser
RUN = {"framework": "tot-bfs", "puzzle": 950, "seed": 1}
SCRIPT = ROOT / "tests" / "support" / "search_tree_scenario.js"


def terminal_tree() -> list[str]:
    """What the terminal prints for the same run: the tree's lines, then the verdict."""
    done = subprocess.run([sys.executable, "-m", "lllm", "reason", "--framework", RUN["framework"], "--puzzle",
                           str(RUN["puzzle"]), "--seed", str(RUN["seed"]), "--tree"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def check_tree(report: dict) -> None:
    assert "fatal" not in report, report.get("fatal")
    assert report["state"] == "done"
    want = terminal_tree()
    assert report["lines"] == want[:-1]
    marked = [line for line in report["lines"] if line.startswith("*")]
    assert len(marked) == 4 and marked[-1].endswith("| correct: reached 24 in 3 steps | the answer")
    assert all(line.endswith("| on the answer path") for line in marked[:-1])
    assert report["pathShown"] and report["tabStops"] == 1


def check_keys(report: dict) -> None:
    opened, child, back = report["steps"][1], report["steps"][2], report["steps"][3]
    assert report["steps"][0] == {"label": report["closedLabel"], "expanded": "false"}
    assert opened["expanded"] == "true" and opened["childrenShown"] and all(opened["childrenShown"])
    assert child["parent"] == report["closedLabel"]
    assert back["label"] == report["closedLabel"] and back["expanded"] == "false" and not any(back["childrenShown"])


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_the_search_tree_opens_by_keyboard_in(engine, site_server):
    out = getattr(engines, engine)(site_server.url + "reasoning/", {**RUN, "keys": True}, script=SCRIPT)
    check_tree(out["report"])
    check_keys(out["report"])
    assert out["console"] == []


def test_the_search_tree_in_chromium_with_real_keys_at_390_px(browser, site_server):
    watched = watch(browser.new_context(service_workers="block", viewport={"width": 390, "height": 800}),
                    {origin(site_server.url)})
    pg = watched.page
    try:
        pg.goto(site_server.url + "reasoning/")
        report = pg.evaluate(SCRIPT.read_text(encoding="utf-8"), {**RUN, "keys": False})
        check_tree(report)
        tree = pg.locator(".lllm-reasoning-lab [role=tree]")
        first_closed = tree.locator("[role=treeitem][aria-expanded=false]").first.get_attribute("data-id")
        closed = tree.locator(f"[role=treeitem][data-id='{first_closed}']")      # pinned: a locator re-resolves
        closed_label = closed.locator(":scope > .lllm-tree__label").text_content()
        pg.locator(".lllm-reasoning-lab__run").focus()
        for _ in range(40):                                      # Tab into the tree: one stop, the root
            pg.keyboard.press("Tab")
            if pg.evaluate("document.activeElement.getAttribute('role')") == "treeitem":
                break
        assert pg.evaluate("document.activeElement.textContent").startswith("#0 puzzle")
        while pg.evaluate("document.activeElement.getAttribute('aria-expanded')") != "false":
            pg.keyboard.press("ArrowDown")
        assert pg.evaluate("document.getElementById(document.activeElement.getAttribute('aria-labelledby')).textContent") == closed_label
        pg.keyboard.press("ArrowRight")
        assert closed.get_attribute("aria-expanded") == "true"
        assert closed.locator(":scope > ul > li").first.is_visible()
        pg.keyboard.press("ArrowRight")
        assert pg.evaluate("document.activeElement.parentElement.closest('[role=treeitem]').dataset.id") == closed.get_attribute("data-id")
        pg.keyboard.press("ArrowLeft")
        pg.keyboard.press("Enter")
        assert closed.get_attribute("aria-expanded") == "false"
        assert not closed.locator(":scope > ul > li").first.is_visible()

        assert serious_violations(pg) == []
        switch_palette(pg)                                       # the dark palette too
        assert serious_violations(pg) == []
        assert pg.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
        box = tree.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        watched.assert_clean()
    finally:
        watched.page.context.close()


def test_the_dialog_page_draws_the_fork_tree_of_the_cells_dialog(browser, site_server):
    """The native Dialog page: run the cell, draw `dialog`'s fork tree; its lines are the ones
    format_dialog_tree prints for the same cell in CPython; Left closes the root, Right opens it."""
    from support.runtime import CELL, cpython_outputs
    from lllm.runtimes.native.dialog_tree import format_dialog_tree

    code = CELL.findall((ROOT / "site" / "native" / "dialog.md").read_text())[0]
    namespace: dict = {}
    exec(compile(code, "<cell>", "exec"), namespace)
    want = format_dialog_tree(namespace["dialog"]).splitlines()
    assert cpython_outputs([code])[0].rstrip("\n").endswith("\n".join(want))     # the cell prints the same lines
    watched = watch(browser.new_context(service_workers="block", viewport={"width": 390, "height": 800}),
                    {origin(site_server.url)})
    pg = watched.page
    try:
        pg.goto(site_server.url + "native/dialog/")
        widget = pg.locator(".lllm-dialog-tree")
        widget.locator(".lllm-dialog-tree__draw").click()
        from playwright.sync_api import expect
        expect(widget).to_have_attribute("data-state", "error", timeout=300_000)     # no cell run yet: says so
        assert "run the cell above first" in widget.text_content()
        cell = pg.locator("div.runnable.highlight").first
        cell.locator("xpath=following-sibling::div[1]").get_by_role("button", name="Run").click()
        expect(cell).to_have_attribute("data-lllm-result", "ok", timeout=300_000)
        widget.locator(".lllm-dialog-tree__draw").click()
        expect(widget).to_have_attribute("data-state", "done", timeout=60_000)
        lines = widget.locator("[role=treeitem]").evaluate_all("""items => items.map(li => {
          let depth = 0;
          for (let p = li.parentElement.closest('[role=treeitem]'); p; p = p.parentElement.closest('[role=treeitem]')) depth++;
          return '  '.repeat(depth) + document.getElementById(li.getAttribute('aria-labelledby')).textContent; })""")
        assert lines == want and len(lines) == 3
        root = widget.locator("[role=treeitem]").first
        root.focus()
        pg.keyboard.press("ArrowLeft")
        assert root.get_attribute("aria-expanded") == "false"
        assert not widget.locator("[role=treeitem]").nth(1).is_visible()
        pg.keyboard.press("ArrowRight")
        pg.keyboard.press("ArrowDown")
        assert pg.evaluate("document.activeElement.dataset.id") == "planner-1"
        assert serious_violations(pg) == []
        assert pg.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
        watched.assert_clean()
    finally:
        watched.page.context.close()
