"""Quizzes in real Chromium, on the real site: answering gives the right feedback and score, progress
survives a reload and can be reset, exported and imported, the review page brings back what is due,
a code attempt is graded by the page's Python and locks after its tries, corrupt progress is put
aside with a notice (restoring it: test_progress_recovery_browser.py), and no answer or explanation
is in the page source or the search index.

Uses tests/conftest.py: `site_server` (the site built once with --strict, served on loopback with
the _headers CSP) and `page` (a fresh context, off-origin requests blocked, console errors kept).
"""

from __future__ import annotations

import datetime as dt
import html as html_lib
import json
import re
import sys
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hooks import quiz_files  # noqa: E402
from hooks.quiz import MARKER_RE  # noqa: E402
from support.quiz_page import check_keys  # noqa: E402

pytestmark = pytest.mark.browser
RUNTIME_TIMEOUT = 180_000   # ms: a cold Pyodide boot is 6–9 s here, far more on a busy CI machine


def question(pg, qid):
    return pg.locator(f'.lllm-q[data-qid="{qid}"]')


def open_quiz(watched, site_server, path="architecture/", topic="predictor"):
    pg = watched.page
    pg.goto(site_server.url + path)
    quiz = pg.locator(f'.lllm-quiz[data-quiz-topic="{topic}"]')
    expect(quiz.locator(".lllm-q").first).to_be_visible()
    return quiz


def answer_choice(pg, qid, *keys):
    """Check the choices written at these places in the quiz file (the page shows them shuffled)."""
    q = question(pg, qid)
    check_keys(q, qid, *keys)
    q.get_by_role("button", name="Check").click()
    return q


# ---- answering, score, reset, reload ------------------------------------------------------------------

def test_answers_get_feedback_score_and_survive_a_reload(page, site_server):
    pg = page.page
    pg.goto(site_server.url)
    pg.evaluate("window.__sameDocument = true")
    pg.locator('.md-nav a[href$="architecture/"]').first.click()          # instant navigation
    quiz = pg.locator('.lllm-quiz[data-quiz-topic="predictor"]')
    expect(quiz.locator(".lllm-q").first).to_be_visible()
    assert pg.evaluate("window.__sameDocument") is True, "the quiz must render after an instant navigation"
    score = quiz.locator(".lllm-quiz__score")
    expect(score).to_have_text("Score: 0 of 6 right · 0 of 6 answered.")

    q = answer_choice(pg, "predictor-returns", 0)
    expect(q.locator(".lllm-q__feedback")).to_have_text("Correct.")
    expect(q.locator(".lllm-q__why")).to_have_count(4)           # an explanation for every choice
    expect(score).to_have_text("Score: 1 of 6 right · 1 of 6 answered.")

    q = answer_choice(pg, "predictor-what-is-waist", 1)
    expect(q.locator(".lllm-q__feedback")).to_contain_text("Not quite")
    expect(q.locator(".lllm-q__choice.is-chosen .lllm-q__why")).to_contain_text("Its size is a consequence")
    expect(score).to_have_text("Score: 1 of 6 right · 2 of 6 answered.")

    q = answer_choice(pg, "predictor-who-imports", 0, 1)
    expect(q.locator(".lllm-q__feedback")).to_have_text("Correct.")

    # the keyboard alone: type a short answer and press Enter
    box = question(pg, "predictor-swap").locator("input[type=text]")
    box.focus()
    pg.keyboard.type("  Zero. ")
    pg.keyboard.press("Enter")
    expect(question(pg, "predictor-swap").locator(".lllm-q__feedback")).to_contain_text("Correct.")
    expect(score).to_have_text("Score: 3 of 6 right · 4 of 6 answered.")

    # a reflection: reveal, then grade yourself with the keyboard (focus moves to the first grade)
    r = question(pg, "predictor-echo-bug")
    r.locator("textarea").fill("The callers stripped the echo differently.")
    r.get_by_role("button", name="Reveal the model answer").click()
    expect(r.locator(".lllm-q__model")).to_contain_text("Model answer")
    pg.keyboard.press("Tab")
    pg.keyboard.press("Tab")                                      # Again -> Hard -> Good
    pg.keyboard.press("Enter")
    expect(r).to_have_attribute("data-result", "right")
    expect(score).to_have_text("Score: 4 of 6 right · 5 of 6 answered.")

    pg.reload()
    quiz = pg.locator('.lllm-quiz[data-quiz-topic="predictor"]')
    expect(quiz.locator(".lllm-quiz__score")).to_have_text("Score: 4 of 6 right · 5 of 6 answered.")
    expect(question(pg, "predictor-what-is-waist")).to_have_attribute("data-result", "wrong")
    expect(question(pg, "predictor-swap").locator("input[type=text]")).to_have_value("  Zero. ")
    expect(question(pg, "predictor-returns").locator("input").first).to_be_disabled()

    quiz.get_by_role("button", name="Reset this quiz").click()
    expect(quiz.locator(".lllm-quiz__score")).to_have_text("Score: 0 of 6 right · 0 of 6 answered.")
    expect(question(pg, "predictor-returns").locator("input").first).to_be_enabled()
    pg.reload()
    expect(pg.locator('.lllm-quiz[data-quiz-topic="predictor"] .lllm-quiz__score')).to_have_text(
        "Score: 0 of 6 right · 0 of 6 answered.")
    page.assert_clean()


