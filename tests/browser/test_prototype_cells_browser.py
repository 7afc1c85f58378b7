"""The typed-workflow and factory pages' runnable cells, and the ReAct page's program over the seam, in real
Chromium print what CPython prints.

Each page's ```python {.runnable} cells run in order in one namespace, as the page runs them;
the oracle is the same cells run in CPython (`runtime_support.cpython_outputs`).
"""

from __future__ import annotations

import pytest

from conftest import origin, watch
from support.runtime import CELL, ROOT, cpython_outputs

pytestmark = pytest.mark.browser
PAGES = {"typed-workflow": 2, "factory": 3}   # page -> how many runnable cells it shows


@pytest.fixture(scope="module")
def tab(browser, site_server):
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    watched.page.goto(site_server.url + "agents/typed-workflow/")
    watched.page.evaluate("() => lllm.ready()")
    yield watched
    watched.assert_clean("prototype pages")
    context.close()


@pytest.mark.parametrize("name", PAGES)
def test_cells_print_what_cpython_prints(tab, name):
    codes = CELL.findall((ROOT / "site" / "agents" / f"{name}.md").read_text(encoding="utf-8"))
    assert len(codes) == PAGES[name]
    expected = cpython_outputs(codes)
    for i, (code, want) in enumerate(zip(codes, expected), 1):
        result = tab.page.evaluate("([code, ns]) => lllm.run(code, {namespace: ns})", [code, f"test-{name}"])
        assert result["stderr"] == "", f"{name} cell {i}: {result['stderr']}"
        assert result["stdout"] == want, f"{name} cell {i} differs from CPython"


def test_a_readers_program_recorded_edited_and_re_run_at_the_seam_prints_what_cpython_prints(tab):
    code = next(c for c in CELL.findall((ROOT / "site" / "agents" / "react.md").read_text(encoding="utf-8"))
                if "def my_program" in c)
    want = cpython_outputs([code])[0]
    assert want.startswith("42 -> 48 | the runs part at call 1\n")
    result = tab.page.evaluate("([code, ns]) => lllm.run(code, {namespace: ns})", [code, "test-seam"])
    assert (result["stderr"], result["stdout"]) == ("", want)


def test_the_typed_trace_and_the_filter_are_on_the_page(tab):
    """The cells' output says what the pages claim: numbered typed steps, a wrong answer rejected."""
    codes = CELL.findall((ROOT / "site" / "agents" / "typed-workflow.md").read_text(encoding="utf-8"))
    trace = tab.page.evaluate("code => lllm.run(code, {namespace: 'test-claims'})", codes[0])["stdout"]
    assert trace.startswith(" 1. GOAL        What is 17 * 23?\n 2. THOUGHT") and "completed: True | answer: 391" in trace
    codes = CELL.findall((ROOT / "site" / "agents" / "factory.md").read_text(encoding="utf-8"))
    page = [tab.page.evaluate("code => lllm.run(code, {namespace: 'test-claims'})", c)["stdout"] for c in codes]
    assert page[0].startswith("kept 12 of 12 training episodes")            # the teacher: nothing wrong
    assert "rejected, wrong: 10" in page[1] and "wrong: did not call lookup, then calc" in page[1]  # the rule brain
    assert page[2].endswith("rejected: wrong: answered without calling lookup\n")
