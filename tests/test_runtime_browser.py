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
from playwright.sync_api import expect, sync_playwright

from runtime_support import MODEL, build_site, cli_generate, free_port, launch, serve

pytestmark = pytest.mark.browser
LOAD_TIMEOUT = 180_000   # ms: a cold Pyodide boot is 6–9 s here, far more on a busy 2-core CI machine


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    assert MODEL.is_file(), "run `make model` first"
    port = free_port()
    out = build_site(tmp_path_factory.mktemp("site") / "public", port)
    server = serve(out, port)
    yield f"http://127.0.0.1:{port}", out
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()


def guarded_context(browser, base, **options):
    """A context that aborts and records every request leaving `base`'s origin (workers included)."""
    context = browser.new_context(**options)
    context.off_origin = []

    def guard(route):
        if urlsplit(route.request.url)[:2] == urlsplit(base)[:2]:
            route.continue_()
        else:
            context.off_origin.append(route.request.url)
            route.abort()
    context.route("**/*", guard)
    return context


@pytest.fixture(scope="module")
def page(browser, site):
    base, _ = site
    context = guarded_context(browser, base)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.goto(base + "/playground/")
    page.evaluate("lllm.ready()")
    yield page
    context.close()


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


def test_run_rejects_with_a_readable_traceback(page):
    ready(page)
    message = page.evaluate("lllm.run('def f():\\n    return 1 / 0\\nf()').then(() => 'no error', e => e.name + ': ' + e.message)")
    assert message.startswith("PythonError: Traceback (most recent call last):")
    assert 'File "<cell>", line 2, in f' in message and "return 1 / 0" in message
    assert message.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "run_cell" not in message   # the runner's own frame is not shown


def test_cells_run_the_browser_predictor_like_cpython(page):
    from lllm.onnx_backend import from_onnx
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


def test_stop_ends_an_endless_cell_and_the_next_run_works(page):
    ready(page)
    cell = page.locator("div.runnable.highlight").first
    bar = cell.locator("xpath=following-sibling::div[1]")
    cell.locator("code").fill("while True: pass")
    bar.get_by_role("button", name="Run").click()
    page.locator("div.lllm-cell--running").wait_for()
    time.sleep(1.0)
    assert cell.get_attribute("class").count("lllm-cell--running") == 1, "the endless cell ended by itself"
    bar.get_by_role("button", name="Stop").click()
    expect(cell).to_have_attribute("data-lllm-result", "stopped", timeout=10_000)
    assert "Stopped" in page.locator(".lllm-cell__output").first.text_content()
    cell.locator("code").fill("print('alive', 2 + 2)")
    bar.get_by_role("button", name="Run").click()
    expect(cell).to_have_attribute("data-lllm-result", "ok", timeout=LOAD_TIMEOUT)
    assert page.locator(".lllm-cell__output").first.text_content() == "alive 4\n"
    bar.get_by_role("button", name="Reset").click()
    assert "from_browser" in cell.locator("code").text_content()


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
    assert page.context.off_origin == []
    assert page.errors == []


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
        url = base + "/" + html.parent.relative_to(out).as_posix().strip(".") + ("/" if html.parent != out else "")
        navigate(page, url.replace("//", "/").replace("http:/", "http://"))
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
    context = guarded_context(browser, base)

    def broken(route):
        if damage == "missing":
            route.fulfill(status=404, body="not found")
        else:
            route.fulfill(status=200, body=b"\x08\x01 this is not an ONNX model")
    context.route(re.compile(r"tinyllm\.onnx"), broken)
    page = context.new_page()
    page.goto(base + "/playground/")
    page.locator(".lllm-playground[data-state=error]").wait_for(timeout=60_000)
    status = page.locator(".lllm-pg__status").text_content()
    assert status.startswith("The model could not be loaded:")
    assert "tinyllm.onnx" in status
    assert ("HTTP 404" if damage == "missing" else "does not match its card") in status
    error = page.evaluate("lllm.generate({prompt: 'Once'}).then(() => 'no error', e => e.message)")
    assert "tinyllm.onnx" in error
    context.close()


def test_without_jspi_the_page_names_the_browsers_that_work(browser, site):
    base, _ = site
    context = guarded_context(browser, base)
    context.add_init_script("delete WebAssembly.Suspending")
    requests = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.goto(base + "/playground/")
    message = page.evaluate("lllm.run('print(1)').then(() => 'ran', e => e.message)")
    assert "JavaScript Promise Integration" in message and "Chrome" in message
    message = page.evaluate("lllm.ready().then(() => 'ready', e => e.message)")
    assert "Chrome" in message
    # TinyLLM itself needs no JSPI: generation still works and still matches the terminal.
    got = page.evaluate("lllm.generate({prompt: 'Once', maxNewTokens: 40, temperature: 0})")
    assert got == cli_generate("Once", 40, 0.0)["completion"]
    assert not [u for u in requests if "pyodide" in u], "Python was downloaded although it cannot run"
    context.close()


def test_pages_without_live_code_load_no_runtime(browser, site):
    base, _ = site
    context = guarded_context(browser, base)
    requests = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.goto(base + "/")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof window.lllm.run") == "function"
    heavy = [u for u in requests if "/assets/runtime/vendor/" in u or "/assets/runtime/model/" in u or u.endswith(".whl")]
    assert heavy == []
    context.close()