def test_choosing_nothing_asks_for_an_answer(page, site_server):
    open_quiz(page, site_server)
    q = question(page.page, "predictor-returns")
    q.get_by_role("button", name="Check").click()
    expect(q.locator(".lllm-q__feedback")).to_have_text("Choose an answer first.")
    expect(q.locator("input").first).to_be_enabled()
    page.assert_clean()


# ---- spaced review ----------------------------------------------------------------------------------------

def test_review_page_lists_what_is_due(page, site_server):
    pg = page.page
    pg.goto(site_server.url + "review/")
    expect(pg.locator(".lllm-quiz__score")).to_contain_text("Nothing is due for review.")
    open_quiz(page, site_server, "tinyllm/generation/", "generation")
    answer_choice(pg, "gen-greedy", 1)                     # wrong: due again in one day
    answer_choice(pg, "gen-carry-state", 0)                # right: due in one day too (first review)
    pg.goto(site_server.url + "review/")
    expect(pg.locator(".lllm-quiz__score")).to_contain_text("Nothing is due for review. The next question comes back on")

    pg.clock.set_fixed_time(dt.datetime.now() + dt.timedelta(days=2))
    pg.reload()
    expect(pg.locator(".lllm-quiz__score")).to_have_text("2 of 2 due questions left to review.")
    due = pg.locator(".lllm-review__item")
    expect(due).to_have_count(2)
    expect(due.first.locator(".lllm-q__from a")).to_have_text("Quiz: generation and sampling")
    q = answer_choice(pg, "gen-greedy", 0)                 # asked afresh, answered right this time
    expect(q.locator(".lllm-q__feedback")).to_have_text("Correct.")
    expect(pg.locator(".lllm-quiz__score")).to_have_text("1 of 2 due questions left to review.")
    record = pg.evaluate("JSON.parse(localStorage.getItem('lllm.quiz.v1')).questions['gen-greedy']")
    assert record["correct"] is True and record["reps"] == 1 and record["interval"] == 1
    pg.reload()
    expect(pg.locator(".lllm-review__item")).to_have_count(1)    # gen-greedy is scheduled a day on
    page.assert_clean()


# ---- export and import ------------------------------------------------------------------------------------

def test_progress_exports_and_imports_as_a_file(page, site_server, browser, tmp_path):
    pg = page.page
    open_quiz(page, site_server, "tinyllm/data/", "data")
    answer_choice(pg, "data-unknown-char", 0)
    answer_choice(pg, "data-vocab-ascii", 2)
    pg.goto(site_server.url + "progress/")
    row = pg.locator('tr[data-topic="data"]')
    expect(row.locator("td").nth(1)).to_have_text("2 of 6")
    expect(row.locator("td").nth(2)).to_have_text("1")
    with pg.expect_download() as download:
        pg.get_by_role("button", name="Export progress").click()
    saved = tmp_path / "progress.json"
    download.value.save_as(saved)
    data = json.loads(saved.read_text())
    assert data["format"] == "lllm-quiz-progress/1"
    assert set(data["questions"]) == {"data-unknown-char", "data-vocab-ascii"}

    other = browser.new_context()                              # a second browser profile, empty
    try:
        fresh = other.new_page()
        fresh.goto(site_server.url + "progress/")
        expect(fresh.locator('tr[data-topic="data"] td').nth(1)).to_have_text("0 of 6")
        bad = tmp_path / "notes.json"
        bad.write_text('{"hello": 1}')
        fresh.locator(".lllm-progress__file").set_input_files(str(bad))
        expect(fresh.locator(".lllm-quiz__message")).to_contain_text("is not LLLM quiz progress")
        fresh.locator(".lllm-progress__file").set_input_files(str(saved))
        expect(fresh.locator(".lllm-quiz__message")).to_have_text("Imported 2 question records from progress.json.")
        expect(fresh.locator('tr[data-topic="data"] td').nth(1)).to_have_text("2 of 6")
        fresh.goto(site_server.url + "tinyllm/data/")
        expect(fresh.locator(".lllm-quiz__score")).to_have_text("Score: 1 of 6 right · 2 of 6 answered.")
    finally:
        other.close()
    page.assert_clean()


