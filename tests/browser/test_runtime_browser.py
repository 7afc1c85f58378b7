"""The in-page runtime in real Chromium: the page writes what the terminal writes, cells run Python,
Stop works, the page stays responsive, nothing leaves the origin, a broken model says so.

One page loads the runtime once (cold, ≈10 s) and most tests share it; the broken-model and
no-JSPI tests use their own contexts and load only the model. The site is served with
hooks/serve.py, so the Content-Security-Policy from site/_headers is in force throughout.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from conftest import origin, watch
from support.runtime import MODEL, cli_generate

pytestmark = pytest.mark.browser
LOAD_TIMEOUT = 180_000   # ms: a cold Pyodide boot is 6–9 s here, far more on a busy 2-core CI machine


@pytest.fixture(scope="module")
def site(site_server):
    """(base URL without the trailing slash, built folder): conftest's session-wide site."""
    assert MODEL.is_file(), "run `make model` first"
    return site_server.url.rstrip("/"), site_server.dir


def guarded_page(browser, base, **options):
    """A fresh context whose requests leaving `base`'s origin (workers included) are blocked and recorded."""
    return watch(browser.new_context(service_workers="block", **options), {origin(base)})


@pytest.fixture(scope="module")
def page(browser, site):
    """One playground page with the runtime loaded, shared by the tests below (cold load once)."""
    base, _ = site
    watched = guarded_page(browser, base)
    watched.page.goto(base + "/playground/")
    watched.page.evaluate("lllm.ready()")
    watched.page.watched = watched
    yield watched.page
    watched.page.context.close()


def ready(page):
    page.evaluate("lllm.ready()")


# ---- the page writes exactly what the terminal writes ---------------------------------------------

CASES = [  # prompt, length, temperature, top-k, top-p, seed
    ("Once", 200, 0.0, 0, 1.0, 0),         # greedy
    ("Once", 200, 0.8, 0, 1.0, 0),         # the CLI's defaults
    ("The fox", 150, 1.0, 0, 1.0, 7),
    ("Lina", 150, 0.9, 10, 0.9, 42),       # top-k and top-p together
    ("Once, 🙂 é", 120, 0.7, 5, 1.0, 3),   # characters outside the vocabulary are dropped and reported
]


@pytest.mark.parametrize("prompt,length,temperature,top_k,top_p,seed", CASES)
def test_playground_writes_what_the_cli_writes(page, prompt, length, temperature, top_k, top_p, seed):
    expected = cli_generate(prompt, length, temperature, top_k, top_p, seed)
    root = page.locator(".lllm-playground")
    root.locator("textarea").fill(prompt)
    for name, value in [("maxNewTokens", length), ("temperature", temperature), ("topK", top_k),
                        ("topP", top_p), ("seed", seed)]:
        root.locator(f"input[name={name}]").fill(str(value))
    root.get_by_role("button", name="Generate").click()
    page.locator('.lllm-playground[data-done="ok"]').wait_for(timeout=LOAD_TIMEOUT)
    assert root.locator(".lllm-pg__completion").text_content() == expected["completion"]
    speed = root.locator(".lllm-pg__speed").text_content()
    assert re.search(r"\d+ characters/s", speed), speed
    for char in expected["dropped"]:
        assert f'"{char}"' in speed, f"dropped {char!r} is not reported: {speed}"
    assert root.locator(".lllm-pg__bar").count() > 0, "no next-character probability bars"


def test_generate_api_matches_the_cli(page):
    expected = cli_generate("Once upon", 300, 0.8, 0, 1.0, 5)
    got = page.evaluate("lllm.generate({prompt: 'Once upon', maxNewTokens: 300, temperature: 0.8, topK: 0, topP: 1, seed: 5})")
    assert got == expected["completion"]


# ---- Python in the page ---------------------------------------------------------------------------

def test_run_imports_lllm(page):
    ready(page)
    result = page.evaluate("lllm.run('import lllm, sys; print(lllm.__version__, sys.platform); 6 * 7')")
    assert result == {"stdout": "0.1.0 emscripten\n", "stderr": "", "value": "42"}


