"""Progress is never lost silently, in real Chromium (site/assets/quiz/store.mjs and recovery.mjs,
hooks/overrides/main.html): with the stored progress unreadable, whichever page a reader opens first
(Home, Course, Progress or a quiz page, each in a fresh browser) shows one notice; "Restore the saved
copy" brings the answers and course marks back and "Start over" deletes the copy for good. With
Material's own entries unreadable too (the theme's palette, the linked tabs), no page throws, and
the dark-mode toggle is still there.

Uses tests/conftest.py: `site_server` and `page` (a fresh context per test; console errors and
uncaught exceptions, the pageerror events, are recorded and fail assert_clean).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from test_site_browser import mermaid_blocks, wait_for_diagrams

pytestmark = pytest.mark.browser
KEY = "lllm.quiz.v1"
T = 1_764_700_000_000                       # ms: when the saved answers were given
ANSWER = {"reps": 1, "interval": 1, "ease": 2.5, "due": T + 86_400_000, "last": T, "quality": 4, "answer": [0], "correct": True}
THEME = {"/.__palette": "{not json", "/.__tabs": "[unterminated"}   # Material's entries (scope "/")


def course(site_server) -> dict:
    return json.loads((site_server.dir / "assets" / "course" / "course.json").read_text(encoding="utf-8"))


def progress(site_server) -> dict:
    """The learner's progress: one quiz answer, and every page of the first unit read (one step)."""
    first = course(site_server)["units"][0]
    return {"version": 1, "questions": {"predictor-returns": ANSWER},
            "course": {f"read:{p['src']}": {"last": T} for p in first["pages"]}}


def damage(page, site_server, entries: dict) -> None:
    """Write `entries` into the site's localStorage from robots.txt (a page without scripts)."""
    page.page.goto(site_server.url + "robots.txt")
    page.page.evaluate("entries => { for (const [k, v] of Object.entries(entries)) localStorage.setItem(k, v); }", entries)


# Two ways progress becomes unreadable: text that is not JSON (the copy saved at the last write
# brings it back) and JSON with one record that is not a record (the readable ones come back).
def not_json(site_server) -> dict:
    return {f"{KEY}.saved": json.dumps(progress(site_server)), KEY: '{"version": 1, "questions": {"predictor-ret'}


def bad_record(site_server) -> dict:
    data = progress(site_server)
    data["questions"]["predictor-swap"] = {"ease": "high", "due": "tomorrow"}
    return {KEY: json.dumps(data)}


PAGES = {  # path -> what shows the learner's progress there once it is back
    "": ".lllm-course-progress__text",
    "course/": ".lllm-course-progress__text",
    "progress/": 'tr[data-topic="predictor"] td:nth-child(2)',
    "architecture/": '.lllm-quiz[data-quiz-topic="predictor"] .lllm-quiz__score',
}


def shown_progress(pg, path: str, units: int) -> str:
    return {"": f"0 of {units} units done · 1 of {4 * units} steps",
            "course/": f"0 of {units} units done · 1 of {4 * units} steps",
            "progress/": "1 of 6",
            "architecture/": "Score: 1 of 6 right · 1 of 6 answered."}[path]


