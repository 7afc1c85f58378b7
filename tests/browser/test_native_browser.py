"""The native-runtime pages' live examples in real Chromium: each cell prints what it prints in CPython.

Cells that use the page's TinyLLM (`lllm.web.browser`) only run in the page; they must finish without
an error and print something.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from support.runtime import CELL, MODEL, ROOT, cpython_outputs as cpython_output

pytestmark = pytest.mark.browser
LOAD_TIMEOUT = 180_000
PAGES = ["index", "prompt", "dialog", "agent", "tactic", "tools", "proxies", "lllm-core", "service-api"]


@pytest.fixture(scope="module")
def page(browser, site_server):
    """One tab on the shared site (tests/conftest.py), with the runtime loaded once for the module."""
    assert MODEL.is_file(), "run `make model` first"
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_server.url + "native/dialog/")
    page.evaluate("() => lllm.ready()")
    yield page
    context.close()


@pytest.mark.parametrize("name", PAGES)
def test_live_examples_match_cpython(page, name):
    codes = CELL.findall((ROOT / "site" / "native" / f"{name}.md").read_text())
    offline = [c for c in codes if "lllm.web.browser" not in c]
    expected = cpython_output(offline)
    for code in codes:
        result = page.evaluate("([code, ns]) => lllm.run(code, {namespace: ns})", [code, f"native-{name}"])
        if "lllm.web.browser" in code:
            assert result["stdout"].strip()
        else:
            assert result["stdout"] == expected.pop(0)


def test_a_cell_on_the_page_runs_with_the_run_button(page):
    cells = page.locator("div.runnable.highlight")
    cells.first.locator("xpath=following-sibling::div[1]").get_by_role("button", name="Run").click()
    expect(cells.first).to_have_attribute("data-lllm-result", re.compile("."), timeout=LOAD_TIMEOUT)
    assert cells.first.get_attribute("data-lllm-result") == "ok"
    assert "planner-0: 2 messages" in page.locator(".lllm-cell__output").first.text_content()