def test_run_rejects_with_the_error_first_and_the_full_traceback_kept(page):
    ready(page)
    error = page.evaluate("lllm.run('def f():\\n    return 1 / 0\\nf()').then(() => null, e => ({name: e.name, message: e.message, traceback: e.traceback}))")
    assert error["name"] == "PythonError"
    assert error["message"] == "ZeroDivisionError: division by zero\n  line 2 of the cell: return 1 / 0\n  line 3 of the cell: f()\n"
    full = error["traceback"]
    assert full.startswith("Traceback (most recent call last):")
    assert 'File "<cell>", line 2, in f' in full and "return 1 / 0" in full
    assert full.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "run_cell" not in full   # the runner's own frame is not shown


def test_a_cells_error_shows_its_line_first_and_the_full_traceback_a_click_away(page):
    """An error raised inside a library: the cell shows the error and the cell's line, the library's
    frames only in the folded full traceback; the next good run clears it."""
    ready(page)
    cell = page.locator("div.runnable.highlight").first
    bar = cell.locator("xpath=following-sibling::div[1]")
    output = page.locator(".lllm-cell__output").first
    cell.evaluate("(cell, code) => { cell.lllmEditor.value = code; }", "import json\njson.loads('{')")
    bar.get_by_role("button", name="Run").click()
    expect(cell).to_have_attribute("data-lllm-result", "error", timeout=LOAD_TIMEOUT)
    shown = output.locator(".lllm-out--error").inner_text().splitlines()
    assert shown[0].startswith("json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes")
    assert shown[1] == "  line 2 of the cell: json.loads('{')"
    assert len(shown) == 3 and "library frames hidden" in shown[2]
    details = output.locator("details.lllm-out__traceback")
    assert not details.evaluate("d => d.open")
    assert not details.locator("span").is_visible()          # folded: a click away
    details.locator("summary").click()
    assert "json/decoder.py" in details.locator("span").inner_text() and details.locator("span").is_visible()
    colours = details.locator("summary").evaluate("s => [getComputedStyle(s).color, getComputedStyle(s).backgroundColor]")
    assert colours[1] == "rgba(0, 0, 0, 0)", colours       # a plain line, not Material's admonition box
    cell.evaluate("(cell, code) => { cell.lllmEditor.value = code; }", "print('fine')")
    bar.get_by_role("button", name="Run").click()
    expect(cell).to_have_attribute("data-lllm-result", "ok", timeout=LOAD_TIMEOUT)
    assert output.text_content() == "fine\n"
    bar.get_by_role("button", name="Reset").click()


def test_cells_run_the_browser_predictor_like_cpython(page):
    from lllm.model.onnx_backend import from_onnx
    brain = from_onnx(str(MODEL), temperature=0.8, seed=1)
    first, second = brain("Once", max_new_tokens=80), brain("The", max_new_tokens=60)
    ready(page)
    cells = page.locator("div.runnable.highlight")
    assert cells.count() >= 2
    outputs = page.locator(".lllm-cell__output")
    for i, expected in enumerate([first + "\n", second + "\ndropped: []\n"]):
        cells.nth(i).locator("xpath=following-sibling::div[1]").get_by_role("button", name="Run").click()
        expect(cells.nth(i)).to_have_attribute("data-lllm-result", re.compile("."), timeout=LOAD_TIMEOUT)
        assert cells.nth(i).get_attribute("data-lllm-result") == "ok", outputs.nth(i).text_content()
        assert outputs.nth(i).text_content() == expected   # the second cell reused `brain` (shared namespace)


PARITY_CELL = """
from lllm.web.browser import BrowserBackend, from_browser
from lllm.model.generate import next_char_view
brain = from_browser(temperature=1.0, top_k=20, seed=3, stop=["."])
backend = BrowserBackend()
views = [(c, round(p, 4)) for c, p in next_char_view(backend, backend.tokenizer, "Once upon a ti", k=5)]
[brain("Once", 120), brain("Lina", 120), brain.last.stopped_by, views]
"""


