"""Course marks that mean something, in real Chromium (site/assets/course/course.mjs, store.mjs).

- A quiz answered carelessly (always the first choice shown), reset after its answers were shown,
  then passed: no ✓ Quiz; the quiz, the Course page and the Progress page say "answers seen".
- The same quiz passed on a first attempt, in a fresh profile: ✓ Quiz, "passed on a first attempt".
- "Show the solution", then a reset and a pass: the exercise is "solution seen", not passed.
- A jump to a page's end marks nothing read; reading it part by part (support.reading, with the
  documented hook window.lllmReadingScale shortening each section's time) marks it read.
- After an answer, right or wrong, the question links the section that teaches it.

Uses tests/conftest.py: `site_server` (the site built once with --strict) and `page` (a fresh
context, off-origin requests blocked, console errors kept). Long timeouts: the machine is shared.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from support.reading import FAST_READING, read_through, sections, sections_read
from test_course_browser import answer, course_data, quiz_questions

pytestmark = pytest.mark.browser
SLOW = 60_000                 # ms: never Playwright's 5 s default
UNIT, PAGE = "reasoning", "reasoning/"


def unit_of(site_server) -> dict:
    return next(u for u in course_data(site_server)["units"] if u["id"] == UNIT)


def answer_carelessly(pg, q) -> None:
    """The first choice shown, a wrong word, "Again": what a learner clicking through does."""
    form = pg.locator(f'.lllm-q[data-qid="{q["id"]}"]')
    if q["kind"] in ("single", "multiple"):
        form.locator("input").first.check()
        form.get_by_role("button", name="Check").click()
    elif q["kind"] == "short":
        form.locator("input.lllm-q__text").fill("no idea")
        form.get_by_role("button", name="Check").click()
    elif q["kind"] == "reflection":
        form.locator("textarea").fill("?")
        form.get_by_role("button", name="Reveal the model answer").click()
        form.get_by_role("button", name="Again").click()
    else:
        return
    expect(form).to_have_attribute("data-result", re.compile("right|wrong"), timeout=SLOW)


def quiz_mark(pg, site_server):
    """The unit's quiz line on the Course page."""
    pg.goto(site_server.url + "course/")
    return pg.locator(f'[data-unit-status="{UNIT}"] li[data-first]')


def progress_row(pg, site_server, topic):
    pg.goto(site_server.url + "progress/")
    return pg.locator(f'tr[data-topic="{topic}"]')


def test_a_pass_after_reset_that_followed_revealed_answers_earns_no_quiz_mark(page, site_server):
    pg, unit = page.page, unit_of(site_server)
    questions = quiz_questions(site_server, PAGE.rstrip("/"), unit["quiz"])
    pg.goto(site_server.url + PAGE)
    for q in questions:
        answer_carelessly(pg, q)
    quiz = pg.locator(f'.lllm-quiz[data-quiz-topic="{unit["quiz"]}"]')
    expect(quiz.locator(".lllm-quiz__first")).to_have_attribute("data-first", "seen", timeout=SLOW)
    quiz.get_by_role("button", name="Reset this quiz").click()
    for q in questions:
        if q["kind"] != "code":
            answer(pg, q)                                  # every answer right, now that they were shown
    right = sum(q["kind"] != "code" for q in questions)
    expect(quiz.locator(".lllm-quiz__score")).to_contain_text(f"Score: {right} of {len(questions)} right", timeout=SLOW)
    expect(quiz.locator(".lllm-quiz__first")).to_contain_text("answers seen")
    line = quiz_mark(pg, site_server)
    expect(line).to_have_attribute("data-first", "seen", timeout=SLOW)
    expect(line).to_have_attribute("data-done", "no")
    expect(line).to_contain_text("Quiz: answers seen")
    row = progress_row(pg, site_server, unit["quiz"])
    expect(row.locator("td[data-first]")).to_have_text(re.compile(r"^answers seen \(\d+ of \d+ on the first attempt\)$"), timeout=SLOW)
    page.assert_clean()


