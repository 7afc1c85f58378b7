"""The debate page's live demo in real Chromium: every cell prints the same rounds as CPython.

The TinyLLM cell uses the page's model (`lllm.web.browser.from_browser`); in CPython the same cell runs
on onnxruntime (`from_onnx`, same arguments and seed), so that cell checks the browser model too.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from playwright.sync_api import expect

from support.runtime import MODEL, ROOT

pytestmark = pytest.mark.browser
from support.runtime import CELL  # noqa: E402
CODES = CELL.findall((ROOT / "site" / "agents" / "debate.md").read_text(encoding="utf-8"))
BROWSER_IMPORT = "from lllm.web.browser import from_browser\n"


def cpython_outputs(codes) -> list[str]:
    """What each cell prints in CPython; the page's TinyLLM is replaced by the ONNX one, same seed."""
    from lllm.model.onnx_backend import from_onnx

    namespace, outputs = {"from_browser": lambda **options: from_onnx(str(MODEL), **options)}, []
    for code in codes:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code.replace(BROWSER_IMPORT, ""), "<debate cell>", "exec"), namespace)
        outputs.append(out.getvalue())
    return outputs


@pytest.fixture(scope="module")
def debate_page(browser, site_server):
    from conftest import origin, watch

    assert MODEL.is_file(), "run `make model` first"
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    watched.page.goto(site_server.url + "agents/debate/")
    watched.page.evaluate("() => lllm.ready()")
    yield watched
    context.close()


def test_the_page_has_the_demo_cells():
    assert len(CODES) >= 5
    assert sum(BROWSER_IMPORT in code for code in CODES) == 1


def test_every_cell_prints_the_same_rounds_as_cpython(debate_page):
    expected = cpython_outputs(CODES)
    for code, want in zip(CODES, expected):
        got = debate_page.page.evaluate("([code]) => lllm.run(code, {namespace: 'debate-test'})", [code])
        assert got["stdout"] == want
    assert "--- round 2: each saw the others' proposals and revised" in expected[0]
    assert "verdict unparsable" in expected[2] and "tie at 8/10: agent-0, agent-1" in expected[3]
    assert "tinyllm: no valid proposal (Missing required tag <answer>" in expected[4]
    debate_page.assert_clean()


def test_the_diagram_renders(debate_page, site_server):
    from test_site_browser import mermaid_blocks, wait_for_diagrams

    drawn = mermaid_blocks((site_server.dir / "agents" / "debate" / "index.html").read_text(encoding="utf-8"))
    assert drawn >= 1, "the debate page's diagram is not in the built HTML as an SVG"
    wait_for_diagrams(debate_page.page, drawn)
    page = debate_page.page
    assert (page.locator("div.mermaid > svg").count(), page.locator("pre.mermaid").count()) == (drawn, 0)


def test_the_run_button_shows_the_debate(debate_page):
    cell = debate_page.page.locator("div.runnable.highlight").first
    cell.locator("xpath=following-sibling::div[1]").get_by_role("button", name="Run").click()
    expect(cell).to_have_attribute("data-lllm-result", re.compile("."), timeout=180_000)
    assert cell.get_attribute("data-lllm-result") == "ok"
    shown = debate_page.page.locator(".lllm-cell__output").first.text_content()
    assert "--- round 0: proposals" in shown and "--- answer: 65" in shown and "--- session" in shown