def test_python_in_the_page_matches_python_in_the_terminal(page):
    """Stop strings, the random stream carried across calls, and the teaching backend, all as in CPython."""
    from lllm.model.generate import next_char_view
    from lllm.model.onnx_backend import OnnxBackend, from_onnx
    brain = from_onnx(str(MODEL), temperature=1.0, top_k=20, seed=3, stop=["."])
    backend = OnnxBackend(str(MODEL))
    views = [(c, round(p, 4)) for c, p in next_char_view(backend, backend.tokenizer, "Once upon a ti", k=5)]
    expected = [brain("Once", 120), brain("Lina", 120), brain.last.stopped_by, views]
    ready(page)
    got = page.evaluate("code => lllm.run(code, {namespace: 'parity'})", PARITY_CELL)
    assert got["value"] == repr(expected)


def test_a_good_run_clears_the_playgrounds_last_error(page):
    root = page.locator(".lllm-playground")
    status = root.locator(".lllm-pg__status")
    root.locator("textarea").fill("Once")
    root.locator("input[name=maxNewTokens]").fill("20")
    root.locator("input[name=topP]").fill("0")
    root.get_by_role("button", name="Generate").click()
    page.locator('.lllm-playground[data-done="error"]').wait_for(timeout=LOAD_TIMEOUT)
    assert "top-p must be in (0, 1]" in status.text_content()
    root.locator("input[name=topP]").fill("1")
    root.get_by_role("button", name="Generate").click()
    page.locator('.lllm-playground[data-done="ok"]').wait_for(timeout=LOAD_TIMEOUT)
    assert "top-p" not in status.text_content(), "the last run's error is still shown above a good run"
    assert root.locator(".lllm-pg__completion").text_content()


def test_the_playground_shows_text_while_it_is_generated(page):
    ready(page)
    root = page.locator(".lllm-playground")
    root.locator("input[name=maxNewTokens]").fill("4000")
    root.locator("input[name=temperature]").fill("0.8")
    page.evaluate("""() => {
        const target = document.querySelector('.lllm-pg__completion');
        window.partialTexts = new Set();
        new MutationObserver(() => {
            if (!document.querySelector('.lllm-playground').dataset.done) window.partialTexts.add(target.textContent.length);
        }).observe(target, {childList: true, characterData: true, subtree: true});
    }""")
    root.get_by_role("button", name="Generate").click()
    page.locator('.lllm-playground[data-done="ok"]').wait_for(timeout=LOAD_TIMEOUT)
    partial = page.evaluate("[...window.partialTexts].filter(n => n > 0 && n < 4000).length")
    assert partial >= 2, "the text appeared all at once instead of as it was generated"


def test_stop_ends_an_endless_cell_and_the_next_run_works(page):
    ready(page)
    cell = page.locator("div.runnable.highlight").first
    bar = cell.locator("xpath=following-sibling::div[1]")
    cell.scroll_into_view_if_needed()
    expect(cell).to_have_attribute("data-editor", "ready")   # the code editor (assets/editor/) has replaced the code
    code = cell.locator(".cm-content")
    code.fill("while True: pass")
    bar.get_by_role("button", name="Run").click()
    page.locator("div.lllm-cell--running").wait_for()
    time.sleep(1.0)
    assert cell.get_attribute("class").count("lllm-cell--running") == 1, "the endless cell ended by itself"
    bar.get_by_role("button", name="Stop").click()
    expect(cell).to_have_attribute("data-lllm-result", "stopped", timeout=10_000)
    assert "Stopped" in page.locator(".lllm-cell__output").first.text_content()
    code.fill("print('alive', 2 + 2)")
    bar.get_by_role("button", name="Run").click()
    expect(cell).to_have_attribute("data-lllm-result", "ok", timeout=LOAD_TIMEOUT)
    assert page.locator(".lllm-cell__output").first.text_content() == "alive 4\n"
    bar.get_by_role("button", name="Reset").click()
    expect(code).to_contain_text("from_browser")


def test_the_page_stays_responsive_while_generating(page):
    ready(page)
    ticks = page.evaluate("""async () => {
        const stamps = [];
        const timer = setInterval(() => stamps.push(performance.now()), 10);
        const t0 = performance.now();
        await lllm.generate({prompt: 'Once', maxNewTokens: 5000, temperature: 0.8, seed: 2});
        const elapsed = performance.now() - t0;
        clearInterval(timer);
        let maxGap = 0;
        for (let i = 1; i < stamps.length; i++) maxGap = Math.max(maxGap, stamps[i] - stamps[i - 1]);
        return {count: stamps.length, elapsed, maxGap};
    }""")
    # Blocking the main thread would leave one gap as long as the whole generation.
    assert ticks["count"] >= 5 and ticks["maxGap"] < 0.25 * ticks["elapsed"], ticks