@pytest.mark.parametrize("broken", [not_json, bad_record], ids=["not-json", "bad-record"])
@pytest.mark.parametrize("path", list(PAGES), ids=["home", "course", "progress", "quiz"])
def test_the_first_page_opened_offers_the_copy_back_and_restore_brings_the_answers_back(page, site_server, path, broken):
    pg = page.page
    damage(page, site_server, {**broken(site_server), **THEME})
    pg.goto(site_server.url + path)
    notice = pg.locator("#lllm-recovery")
    expect(notice).to_have_attribute("role", "alert")
    expect(notice).to_contain_text("Your saved progress could not be read")
    expect(pg.locator(".lllm-recovery")).to_have_count(1)
    expect(pg.locator("label[title='Switch to dark mode'], label[title='Switch to light mode']").first).to_be_visible()
    where = pg.locator(PAGES[path])
    units = len(course(site_server)["units"])
    expect(where).not_to_contain_text(shown_progress(pg, path, units))        # the page starts from nothing

    notice.get_by_role("button", name="Restore the saved copy").click()
    expect(notice).to_have_attribute("role", "status")
    expect(notice).to_contain_text("Your progress is back")
    expect(where).to_contain_text(shown_progress(pg, path, units))
    stored = json.loads(pg.evaluate("k => localStorage.getItem(k)", KEY))
    assert stored["questions"] == {"predictor-returns": ANSWER}
    assert stored["course"] == progress(site_server)["course"]
    assert pg.evaluate("k => localStorage.getItem(k + '.corrupt')", KEY) is None

    pg.reload()
    expect(where).to_contain_text(shown_progress(pg, path, units))
    expect(pg.locator("#lllm-recovery")).to_have_count(0)
    page.assert_clean()


def test_start_over_deletes_the_copy_and_the_notice_does_not_return(page, site_server):
    pg = page.page
    damage(page, site_server, not_json(site_server))
    pg.goto(site_server.url + "course/")
    pg.locator("#lllm-recovery").get_by_role("button", name="Start over").click()
    expect(pg.locator("#lllm-recovery")).to_have_attribute("role", "status")
    assert pg.evaluate("k => localStorage.getItem(k + '.corrupt')", KEY) is None
    for path in ("", "architecture/", "progress/"):
        pg.goto(site_server.url + path)
        expect(pg.locator(".lllm-course-progress, .lllm-quiz").first).to_be_attached()
        expect(pg.locator("#lllm-recovery")).to_have_count(0)
    expect(pg.locator('tr[data-topic="predictor"] td:nth-child(2)')).to_have_text("0 of 6")
    page.assert_clean()


def test_the_notice_waits_on_every_page_until_the_learner_chooses(page, site_server):
    """Opening other pages does not consume the choice (instant navigation included), and answers
    given meanwhile are kept when the copy comes back."""
    pg = page.page
    damage(page, site_server, not_json(site_server))
    pg.goto(site_server.url)
    expect(pg.locator("#lllm-recovery")).to_be_visible()
    pg.locator('.md-nav a[href$="architecture/"]').first.click()          # instant navigation
    expect(pg.locator("#lllm-recovery")).to_be_visible()
    q = pg.locator('.lllm-q[data-qid="predictor-who-imports"]')
    q.locator("input").nth(0).check()
    q.get_by_role("button", name="Check").click()
    pg.locator("#lllm-recovery").get_by_role("button", name="Restore the saved copy").click()
    stored = json.loads(pg.evaluate("k => localStorage.getItem(k)", KEY))
    assert set(stored["questions"]) == {"predictor-returns", "predictor-who-imports"}
    page.assert_clean()


@pytest.mark.parametrize("palette", ["{not json", '{"index": "dark", "color": 3}', '"slate"'])
def test_an_unreadable_theme_entry_is_dropped_before_material_reads_it(page, site_server, palette):
    pg = page.page
    damage(page, site_server, {"/.__palette": palette, "/.__tabs": "[unterminated"})
    pg.goto(site_server.url + "architecture/")
    toggle = pg.locator("label[title='Switch to dark mode']")
    expect(toggle).to_be_visible()
    html = (site_server.dir / "architecture" / "index.html").read_text(encoding="utf-8")
    wait_for_diagrams(pg, mermaid_blocks(html))                              # Material's bundle ran: every diagram drawn
    toggle.click()
    expect(pg.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    assert json.loads(pg.evaluate("localStorage.getItem('/.__palette')"))["color"]["scheme"] == "slate"
    expect(pg.locator("#lllm-recovery")).to_have_count(0)                     # the theme is not the learner's progress
    page.assert_clean()
