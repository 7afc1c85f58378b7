"""The course in real Chromium: a fresh profile sees the Course page and the home page at 0; one unit
taken end to end (read, run a cell, the quiz, the exercise against its hidden checks) is marked
done, moves the bar and the nav mark, and survives a reload and an export/import into a fresh
browser context; progress saved before a unit was inserted still counts, unit by unit (it is kept
by page and question id, never by a unit's place); a finished course shows a printable summary; axe finds nothing serious on the
Course page, which works at 390 px and by keyboard.

Uses tests/conftest.py: `site_server` (the site built once with --strict) and `page` (a fresh
context, off-origin requests blocked, console errors kept).
"""

from __future__ import annotations

import base64
import json
import re

import pytest
from playwright.sync_api import expect

from conftest import origin, watch
from support.quiz_page import check_html
from support.reading import FAST_READING, read_through
from support.axe import serious_violations

pytestmark = pytest.mark.browser
RUNTIME_TIMEOUT = 180_000   # ms: a cold Pyodide boot is 6–9 s here, far more on a busy machine
UNIT = "reasoning"          # the unit taken end to end: one page, cells that need no model download
PAGE = "reasoning/"


def course_data(site_server) -> dict:
    return json.loads((site_server.dir / "assets" / "course" / "course.json").read_text(encoding="utf-8"))


def quiz_questions(site_server, path: str, topic: str) -> list[dict]:
    text = (site_server.dir / path / "index.html").read_text(encoding="utf-8")
    blob = re.search(rf'data-quiz-mode="quiz" data-quiz-blob="([^"]+)" data-quiz-topic="{topic}"', text).group(1)
    return json.loads(base64.b64decode(blob))["questions"]


def bar(pg):
    return pg.get_by_role("progressbar", name="Course progress").first


# ---- a fresh profile --------------------------------------------------------------------------------------

def test_a_fresh_profile_sees_the_course_at_zero(page, site_server):
    pg = page.page
    pg.goto(site_server.url + "course/")
    units = course_data(site_server)["units"]
    expect(bar(pg)).to_have_attribute("aria-valuenow", "0")
    expect(pg.locator(".lllm-course-progress__text")).to_have_text(
        f"0 of {len(units)} units done · 0 of {4 * len(units)} steps (0 %)")
    titles = pg.locator("h3[id^='unit-']").all_inner_texts()
    assert [t.strip().rstrip("¶").strip() for t in titles] == [f"Unit {u['number']} · {u['title']}" for u in units]
    expect(pg.locator("[data-unit-status]").first).to_contain_text("Not started.")
    expect(pg.locator("[data-course-summary]")).to_be_hidden()
    pg.goto(site_server.url)
    expect(bar(pg)).to_have_attribute("aria-valuenow", "0")
    expect(pg.locator(".lllm-course-continue")).to_contain_text("Start the course: Unit 1 · Next-token prediction")
    expect(pg.locator(".md-nav--primary .lllm-course-mark[data-state='todo']").first).to_be_attached()
    page.assert_clean()


def test_continue_follows_the_reader_through_instant_navigation(page, site_server):
    pg = page.page
    pg.context.add_init_script(FAST_READING)      # reading is timed per section (support.reading)
    pg.goto(site_server.url)
    pg.evaluate("() => { window.sameDocument = true; }")
    pg.locator('.md-nav--primary a[href$="tinyllm/data/"]').first.click()          # instant navigation
    pg.wait_for_url(re.compile(r"/tinyllm/data/$"))
    expect(pg.locator(".lllm-course-sentinel")).to_have_count(1)
    read_through(pg)                              # each section in view long enough, not a jump to the end
    expect(pg.locator(".md-nav--primary a.md-nav__link--active .lllm-course-mark").first).to_have_attribute("data-state", "started")
    pg.locator(".md-nav--primary a.md-nav__link", has_text=re.compile(r"^\s*Home\s*$")).first.click()
    pg.wait_for_url(site_server.url)
    assert pg.evaluate("() => window.sameDocument") is True, "the links were not followed by instant navigation"
    expect(pg.locator(".lllm-course-continue")).to_have_text(
        "Continue where you left off: Unit 2 · Training TinyLLM — Model and training")
    expect(bar(pg)).to_have_attribute("aria-valuenow", "0")      # a unit's read step needs all its pages
    page.assert_clean()


# ---- one unit end to end -----------------------------------------------------------------------------------

