"""The composition page in real Chromium: its composed tactic runs on the page's TinyLLM, prints each
event as it arrives, and prints exactly what the same code prints in CPython.

The cell's code is included from `lllm/runtimes/native/composition/composed.py` (its `demo`
section); the oracle runs that section in CPython (onnxruntime on the same model, the same seed).
"""

from __future__ import annotations

import pytest

from support.runtime import MODEL, ROOT, cells, cpython_outputs

pytestmark = pytest.mark.browser
RUN_TIMEOUT = 240_000   # ms: a cold Pyodide, the Pydantic wheels and two model calls on a busy machine

# Each span the cell appends to its output, with the time it arrived (installed before Run).
RECORD_ARRIVALS = """output => {
  window.arrivals = [];
  new MutationObserver(records => {
    for (const r of records) for (const node of r.addedNodes)
      window.arrivals.push({text: node.textContent, at: performance.now()});
  }).observe(output, {childList: true});
}"""


def test_the_composed_tactic_prints_in_chromium_what_it_prints_in_cpython(page, site_server):
    assert MODEL.is_file(), "run `make model` first"
    [code] = cells((ROOT / "site" / "native" / "composition.md").read_text(encoding="utf-8"))
    [expected] = cpython_outputs([code])

    tab = page.page
    tab.goto(site_server.url + "native/composition/")
    cell = tab.locator("div.runnable.highlight").first
    assert cell.locator("code").text_content().strip() == code.strip()       # the page shows the source
    output = tab.locator(".lllm-cell__output").first
    output.evaluate(RECORD_ARRIVALS)
    cell.locator("xpath=following-sibling::div[1]").get_by_role("button", name="Run").click()
    tab.wait_for_function("el => el.dataset.lllmResult", arg=cell.element_handle(), timeout=RUN_TIMEOUT)

    assert cell.get_attribute("data-lllm-result") == "ok", output.text_content()
    assert output.text_content() == expected
    arrivals = tab.evaluate("window.arrivals")
    first_call = next(a for a in arrivals if a["text"].startswith("call"))
    result = next(a for a in arrivals if a["text"].startswith("result"))
    assert first_call["at"] < result["at"], "the events arrived all at once, not as the tactic made them"
    page.assert_clean("composition page")
