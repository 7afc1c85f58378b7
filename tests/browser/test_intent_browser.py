"""Load on intent (site/assets/runtime/intent.mjs, lllm.mjs) in real Chromium: opening a page with
live code downloads no Python; the playground's generation loads only the model and still writes;
Python starts when the reader touches code, and the cell then runs.

What was fetched is read from the requests the browser made, workers' included (conftest's watch):
the positive checks at the end of each test show that a Pyodide download would have been seen.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import origin, watch
from support.runtime import MODEL

pytestmark = pytest.mark.browser
LOAD_TIMEOUT = 180_000   # ms: a cold Pyodide boot is 6–9 s here, far more on a busy 2-core machine
PYODIDE = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide.asm.mjs", "pyodide-lock.json")
RUNTIME = ("/assets/runtime/vendor/", "/assets/runtime/model/", ".whl")


def fetched(watched, parts) -> list[str]:
    return [u for u in watched.requests if any(part in u for part in parts)]


def open_page(browser, site_server, path, **options):
    context = browser.new_context(service_workers="block", **options)
    watched = watch(context, {origin(site_server.url)})
    watched.page.goto(site_server.url + path)
    watched.page.wait_for_load_state("networkidle")
    return watched


def test_the_playground_generates_without_python_and_runs_a_cell_once_touched(browser, site_server):
    from lllm.model.onnx_backend import from_onnx
    expected = from_onnx(str(MODEL), temperature=0.8, seed=1)("Once", max_new_tokens=80) + "\n"   # the first cell
    watched = open_page(browser, site_server, "playground/")
    page = watched.page
    root = page.locator(".lllm-playground")
    # The widget is in view: nothing of the runtime loads until the reader touches it.
    page.wait_for_timeout(1500)           # an IntersectionObserver would have fired by now
    page.wait_for_load_state("networkidle")
    assert fetched(watched, RUNTIME) == [], "the playground in view loaded the runtime before a touch"
    # A touch: the model alone loads (onnxruntime-web, then TinyLLM when asked for).
    root.locator("textarea").focus()
    page.wait_for_function("() => lllm.status.state === 'ready'", timeout=LOAD_TIMEOUT)
    page.wait_for_load_state("networkidle")
    assert fetched(watched, ["ort-wasm-simd-threaded.wasm"]), "touching the playground did not start the model"
    assert fetched(watched, PYODIDE) == [], "opening the playground downloaded Python"
    assert page.evaluate("lllm.status.pythonReady") is False

    root.locator("input[name=maxNewTokens]").fill("40")
    root.get_by_role("button", name="Generate").click()
    expect(root).to_have_attribute("data-done", "ok", timeout=LOAD_TIMEOUT)
    assert len(root.locator(".lllm-pg__completion").text_content()) == 40
    page.wait_for_load_state("networkidle")
    assert fetched(watched, PYODIDE) == [], "generating downloaded Python"

    # Focusing a cell's code is the reader's intent to run it: Python starts, and the cell runs.
    cell = page.locator("div.runnable.highlight").first
    cell.scroll_into_view_if_needed()
    expect(cell).to_have_attribute("data-editor", "ready")   # the code editor, loaded as the cell came near
    assert fetched(watched, PYODIDE) == [], "a cell coming near started Python"
    cell.locator(".cm-content").click()
    page.wait_for_function("() => lllm.status.state === 'loading'")
    cell.locator("xpath=following-sibling::div[1]").get_by_role("button", name="Run").click()
    expect(cell).to_have_attribute("data-lllm-result", re.compile("."), timeout=LOAD_TIMEOUT)
    output = page.locator(".lllm-cell__output").first.text_content()
    assert cell.get_attribute("data-lllm-result") == "ok", output
    assert output == expected
    assert {"pyodide.asm.wasm", "python_stdlib.zip"} <= {u.split("/")[-1].split("?")[0] for u in watched.requests}
    watched.assert_clean("playground")
    page.context.close()


def test_with_save_data_the_playground_waits_for_a_touch(browser, site_server):
    context = browser.new_context(service_workers="block")
    context.add_init_script("Object.defineProperty(navigator, 'connection', {value: {saveData: true}})")
    watched = watch(context, {origin(site_server.url)})
    watched.page.goto(site_server.url + "playground/")
    watched.page.wait_for_load_state("networkidle")
    watched.page.wait_for_timeout(1500)   # time for an IntersectionObserver callback, had there been one
    assert fetched(watched, RUNTIME) == [], "Save-Data is on, yet the model loaded without a touch"
    watched.page.locator(".lllm-playground textarea").focus()
    watched.page.wait_for_function("() => lllm.status.state !== 'idle'")
    watched.page.wait_for_function("() => lllm.status.state === 'ready'", timeout=LOAD_TIMEOUT)
    assert fetched(watched, PYODIDE) == []
    context.close()


def test_the_react_page_downloads_no_runtime_until_the_reader_touches_the_demo(browser, site_server):
    watched = open_page(browser, site_server, "agents/react/")
    page = watched.page
    demo = page.locator(".lllm-demo").first
    demo.scroll_into_view_if_needed()
    page.wait_for_timeout(1500)           # an IntersectionObserver would have fired by now
    page.wait_for_load_state("networkidle")
    assert fetched(watched, RUNTIME) == [], "the demo in view started the runtime"
    assert page.evaluate("lllm.status.state") == "idle"

    demo.locator("select, input, textarea, button").first.focus()
    page.wait_for_function("() => lllm.status.pythonReady === true", timeout=LOAD_TIMEOUT)
    assert {"pyodide.asm.wasm", "python_stdlib.zip"} <= {u.split("/")[-1].split("?")[0] for u in watched.requests}
    watched.assert_clean("agents/react")
    page.context.close()
