"""The course final's page in real browsers: a learner sits it in Chromium and the page's grade is
CPython's; a record's link re-grades to CPython's result in Chromium, Firefox and WebKit, a tampered
one is refused with CPython's sentence, and a failed one links the sections to re-read.

The oracle is lllm/labs/final/record.py in CPython (what `python -m lllm grade` prints); the page
runs the same module in its Python. Drivers: tests/support/engines.py; the scenario:
tests/support/final_scenario.js.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from lllm.labs.final.exam import paper
from lllm.labs.final.record import RecordError, from_link, read_record, regrade, to_link
from support import engines
from support.final_record import record, right_answers, solution

pytestmark = pytest.mark.browser
PAGE = "course/final/"
SCRIPT = engines.ROOT / "tests" / "support" / "final_scenario.js"
RUNTIME_TIMEOUT = 240_000   # ms: a cold Pyodide, Pydantic and the sandbox's frame on a busy 2-core machine


def site_path(page: str) -> str:
    """Where a page is served: `reasoning/index.md` at `reasoning/`, `agents/react.md` at `agents/react/`."""
    return re.sub(r"(^|/)index\.md$", r"\1", page).removesuffix(".md") + ("/" if not page.endswith("index.md") else "")


def answer(paper_view, q, value):
    box = paper_view.locator(f'fieldset[data-id="{q["id"]}"]')
    if q["kind"] == "short":
        box.locator("input").fill(str(value))
    else:
        for key in value if isinstance(value, list) else [value]:
            box.locator(f'input[value="{key}"]').check()


def test_a_learner_sits_the_final_and_the_page_grades_as_cpython(page, site_server):
    pg = page.page
    pg.goto(site_server.url + PAGE)
    final = pg.locator(".lllm-final")
    final.locator(".lllm-final-name").fill("Grace Hopper")
    final.get_by_role("button", name="Start the final").click()
    sheet = final.locator(".lllm-final-paper")
    expect(sheet).to_be_visible(timeout=RUNTIME_TIMEOUT)
    expect(final.locator(".lllm-final-timer")).to_contain_text("(no limit)")
    seed = int(re.search(r"Seed (\d+)\.", sheet.inner_text()).group(1))
    assert seed in json.loads(pg.evaluate("localStorage.getItem('lllm.final.v1.seeds')"))   # one attempt per seed
    p = paper(seed)
    answers = right_answers(p)
    for q in p["questions"][1:]:                       # the first left unanswered: 11 of 12 still passes
        answer(sheet, q, answers[q["id"]])
    exercise = final.locator(".lllm-final-exercise")
    exercise.scroll_into_view_if_needed()
    expect(exercise).to_have_attribute("data-editor", "ready", timeout=RUNTIME_TIMEOUT)   # the code editor (CodeMirror)
    exercise.evaluate("(host, code) => { host.lllmEditor.value = code; }", solution(p))
    assert final.locator(".lllm-final-result, .lllm-final-reread, .lllm-final-problems").count() == 0   # nothing until handed in
    final.get_by_role("button", name="Hand in and grade").click()
    result = final.locator(".lllm-final-result")
    expect(result).to_be_visible(timeout=RUNTIME_TIMEOUT)
    link = final.locator(".lllm-final-link").input_value()
    data = read_record(from_link(link))
    assert (data["name"], data["seed"], data["code"]) == ("Grace Hopper", seed, solution(p))
    expected = regrade(data)
    assert expected["passed"] and expected["right"] == 11
    assert result.get_attribute("data-passed") == "true"
    assert final.locator(".lllm-final-summary").inner_text() == expected["summary"]
    assert final.locator(".lllm-final-problems li").all_inner_texts() == expected["problems"]
    assert final.get_by_role("link", name="Save the record (a file)").get_attribute("download") == "final-record.json"
    page.assert_clean("sitting the final")


FAILING = record(31337, name="Ada Lovelace", wrong=3)


@pytest.mark.parametrize("engine", ["chromium", "firefox", "webkit"])
def test_a_record_link_regrades_as_cpython_in(engine, request, site_server):
    url = to_link(FAILING, site_server.url + PAGE)
    if engine == "chromium":
        out = engines.chromium(request.getfixturevalue("browser"), url, {}, script=SCRIPT)
    else:
        out = getattr(engines, engine)(url, {}, script=SCRIPT)
    report, expected = out["report"], regrade(FAILING)
    assert "fatal" not in report and "status" not in report, report
    assert (report["passed"], report["summary"], report["problems"]) == (False, expected["summary"], expected["problems"])
    assert report["now"].startswith("Re-computed now, in this page")
    assert report["checked"] == 1 + 12 + 1           # the heading row, the questions, the exercise
    assert report["reread"] == [f"/{site_path(t['page'])}#{t['anchor']}" for t in expected["reread"]]
    assert out["console"] == []


def test_a_tampered_record_link_is_refused_with_cpythons_sentence(browser, site_server):
    tampered = FAILING | {"seed": 31338}
    with pytest.raises(RecordError) as caught:
        regrade(read_record(json.dumps(tampered)))
    out = engines.chromium(browser, to_link(tampered, site_server.url + PAGE), {}, script=SCRIPT)
    assert out["report"] == {"status": str(caught.value)}


def test_a_result_prints_on_one_page_even_when_nothing_checked(page, site_server):
    pg = page.page
    pg.goto(to_link(record(31337, wrong=12, code=""), site_server.url + PAGE))
    expect(pg.locator(".lllm-final-result")).to_be_visible(timeout=RUNTIME_TIMEOUT)
    assert pg.locator(".lllm-final-reread a").count() >= 5
    pg.emulate_media(media="print")
    expect(pg.get_by_role("heading", name="What a record proves, and what it cannot")).to_be_hidden()
    expect(pg.locator(".lllm-final-save")).to_be_hidden()
    pdf = pg.pdf(format="A4")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1
    page.assert_clean("printing a result")