def test_corrupt_progress_is_put_aside_with_a_notice(page, site_server):
    pg = page.page
    open_quiz(page, site_server)
    pg.evaluate("localStorage.setItem('lllm.quiz.v1', '{not json')")
    pg.reload()
    quiz = pg.locator('.lllm-quiz[data-quiz-topic="predictor"]')
    expect(pg.locator("#lllm-recovery[role=alert]")).to_contain_text("could not be read")
    expect(quiz.locator(".lllm-quiz__score")).to_have_text("Score: 0 of 6 right · 0 of 6 answered.")
    answer_choice(pg, "predictor-returns", 0)
    stored = json.loads(pg.evaluate("localStorage.getItem('lllm.quiz.v1')"))
    assert "predictor-returns" in stored["questions"]
    assert pg.evaluate("localStorage.getItem('lllm.quiz.v1.corrupt')") == "{not json"
    page.assert_clean()


# ---- answers stay out of the page source and the search index ---------------------------------------------

def plain(markdown_text: str) -> str:
    return " ".join(re.sub(r"[`*_]", "", str(markdown_text)).split())


def secrets():
    """Every answer and explanation text (first sentence), as a reader would see it on the page."""
    quizzes, _ = quiz_files.load_all(run_code=False)
    for quiz in quizzes.values():
        for q in quiz.questions:
            texts = [c["why"] for c in q.get("choices", [])]
            texts += [q.get(k) for k in ("explanation", "model_answer", "remarks") if q.get(k)]
            texts += [m["why"] for m in q.get("misconceptions") or []]
            for text in texts:
                yield q["id"], plain(text).split(". ")[0]
    # (Code solutions are left out: they are often the real source, which the pages rightly show.)


def url_of(page: Path) -> str:
    """site/agents/react.md -> agents/react/, site/reasoning/index.md -> reasoning/ (directory URLs)."""
    path = page.relative_to(ROOT / "site").with_suffix("")
    return "" if path.as_posix() == "index" else (path.parent if path.name == "index" else path).as_posix() + "/"


def visible_text(raw: str) -> str:
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


def test_no_answer_in_page_source_or_search_index(site_server):
    def get(path):
        with urllib.request.urlopen(site_server.url + path) as response:
            return response.read().decode("utf-8")

    with_quiz = {url_of(p) for p in (ROOT / "site").rglob("*.md") if MARKER_RE.search(p.read_text(encoding="utf-8"))}
    pages = {path: get(path) for path in sorted(with_quiz) + ["review/", "progress/"]}
    assert len(pages) >= 10
    index = get("search/search_index.json")
    searchable = visible_text(" ".join(doc["text"] + " " + doc["title"] for doc in json.loads(index)["docs"]))
    checked = 0
    for qid, secret in secrets():
        if len(secret.split()) < 4:          # too short to be distinctive (a name, a number)
            continue
        checked += 1
        assert secret not in searchable, f"{qid}: {secret!r} is in the search index"
        for path, raw in pages.items():
            assert secret not in raw and secret not in visible_text(raw), f"{qid}: {secret!r} is in the source of /{path}"
    assert checked > 80
    assert 'data-quiz-topic="predictor"' in pages["architecture/"]      # the quiz is there, encoded


# ---- code attempts: graded by the page's Python -------------------------------------------------------------