def answer(pg, q):
    """Answer one question right, as a reader would (code questions are the exercise, done apart)."""
    form = pg.locator(f'.lllm-q[data-qid="{q["id"]}"]')
    if q["kind"] in ("single", "multiple"):
        check_html(form, [c["html"] for c in q["choices"] if c["correct"]])     # shown shuffled: by text
        form.get_by_role("button", name="Check").click()
    elif q["kind"] == "short":
        form.locator("input.lllm-q__text").fill(q["shown"])
        form.get_by_role("button", name="Check").click()
    elif q["kind"] == "reflection":
        form.locator("textarea").fill("My own words.")
        form.get_by_role("button", name="Reveal the model answer").click()
        form.get_by_role("button", name="Good").click()
    expect(form).to_have_attribute("data-result", "right")


def test_one_unit_end_to_end_survives_reload_and_export_import(page, site_server, browser, tmp_path):
    pg = page.page
    unit = next(u for u in course_data(site_server)["units"] if u["id"] == UNIT)
    pg.context.add_init_script(FAST_READING)
    pg.goto(site_server.url + PAGE)
    questions = quiz_questions(site_server, PAGE.rstrip("/"), unit["quiz"])
    exercise = next(q for q in questions if q["id"] == unit["exercise"])

    # run: the first cell, to the end (the runtime starts here)
    cell = pg.locator("div.runnable.highlight").first
    cell.scroll_into_view_if_needed()
    pg.locator(".lllm-cell__bar").first.get_by_role("button", name="Run").click()
    expect(cell).to_have_attribute("data-lllm-result", "ok", timeout=RUNTIME_TIMEOUT)

    # the exercise: the stub fails a named hidden check, fetched only now; the solution passes
    form = pg.locator(f'.lllm-q[data-qid="{exercise["id"]}"]')
    assert not any("/assets/quiz/checks/" in u for u in page.requests), "checks were fetched before a submit"
    form.get_by_role("button", name="Run the hidden tests").click()
    expect(form.locator(".lllm-q__output")).to_contain_text(re.compile(r"Test \d of \d+ failed: \S"), timeout=RUNTIME_TIMEOUT)
    assert any(u.endswith(f"/assets/quiz/checks/{exercise['id']}.json") for u in page.requests)
    form.evaluate("(form, code) => { form.lllmEditor.value = code; }", exercise["solution"])   # editor.mjs's handle
    form.get_by_role("button", name="Run the hidden tests").click()
    expect(form.locator(".lllm-q__output")).to_have_text(re.compile(r"All \d+ tests passed\."), timeout=RUNTIME_TIMEOUT)

    # the quiz, every other question answered right
    for q in questions:
        if q["kind"] != "code":
            answer(pg, q)

    # read: the page part by part (each section in view for its, here shortened, reading time)
    read_through(pg)
    expect(pg.locator(".md-nav--primary a.md-nav__link--active .lllm-course-mark").first).to_have_attribute("data-state", "done")

    def check_done(p):
        p.goto(site_server.url + "course/")
        expect(bar(p)).to_have_attribute("aria-valuenow", str(round(100 / len(course_data(site_server)["units"]))))
        status = p.locator(f'[data-unit-status="{UNIT}"]')
        expect(status).to_contain_text("Done on")
        expect(status.locator("li[data-done='yes']")).to_have_count(4)
        expect(p.locator(f'[data-unit-status="next-token"]')).to_contain_text("Not started.")
        expect(p.locator(".lllm-course-mark[data-state='done']")).to_have_count(1)
        expect(p.locator(".lllm-course-mark")).to_have_count(sum(len(u["pages"]) for u in course_data(site_server)["units"]))

    check_done(pg)
    pg.reload()
    check_done(pg)

    # export on the Progress page, import into a fresh browser context
    pg.goto(site_server.url + "progress/")
    with pg.expect_download() as download:
        pg.get_by_role("button", name="Export progress").click()
    saved = tmp_path / "progress.json"
    download.value.save_as(saved)
    exported = json.loads(saved.read_text(encoding="utf-8"))
    assert f"read:{unit['pages'][0]['src']}" in exported["course"] and f"ran:{unit['run']}" in exported["course"]
    page.assert_clean()

    fresh = watch(browser.new_context(service_workers="block"), {origin(site_server.url)})
    try:
        other = fresh.page
        other.goto(site_server.url + "course/")
        expect(bar(other)).to_have_attribute("aria-valuenow", "0")
        other.goto(site_server.url + "progress/")
        other.locator(".lllm-progress__file").set_input_files(str(saved))
        expect(other.locator(".lllm-quiz__message")).to_contain_text("Imported")
        check_done(other)
        other.goto(site_server.url)
        expect(other.locator(".lllm-course-continue")).to_contain_text("Continue where you left off: Unit 1")
        fresh.assert_clean()
    finally:
        other.context.close()