def test_runtime_survives_instant_navigation_and_nothing_leaves_the_origin(page, site):
    base, out = site
    ready(page)
    page.evaluate("lllm.run('import builtins; builtins.lllm_marker = 42')")
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    paths = [urlsplit(u).path for u in re.findall(r"<loc>(.*?)</loc>", sitemap)]
    assert "/playground/" in paths and len(paths) >= 3
    for path in paths:
        navigate(page, base + path)
        # The same interpreter answers on every page: the worker was not restarted.
        assert page.evaluate("lllm.run('import builtins; builtins.lllm_marker').then(r => r.value)") == "42", path
    page.watched.assert_clean("the playground and every page it navigated to")


def navigate(page, url):
    """Follow a link, as a reader would: Material's instant navigation swaps the page in place."""
    if page.url == url:
        return
    page.evaluate("() => document.querySelector('article').dataset.old = 'yes'")
    page.evaluate("url => { const a = document.createElement('a'); a.href = url; document.body.append(a); a.click(); }", url)
    page.wait_for_url(url, wait_until="commit")
    page.locator("article:not([data-old])").first.wait_for()    # the new page's content is in


def test_every_runnable_cell_on_the_site_runs(page, site):
    base, out = site
    pages = sorted(f for f in out.rglob("index.html") if 'class="language-python runnable highlight"' in f.read_text(encoding="utf-8"))
    assert len(pages) >= 3, "the playground and the TinyLLM pages have runnable cells"
    for html in pages:
        folder = html.parent.relative_to(out).as_posix()
        url = base + ("/" if folder == "." else f"/{folder}/")
        navigate(page, url)
        ready(page)
        cells = page.locator("div.runnable.highlight")
        for i in range(cells.count()):
            cells.nth(i).locator("xpath=following-sibling::div[1]").get_by_role("button", name="Run").click()
            expect(cells.nth(i)).to_have_attribute("data-lllm-result", re.compile("."), timeout=LOAD_TIMEOUT)
            output = page.locator(".lllm-cell__output").nth(i).text_content()
            assert cells.nth(i).get_attribute("data-lllm-result") == "ok", f"{url} cell {i + 1}:\n{output}"
            assert output.strip() and output != "(no output)", f"{url} cell {i + 1} printed nothing"


# ---- failures are explained, never a spinner ------------------------------------------------------

@pytest.mark.parametrize("damage", ["missing", "garbage"])
def test_a_broken_model_shows_a_clear_error(browser, site, damage):
    base, _ = site
    watched = guarded_page(browser, base)
    context, page = watched.page.context, watched.page

    def broken(route):
        if damage == "missing":
            route.fulfill(status=404, body="not found")
        else:
            route.fulfill(status=200, body=b"\x08\x01 this is not an ONNX model")
    context.route(re.compile(r"tinyllm\.onnx"), broken)
    page.goto(base + "/playground/")
    page.locator(".lllm-playground textarea").focus()      # a touch starts the model
    page.locator(".lllm-playground[data-state=error]").wait_for(timeout=60_000)
    status = page.locator(".lllm-pg__status").text_content()
    assert status.startswith("The model could not be loaded:")
    assert "tinyllm.onnx" in status
    assert ("HTTP 404" if damage == "missing" else "does not match its card") in status
    error = page.evaluate("lllm.generate({prompt: 'Once'}).then(() => 'no error', e => e.message)")
    assert "tinyllm.onnx" in error
    context.close()