def test_an_honest_first_pass_earns_the_quiz_mark(page, site_server):
    pg, unit = page.page, unit_of(site_server)
    questions = quiz_questions(site_server, PAGE.rstrip("/"), unit["quiz"])
    pg.goto(site_server.url + PAGE)
    for q in questions:
        if q["kind"] != "code":
            answer(pg, q)
    quiz = pg.locator(f'.lllm-quiz[data-quiz-topic="{unit["quiz"]}"]')
    expect(quiz.locator(".lllm-quiz__first")).to_have_attribute("data-first", "passed", timeout=SLOW)
    line = quiz_mark(pg, site_server)
    expect(line).to_have_attribute("data-done", "yes", timeout=SLOW)
    expect(line).to_contain_text("Quiz: passed on a first attempt")
    row = progress_row(pg, site_server, unit["quiz"])
    expect(row.locator("td[data-first]")).to_have_text(re.compile(r"^passed on a first attempt \(\d+ of \d+\)$"), timeout=SLOW)
    expect(row.locator("td[data-code]")).to_have_text("not tried")
    page.assert_clean()


def test_show_the_solution_marks_the_exercise_seen_not_passed(page, site_server):
    pg, unit = page.page, unit_of(site_server)
    pg.goto(site_server.url + PAGE)
    pg.evaluate("""async (id) => {
        const store = await import(new URL("../assets/quiz/store.mjs", location.href).href);
        store.grade(id, 1, {code: "", tries: 2, done: true, passed: false, shown: true, message: "You asked for the solution."}, false);
        store.forget([id]);                                           // "Reset this quiz"
        store.grade(id, 5, {code: "the solution, pasted", tries: 1, done: true, passed: true}, true);
    }""", unit["exercise"])
    pg.goto(site_server.url + "course/")
    status = pg.locator(f'[data-unit-status="{UNIT}"]')
    expect(status.locator('li[data-done="no"]', has_text="Exercise")).to_have_text(re.compile("Exercise: solution seen, not passed"), timeout=SLOW)
    row = progress_row(pg, site_server, unit["quiz"])
    expect(row.locator("td[data-code]")).to_have_text("solution seen", timeout=SLOW)
    page.assert_clean()


def test_a_jump_to_the_end_is_not_reading_and_reading_part_by_part_is(page, site_server):
    pg = page.page
    pg.context.add_init_script(FAST_READING)
    pg.goto(site_server.url + PAGE)
    sentinel = pg.locator(".lllm-course-sentinel[data-sections]")
    sentinel.wait_for(state="attached", timeout=SLOW)
    assert sections(pg) >= 4
    pg.evaluate("() => window.scrollTo({top: document.documentElement.scrollHeight, behavior: 'instant'})")
    # where the jump lands (the quiz, which does not count, may fill the window) sections may be read,
    # but not the page
    pg.wait_for_timeout(3000)               # 5 times the longest section's shortened time
    read_marks = "() => Object.keys(JSON.parse(localStorage.getItem('lllm.quiz.v1') || '{}').course || {}).filter((k) => k.startsWith('read:'))"
    assert pg.evaluate(read_marks) == []
    assert sections_read(pg) < sections(pg)
    mark = pg.locator(".md-nav--primary a.md-nav__link--active .lllm-course-mark").first
    expect(mark).to_have_attribute("data-state", "todo")
    read_through(pg)
    expect(mark).to_have_attribute("data-state", "started", timeout=SLOW)
    assert pg.evaluate(read_marks) == [f"read:{PAGE}index.md"]
    page.assert_clean()


def test_after_an_answer_the_question_links_where_it_is_taught(page, site_server):
    pg, unit = page.page, unit_of(site_server)
    questions = quiz_questions(site_server, PAGE.rstrip("/"), unit["quiz"])
    q = next(q for q in questions if q["kind"] == "single")
    pg.goto(site_server.url + PAGE)
    form = pg.locator(f'.lllm-q[data-qid="{q["id"]}"]')
    link = form.locator(".lllm-q__teaches")
    expect(link).to_be_hidden(timeout=SLOW)
    answer_carelessly(pg, q)                                  # right or wrong, the link appears
    expect(link).to_have_text(f"Read it again: {q['teaches']['label']}", timeout=SLOW)
    # a DOM click: on a loaded machine the quiz's editor loading below can move the link under a
    # pointer click (seen in a full run); what is tested is where the link goes
    link.get_by_role("link").evaluate("a => a.click()")
    pg.wait_for_url(re.compile(rf"#{q['teaches']['anchor']}$"), timeout=SLOW)
    expect(pg.locator(f"h2#{q['teaches']['anchor']}, h3#{q['teaches']['anchor']}")).to_have_count(1)
    page.assert_clean()