def test_every_units_exercise_runs_in_the_page_against_its_hidden_checks(page, site_server):
    """Each unit's exercise, reached from the Course page by instant navigation (so Python boots
    once): the stub fails a named check, the solution passes them all."""
    pg = page.page
    pg.goto(site_server.url + "course/")
    pg.evaluate("() => { window.sameDocument = true; }")
    for unit in course_data(site_server)["units"]:
        quiz_page = next(p for p in unit["pages"] if p["src"] == unit["quizPage"])
        q = next(q for q in quiz_questions(site_server, quiz_page["url"].rstrip("/") or ".", unit["quiz"])
                 if q["id"] == unit["exercise"])
        pg.locator(f'#unit-{unit["id"]} + .lllm-course-unit a[href$="#quiz-{unit["quiz"]}"]').click()
        form = pg.locator(f'.lllm-q[data-qid="{q["id"]}"]')
        run = form.get_by_role("button", name="Run the hidden tests")
        # CodeMirror replaces the textarea as the quiz comes near, which moves the button: a click
        # made while it moves can land beside it (on a loaded machine the page may also land short of
        # the quiz), so bring the quiz into view and click once the editor is in place
        form.scroll_into_view_if_needed(timeout=RUNTIME_TIMEOUT)
        expect(form.locator(".cm-editor")).to_be_visible(timeout=RUNTIME_TIMEOUT)
        run.click()
        expect(form.locator(".lllm-q__output")).to_contain_text(re.compile(r"^Test \d+ of \d+ failed: \S"), timeout=RUNTIME_TIMEOUT)
        form.evaluate("(form, code) => { form.lllmEditor.value = code; }", q["solution"])
        run.click()
        expect(form.locator(".lllm-q__output")).to_have_text(f"All {q['checks']} tests passed.", timeout=RUNTIME_TIMEOUT)
        pg.go_back()
        expect(pg.locator("h1")).to_have_text(re.compile("The course"))
    assert pg.evaluate("() => window.sameDocument") is True, "a full page load: Python booted more than once"
    page.assert_clean()


def test_import_merges_course_marks_by_the_latest_and_takes_old_files(page, site_server):
    """store.mjs: a course mark from a file replaces this browser's only if it is at least as
    recent (the rule questions follow); a file from before the course (no "course") still imports."""
    pg = page.page
    pg.goto(site_server.url + "progress/")
    result = pg.evaluate("""async (url) => {
        const store = await import(url);
        store.mark("read:tinyllm/data.md", 2000);
        store.mark("read:tinyllm/data.md", 9000);                      // set once: the first time counts
        const file = (course) => JSON.stringify({format: store.FORMAT, questions: {}, course});
        store.importText(file({"read:tinyllm/data.md": {last: 1000}, "ran:tinyllm/data.md": {last: 1500}}));
        const older = store.marks()["read:tinyllm/data.md"].last;
        store.importText(file({"read:tinyllm/data.md": {last: 3000}}));
        const newer = store.marks()["read:tinyllm/data.md"].last;
        const old = store.importText(JSON.stringify({format: store.FORMAT, questions: {}}));
        let bad = null;
        try { store.importText(file({"read:x": {last: "soon"}})); } catch (e) { bad = e.message; }
        return {older, newer, ran: store.marks()["ran:tinyllm/data.md"].last, old, bad,
                exported: Object.keys(JSON.parse(store.exportText()).course).sort()};
    }""", site_server.url + "assets/quiz/store.mjs")
    assert result["older"] == 2000 and result["newer"] == 3000 and result["ran"] == 1500
    assert result["old"] == 0 and result["bad"].startswith("This file is not LLLM quiz progress")
    assert result["exported"] == ["ran:tinyllm/data.md", "read:tinyllm/data.md"]
    page.assert_clean()


# ---- a finished course, printed ------------------------------------------------------------------------

def finished_store(site_server, skip: tuple[str, ...] = ()) -> str:
    """Every unit done, except the units in `skip` (as if they did not exist when it was saved)."""
    data, when = course_data(site_server), 1_764_000_000_000
    questions, course = {}, {}
    for unit in data["units"]:
        if unit["id"] in skip:
            continue
        for qid in unit["questions"]:
            questions[qid] = {"correct": True, "last": when, "due": when + 86_400_000, "reps": 1, "interval": 1,
                              "ease": 2.5, "quality": 4, "answer": {"passed": True, "done": True}}
        for p in unit["pages"]:
            course[f"read:{p['src']}"] = {"last": when}
        course[f"ran:{unit['run']}"] = {"last": when}
    return json.dumps({"version": 1, "questions": questions, "course": course})


