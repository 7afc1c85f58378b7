"""The attention pages in Chromium at 390 px, one launch: /tinyllm/inside/ with TinyGPT chosen,
/tinyllm/tinygpt/, /tinyllm/versus/ and /tinyllm/recurrence-attention/. On each, axe-core (WCAG 2
A and AA) finds nothing serious or critical and the page does not scroll sideways; on the inside
page the model switch and TinyGPT's position slider work from the keyboard alone, and no Python
(Pyodide or a wheel) is downloaded: the page runs the model with onnxruntime-web only. The
comparison page draws its four loss curves within the screen, with their tables."""

from __future__ import annotations

import pytest

from conftest import origin, watch
from support.axe import AXE, serious_violations
from test_site_browser import mermaid_blocks, wait_for_diagrams

pytestmark = pytest.mark.browser
PAGES = ["tinyllm/inside/", "tinyllm/tinygpt/", "tinyllm/versus/", "tinyllm/recurrence-attention/"]
GPT = "document.querySelector('.lllm-inside-gpt')"


def open_page(page, server, path) -> None:
    page.goto(server.url + path, wait_until="load")
    html = (server.dir / path / "index.html").read_text(encoding="utf-8")
    wait_for_diagrams(page, mermaid_blocks(html))
    page.wait_for_load_state("networkidle")


def problems_here(page, path) -> list[str]:
    """axe's serious findings and any sideways scroll, named with the page."""
    found = [f"/{path}: {v}" for v in serious_violations(page)]
    width = page.evaluate("() => document.documentElement.scrollWidth")
    if width > 391:
        found.append(f"/{path}: {width} px wide at 390 px")
    return found


def choose_tinygpt_by_keyboard(page) -> None:
    """Tab-free but keyboard-only: focus the switch and press the arrow key, as a reader would."""
    switch = page.locator(".lllm-inside__switch select")
    switch.focus()
    page.keyboard.press("ArrowDown")
    assert switch.input_value() == "tinygpt"
    page.wait_for_function(f"() => !{GPT}.hidden && ['ready', 'error'].includes({GPT}.dataset.state)", timeout=300_000)
    assert page.evaluate(f"() => {GPT}.dataset.state") == "ready", page.locator(".lllm-inside-gpt .lllm-inside__status").text_content()
    assert page.evaluate("() => document.querySelector('.lllm-inside').hidden") is True


def scrub_by_keyboard(page) -> list[int]:
    """Focus TinyGPT's position slider and move it with the arrow keys; the positions shown after each key."""
    slider = page.locator(".lllm-inside-gpt input[name=position]")
    slider.focus()
    page.keyboard.press("Home")
    shown = [page.evaluate(f"() => {GPT}.lllmView.position")]
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
        shown.append(page.evaluate(f"() => {GPT}.lllmView.position"))
    return shown


def test_attention_pages_pass_axe_fit_390px_and_the_inside_page_works_by_keyboard(browser, site_server):
    assert AXE.is_file(), "run `make node` (npm ci installs axe-core)"
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    watched = watch(context, {origin(site_server.url)})
    page, problems = watched.page, []
    try:
        open_page(page, site_server, PAGES[0])
        choose_tinygpt_by_keyboard(page)
        assert scrub_by_keyboard(page) == [0, 1, 2, 1]
        assert page.locator(".lllm-inside-gpt table.lllm-inside__attention").count() > 0
        python = [r for r in watched.requests if "pyodide" in r or r.endswith(".whl") or ".whl?" in r]
        assert python == [], python
        assert [r for r in watched.requests if "tinygpt.onnx" in r], "TinyGPT's model was never fetched"
        page.evaluate(f"() => {GPT}.querySelectorAll('details').forEach(d => d.open = true)")
        problems += problems_here(page, PAGES[0])
        for path in PAGES[1:]:
            open_page(page, site_server, path)
            if path == "tinyllm/versus/":               # the loss curves: drawn, labelled, and their table
                chart = page.locator("svg.lllm-loss-chart")
                assert chart.locator("polyline").count() == 4 and chart.get_attribute("role") == "img"
                assert chart.bounding_box()["width"] <= 390
                assert page.locator("details table caption").all_text_contents() == \
                    ["TinyLLM: one row per epoch", "TinyGPT: one row per 100 updates"]
            problems += problems_here(page, path)
        assert not problems, "\n".join(problems)
        watched.assert_clean()
    finally:
        context.close()