@pytest.mark.parametrize("sync", ["atomics", "jspi"])
def test_python_blocks_on_the_model_either_way(browser, site, sync):
    """Cross-origin isolated (Atomics.wait, what every engine has) or JSPI: the same answers."""
    from lllm.model.onnx_backend import from_onnx
    expected = from_onnx(str(MODEL), temperature=0.8, seed=4)("Lina", max_new_tokens=60)
    base, _ = site
    watched = guarded_page(browser, base)
    context, page = watched.page.context, watched.page
    context.add_init_script(f"window.lllmSync = '{sync}'")
    page.goto(base + "/playground/")
    assert page.evaluate("[crossOriginIsolated, lllm.sync]") == [True, sync]
    got = page.evaluate("lllm.run('from lllm.web.browser import from_browser\\nfrom_browser(seed=4)(\"Lina\", 60)')")
    assert got["value"] == repr(expected)
    watched.assert_clean()
    context.close()


def test_without_jspi_python_still_runs_through_atomics(browser, site):
    base, _ = site
    watched = guarded_page(browser, base)
    context, page = watched.page.context, watched.page
    context.add_init_script("delete WebAssembly.Suspending")
    page.goto(base + "/playground/")
    assert page.evaluate("[lllm.jspi, lllm.sync]") == [False, "atomics"]
    assert page.evaluate("lllm.run('6 * 7').then(r => r.value)") == "42"
    context.close()


def test_without_jspi_or_isolation_the_page_says_what_is_missing(browser, site):
    base, _ = site
    watched = guarded_page(browser, base)
    context, page = watched.page.context, watched.page
    context.add_init_script("delete WebAssembly.Suspending; delete globalThis.SharedArrayBuffer")
    page.goto(base + "/playground/")
    message = page.evaluate("lllm.run('print(1)').then(() => 'ran', e => e.message)")
    for words in ["JavaScript Promise Integration", "SharedArrayBuffer", "cross-origin-isolated", "Chrome",
                  "Firefox 153", "Safari 15.2", "text generation still works"]:
        assert words in message, (words, message)
    assert page.evaluate("lllm.ready().then(() => 'ready', e => e.message)") == message
    # TinyLLM itself needs neither: generation still works and still matches the terminal.
    got = page.evaluate("lllm.generate({prompt: 'Once', maxNewTokens: 40, temperature: 0})")
    assert got == cli_generate("Once", 40, 0.0)["completion"]
    assert not [u for u in watched.requests if "pyodide" in u], "Python was downloaded although it cannot run"
    watched.assert_clean()
    context.close()


RUNTIME_DOWNLOAD = ("/assets/runtime/vendor/", "/assets/runtime/model/", ".whl")


def runtime_requests(watched):
    return [u for u in watched.requests if any(part in u for part in RUNTIME_DOWNLOAD)]


def test_pages_without_live_code_load_no_runtime(browser, site):
    base, _ = site
    watched = guarded_page(browser, base)
    context, page = watched.page.context, watched.page
    page.goto(base + "/")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof window.lllm.run") == "function"
    assert runtime_requests(watched) == []
    context.close()


def test_python_loads_when_a_widget_is_touched_not_when_it_is_seen(browser, site):
    """A widget far below the fold: nothing downloads when the page opens, nor when the widget comes
    into view (most readers read on); touching it starts the download, and the progress names a
    stage and counts bytes. (The playground's model-only start: test_intent_browser.py.)"""
    base, _ = site
    watched = guarded_page(browser, base, viewport={"width": 1000, "height": 500})
    context, page = watched.page.context, watched.page
    page.goto(base + "/agents/lab/")
    demo = page.locator(".lllm-demo").first
    assert demo.evaluate("el => el.getBoundingClientRect().top") > 1700, "the lab's widget moved up the page"
    page.wait_for_load_state("networkidle")
    assert runtime_requests(watched) == [], "the runtime loaded on page view"
    demo.scroll_into_view_if_needed()
    page.wait_for_timeout(1500)   # time for an IntersectionObserver callback, had there been one
    assert runtime_requests(watched) == [], "the runtime loaded when the widget came into view"
    demo.locator("select[name=brain]").focus()
    page.wait_for_function("() => lllm.status.state !== 'idle'")
    page.wait_for_function("() => lllm.status.loaded > 1e6")
    assert re.fullmatch(r"Downloading (Python|the model) · \d+\.\d of \d+\.\d MB \(\d+%\)",
                        page.evaluate("lllm.describe(lllm.status)"))
    context.close()