def test_a_finished_course_shows_a_printable_summary(page, site_server):
    pg = page.page
    pg.goto(site_server.url + "course/")
    pg.evaluate("(v) => localStorage.setItem('lllm.quiz.v1', v)", finished_store(site_server))
    pg.reload()
    expect(bar(pg)).to_have_attribute("aria-valuenow", "100")
    summary = pg.locator("[data-course-summary]")
    expect(summary).to_be_visible()
    units = len(course_data(site_server)["units"])
    expect(summary).to_contain_text(f"all {units} units completed")
    expect(summary.locator("tbody tr")).to_have_count(units)
    expect(summary.get_by_role("button", name="Print the summary")).to_be_visible()
    pg.emulate_media(media="print")
    expect(summary).to_be_visible()
    expect(pg.locator(".md-sidebar--primary")).to_be_hidden()
    expect(pg.locator("#unit-next-token")).to_be_hidden()
    pg.emulate_media(media="screen")
    pg.goto(site_server.url)
    expect(pg.locator(".lllm-course-continue")).to_contain_text("You finished the course.")
    page.assert_clean()


def test_progress_saved_before_a_unit_was_inserted_still_counts(page, site_server):
    """A browser that finished the course before "Inside the model" was inserted as unit 3 (so the
    ONNX unit moved from 3 to 4, and every later unit one on): its units stay done where they are
    now, the new one is not started, and Continue leads to it."""
    pg = page.page
    units = course_data(site_server)["units"]
    inserted = next(u for u in units if u["id"] == "inside-model")
    assert inserted["number"] == 3 and units[3]["id"] == "onnx-page"
    pg.goto(site_server.url + "course/")
    pg.evaluate("(v) => localStorage.setItem('lllm.quiz.v1', v)", finished_store(site_server, skip=("inside-model",)))
    pg.reload()
    expect(pg.locator(".lllm-course-progress__text")).to_have_text(
        f"{len(units) - 1} of {len(units)} units done · {4 * (len(units) - 1)} of {4 * len(units)} steps "
        f"({round(100 * (len(units) - 1) / len(units))} %)")
    for unit in units:
        status = pg.locator(f'[data-unit-status="{unit["id"]}"]')
        expect(status).to_contain_text("Not started." if unit is inserted else "Done on")
    expect(pg.locator("[data-course-summary]")).to_be_hidden()
    pg.goto(site_server.url)
    expect(pg.locator(".lllm-course-continue")).to_contain_text(
        f"Continue where you left off: Unit 3 · {inserted['title']} — {inserted['pages'][0]['title']}")
    page.assert_clean()


# ---- accessibility, small screens, keyboard ------------------------------------------------------------------

@pytest.mark.parametrize("store", ["fresh", "finished"])
def test_axe_finds_nothing_serious_on_the_course_page(page, site_server, store):
    pg = page.page
    pg.goto(site_server.url + "course/")
    if store == "finished":
        pg.evaluate("(v) => localStorage.setItem('lllm.quiz.v1', v)", finished_store(site_server))
        pg.reload()
        expect(pg.locator("[data-course-summary]")).to_be_visible()
    expect(bar(pg)).to_be_visible()
    assert serious_violations(pg) == []
    pg.goto(site_server.url)
    expect(bar(pg)).to_be_visible()
    assert serious_violations(pg) == []


def test_the_course_works_at_390px_and_by_keyboard(browser, site_server):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    watched = watch(context, {origin(site_server.url)})
    pg = watched.page
    try:
        for path in ("course/", ""):
            pg.goto(site_server.url + path)
            expect(bar(pg)).to_be_visible()
            assert pg.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), path
        # keyboard: Tab reaches "Start the course" on the home page and Enter follows it
        # (past Material's skip link, search and the whole navigation, which grows with the site)
        for _ in range(200):
            pg.keyboard.press("Tab")
            if pg.evaluate("() => Boolean(document.activeElement.closest('.lllm-course-continue'))"):
                break
        else:
            pytest.fail("Tab never reached the course's Continue link")
        pg.keyboard.press("Enter")
        pg.wait_for_url(re.compile(r"/tinyllm/$"))
        watched.assert_clean()
    finally:
        context.close()