def test_code_attempt_runs_in_the_page_locks_after_its_tries_and_reveals_the_solution(page, site_server):
    pg = page.page
    open_quiz(page, site_server, "architecture/", "architecture")
    q = question(pg, "bloat-wrap-code")
    run = q.get_by_role("button", name="Run the hidden tests")
    expect(q.locator(".lllm-q__tries")).to_have_text(" Tries left: 3 of 3.")
    for left in (2, 1):                                         # the stub: it ignores the stop string
        run.click()
        expect(q.locator(".lllm-q__output")).to_have_text(
            "Test 1 of 4 failed: the completion should end just before the stop string", timeout=RUNTIME_TIMEOUT)
        expect(q.locator(".lllm-q__tries")).to_have_text(f" Tries left: {left} of 3.")
        expect(run).to_be_enabled()
    q.scroll_into_view_if_needed()
    expect(q).to_have_attribute("data-editor", "ready")      # the code editor has replaced the textarea
    q.locator(".cm-content").fill("def with_stop(predictor, stop):\n    return 1 / 0\n")
    run.click()
    expect(q.locator(".lllm-q__output")).to_have_text("Test 1 of 4 failed: ZeroDivisionError: division by zero")
    expect(run).to_be_disabled()
    expect(q.locator(".lllm-q__feedback")).to_contain_text("Out of tries")
    expect(q.locator(".lllm-q__solution")).to_contain_text("text.split(stop, 1)[0]")
    expect(q).to_have_attribute("data-result", "wrong")

    # a right answer passes on the first try
    open_quiz(page, site_server, "tinyllm/onnx/", "onnx")
    q = question(pg, "onnx-reorder-code")
    q.scroll_into_view_if_needed()
    expect(q).to_have_attribute("data-editor", "ready")
    q.locator(".cm-content").fill("def onnx_gate_order(w, H):\n"
                                  "    i, f, o, g = (w[k * H:(k + 1) * H] for k in range(4))\n"
                                  "    return i + o + f + g\n")
    q.get_by_role("button", name="Run the hidden tests").click()
    expect(q.locator(".lllm-q__output")).to_have_text("All 3 tests passed.", timeout=RUNTIME_TIMEOUT)
    expect(q).to_have_attribute("data-result", "right")
    assert pg.evaluate("JSON.parse(localStorage.getItem('lllm.quiz.v1')).questions['onnx-reorder-code'].quality") == 5

    pg.goto(site_server.url + "architecture/")                    # the lock survives a reload
    q = question(pg, "bloat-wrap-code")
    expect(q.get_by_role("button", name="Run the hidden tests")).to_be_disabled()
    expect(q.locator(".lllm-q__solution")).to_be_attached()
    page.assert_clean()


def test_code_attempt_without_the_runtime_says_it_is_needed(page, site_server):
    pg = page.page
    # lllm.mjs assigns window.lllm; make that assignment a no-op, as on a page without the runtime
    pg.add_init_script("Object.defineProperty(window, 'lllm', {get() { return undefined; }, set(v) {}, configurable: false})")
    open_quiz(page, site_server, "tinyllm/data/", "data")
    q = question(pg, "data-encode-code")
    expect(q.locator(".lllm-q__runtime")).to_contain_text("the live runtime is needed")
    q.get_by_role("button", name="Run the hidden tests").click()
    expect(q.locator(".lllm-q__runtime")).to_contain_text("The live runtime is needed")
    expect(q.locator(".lllm-q__tries")).to_have_text(" Tries left: 3 of 3.")
    page.assert_clean()


# ---- the SM-2 schedule (store.mjs), run in the page ------------------------------------------------------

def test_sm2_schedule(page, site_server):
    pg = page.page
    pg.goto(site_server.url + "review/")
    steps = pg.evaluate("""async () => {
        const loader = document.querySelector('script[src*="assets/runtime/loader.mjs"]').src;
        const store = await import(new URL("../quiz/store.mjs", loader).href);
        const run = (qualities) => {
            let record = null;
            return qualities.map((q) => (record = store.schedule(record, q, 0)))
                            .map((r) => [r.reps, r.interval, Math.round(r.ease * 1000) / 1000, r.due / store.DAY]);
        };
        return {good: run([4, 4, 4, 4]), lapse: run([5, 5, 1, 3]), floor: run([0, 0, 0, 0, 0, 0, 0, 0])};
    }""")
    assert steps["good"] == [[1, 1, 2.5, 1], [2, 6, 2.5, 6], [3, 15, 2.5, 15], [4, 38, 2.5, 38]]
    assert steps["lapse"] == [[1, 1, 2.6, 1], [2, 6, 2.7, 6], [0, 1, 2.16, 1], [1, 1, 2.02, 1]]
    assert steps["floor"][-1] == [0, 1, 1.3, 1]                    # ease never drops below 1.3
    page.assert_clean()
