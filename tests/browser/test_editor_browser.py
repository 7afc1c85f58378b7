"""The code editor where a learner types (site/assets/editor/editor.mjs, CodeMirror bundled by
hooks/editor.py) in real Chromium: unit 1's exercise typed by keyboard with Tab indentation, its
draft found again after leaving the page, then passed against the hidden checks in the page's
Python; no key typed in the editor reaches the site's shortcuts; Escape then Tab leaves it; a
runnable cell keeps its draft, runs it and resets; the bundle loads only when code comes near;
axe finds nothing serious with the editors in place. Firefox and WebKit load the editor and run
a quiz from it in tests/support/engine_scenario.js (test_engine_*.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from support.axe import serious_violations

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
RUNTIME_TIMEOUT = 180_000   # ms: a cold Pyodide boot is 6–9 s here, far more on a busy machine
QUIZ_PAGE, EXERCISE = "tinyllm/generation/", "gen-pick-code"
CELLS_PAGE = "tinyllm/data/"
BUNDLE = "/assets/editor/codemirror.mjs"
# The exercise as a learner types it: (indent level, text) per line, each level reached with Tab.
LINES = [(0, "def pick(order, probs, u):"), (1, "target = u * sum(probs)"), (1, "acc = 0.0"),
         (1, "for i, p in zip(order, probs):"), (2, "acc += p"), (2, "if acc > target:"), (3, "return i"),
         (1, "return order[-1]")]
TYPED = "\n".join("    " * level + text for level, text in LINES)


def checks() -> int:
    """How many hidden checks the exercise has (quizzes/generation.yml): the page must pass them all."""
    import yaml
    quiz = yaml.safe_load((ROOT / "quizzes" / "generation.yml").read_text(encoding="utf-8"))
    return next(len(q["tests"]) for q in quiz["questions"] if q["id"] == EXERCISE)


def editor_of(pg, selector: str):
    """The element holding an editor, once CodeMirror has replaced its fallback there."""
    host = pg.locator(selector)
    host.scroll_into_view_if_needed()
    expect(host).to_have_attribute("data-editor", "ready")
    return host


def value(host) -> str:
    return host.evaluate("el => el.lllmEditor.value")


def type_lines(pg, lines) -> None:
    """Type line by line: after Enter, Shift+Tab back to the margin, then one Tab per level."""
    for n, (level, text) in enumerate(lines):
        if n:
            pg.keyboard.press("Enter")
            for _ in range(4):
                pg.keyboard.press("Shift+Tab")
        for _ in range(level):
            pg.keyboard.press("Tab")
        pg.keyboard.type(text)


def focused_in_editor(pg) -> bool:
    return pg.evaluate("() => Boolean(document.activeElement?.closest('.cm-editor'))")


# ---- the exercise ----------------------------------------------------------------------------------

def test_the_exercise_is_typed_with_tab_kept_as_a_draft_and_passes(page, site_server):
    pg = page.page
    pg.goto(site_server.url + QUIZ_PAGE)
    pg.wait_for_timeout(1000)                      # time for an IntersectionObserver callback, had one been due
    below = pg.evaluate("() => Math.min(...[...document.querySelectorAll('[data-editor]')].map(e => e.getBoundingClientRect().top)) - innerHeight")
    assert below > 600, "this page's first code is near the top: the next check needs a page where it is not"
    assert not any(u.endswith(BUNDLE) for u in page.requests), "the editor loaded before any code came near"
    form = editor_of(pg, f'.lllm-q[data-qid="{EXERCISE}"]')
    assert any(u.endswith(BUNDLE) for u in page.requests)
    content = form.locator(".cm-content")
    expect(form.locator("textarea.lllm-q__code")).to_be_hidden()
    expect(content).to_have_attribute("aria-labelledby", f"lllm-q-quiz-{EXERCISE}")
    hint = form.locator(f"#{content.get_attribute('aria-describedby')}")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("press Escape, then Tab")

    # Tab indents and stays; Shift+Tab dedents
    content.click()
    pg.keyboard.press("ControlOrMeta+a")
    pg.keyboard.press("Delete")
    pg.keyboard.press("Tab")
    assert value(form) == "    " and focused_in_editor(pg)
    pg.keyboard.press("Shift+Tab")
    assert value(form) == ""

    # no key typed in the editor navigates or opens the search (Material: n/. next, p/, previous, s and / search)
    where = pg.evaluate("() => location.pathname")
    pg.keyboard.type("nps/.,f")
    pg.wait_for_timeout(500)
    assert pg.evaluate("() => location.pathname") == where
    assert pg.evaluate("() => document.querySelector('[data-md-toggle=search]').checked") is False
    assert value(form) == "nps/.,f" and focused_in_editor(pg)
    pg.keyboard.press("ControlOrMeta+a")
    pg.keyboard.press("Delete")

    type_lines(pg, LINES)
    assert value(form) == TYPED

    # leave the page and come back: the draft is there
    pg.goto(site_server.url + "course/")
    expect(pg.locator("h1")).to_have_text(re.compile("The course"))
    pg.goto(site_server.url + QUIZ_PAGE)
    form = editor_of(pg, f'.lllm-q[data-qid="{EXERCISE}"]')
    assert value(form) == TYPED

    # Escape then Tab leaves the editor for the next control; Ctrl+Enter in the editor submits
    form.locator(".cm-content").click()
    pg.keyboard.press("Escape")
    pg.keyboard.press("Tab")
    assert not focused_in_editor(pg)
    assert pg.evaluate("() => document.activeElement.textContent") == "Run the hidden tests"
    form.locator(".cm-content").click()
    pg.keyboard.press("ControlOrMeta+Enter")
    expect(form.locator(".lllm-q__output")).to_have_text(f"All {checks()} tests passed.", timeout=RUNTIME_TIMEOUT)
    expect(form).to_have_attribute("data-result", "right")
    assert pg.evaluate(f"() => localStorage.getItem('lllm.draft.v1:quiz:{EXERCISE}')") is None, "a passed exercise keeps no draft"
    assert pg.evaluate(f"() => JSON.parse(localStorage.getItem('lllm.quiz.v1')).questions['{EXERCISE}'].answer.code") == TYPED
    page.assert_clean()


# ---- a runnable cell -------------------------------------------------------------------------------

def test_a_cell_keeps_its_draft_runs_it_and_resets(page, site_server):
    pg = page.page
    pg.goto(site_server.url + CELLS_PAGE)
    cell = editor_of(pg, "div.runnable.highlight >> nth=0")
    original = value(cell)
    assert original and original == cell.locator("pre code").text_content().rstrip("\n")
    expect(cell.locator(".cm-content")).to_have_attribute("aria-label", "Python code, cell 1")
    cell.locator(".cm-content").click()
    pg.keyboard.press("ControlOrMeta+End")
    pg.keyboard.press("Enter")
    pg.keyboard.type("print('my draft', 6 * 7)")
    pg.reload()
    cell = editor_of(pg, "div.runnable.highlight >> nth=0")
    assert value(cell) == original + "\nprint('my draft', 6 * 7)"
    cell.locator(".cm-content").click()
    pg.keyboard.press("Shift+Enter")                    # runs the cell, as Ctrl+Enter does
    expect(cell).to_have_attribute("data-lllm-result", "ok", timeout=RUNTIME_TIMEOUT)
    expect(pg.locator(".lllm-cell__output").first).to_contain_text("my draft 42")
    pg.locator(".lllm-cell__bar").first.get_by_role("button", name="Reset").click()
    assert value(cell) == original
    assert pg.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('lllm.draft.v1:cell:'))") == []
    page.assert_clean()


# ---- accessibility ---------------------------------------------------------------------------------

def test_axe_finds_nothing_serious_around_the_editors(page, site_server):
    pg = page.page
    for path, selector in ((QUIZ_PAGE, f'.lllm-q[data-qid="{EXERCISE}"]'), (CELLS_PAGE, "div.runnable.highlight >> nth=0")):
        pg.goto(site_server.url + path)
        editor_of(pg, selector).locator(".cm-content").click()      # focused, with its active line drawn
        assert serious_violations(pg) == [], path
    page.assert_clean()
