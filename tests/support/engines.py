"""The three engines' drivers and what their one visit must show (tests/support/engine_scenario.js).

    webkit(url, arg)         -> {report, console}: the report the scenario resolved to, plus console errors
    firefox(url, arg), chromium(browser, url, arg)   -> the same in the other two engines
    check_report(run)        -> fails naming every step that went wrong

Chromium runs through Playwright (conftest's `browser`), Firefox through Puppeteer over WebDriver
BiDi (tests/support/firefox_scenario.mjs, Debian's firefox-esr), WebKit through Selenium and WebKitGTK's
WebDriver (/usr/bin/WebKitWebDriver driving MiniBrowser under Xvfb; its console is collected in the page,
CONSOLE_BUFFER below says what that misses). WebKitGTK exposes
SharedArrayBuffer in cross-origin-isolated pages only with JSC_useSharedArrayBuffer=1 in its
environment (Safari has it on by default). bench/engine_bench.py drives the same three.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = Path(__file__).with_name("engine_scenario.js")
FIREFOX = os.environ.get("FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
SCENARIO_ARG = {"goal": "What is 48 plus 17?", "brain": "tinyllm-agent"}
START = "agents/react/"      # the scenario starts on the ReAct page and navigates from there
TIMEOUT = 1200               # s: one whole visit on a busy 2-core machine


def bare_function(source: str) -> str:
    r"""A page-function file's one arrow function without the semicolon the formatter ends its statement with:
    the drivers wrap it in parentheses, `(async () => {...};)` would not parse.

    >>> bare_function("// job\nasync () => {\n  return 1;\n};\n")
    '// job\nasync () => {\n  return 1;\n}'
    """
    return source.strip().removesuffix(";")


def page_function(source: str, arg: dict) -> str:
    """A WebDriver async script that calls the page function `source` with `arg` and hands back its value."""
    source = bare_function(source)
    # first every widget drawn, near the viewport or not (WebKitWebDriver has no script to run before
    # a page's own: tests/support/runtime.py, EAGER)
    return ("const done = arguments[arguments.length - 1];\n"
            "Promise.resolve(window.lllmModules && window.lllmModules.loadAll())\n"
            f"  .then(() => ({source})({json.dumps(arg)})).then(done, (e) => done({{fatal: String(e && e.stack || e)}}));")


# ---- the drivers ---------------------------------------------------------------------------------
# One helper per engine: firefox(), webkit(), chromium(). Each runs the page function in `script` with `arg`
# on `url` and returns {report, console}; with `then` = (script, arg), the same tab goes on to the report's
# `link` (or each of its `links`, in turn) and runs that script there: {report, linked, console}, `linked`
# one report for a `link`, a list for `links`. tests/support/byte_budget.py drives the engines its own way
# (it counts the bytes each visit fetches, which these drivers do not watch).

def linked_reports(report: dict, visits: list) -> list | dict | None:
    """What `then` hands back: a list for a report's `links`, the one report for its `link`."""
    return visits if "links" in report else (visits[0] if visits else None)


def links_of(report: dict) -> list[str]:
    return report.get("links") or ([report["link"]] if report.get("link") else [])


def firefox(url: str, arg: dict, script: Path = SCENARIO, then: tuple | None = None) -> dict:
    """{report, console} (and `linked` with `then`): the page function in `script` run by Firefox
    (Puppeteer, WebDriver BiDi); tests/support/firefox_two_visits.mjs runs `then`'s script without an argument."""
    if not Path(FIREFOX).exists():
        raise RuntimeError(f"{FIREFOX} not found: run `make browsers` (apt-get install firefox-esr)")
    if then and then[1] not in (None, {}):
        raise ValueError("Firefox runs the linked page's script without an argument: pass (script, None)")
    support = ROOT / "tests" / "support"
    command = ([str(support / "firefox_two_visits.mjs"), url, json.dumps(arg), str(script), str(then[0])] if then
               else [str(support / "firefox_scenario.mjs"), url, json.dumps(arg), "--script", str(script)])
    done = subprocess.run(["node", *command], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT * (2 if then else 1),
                          env={**os.environ, "FIREFOX": FIREFOX, "PUPPETEER_SKIP_DOWNLOAD": "1"})
    if done.returncode != 0:
        raise RuntimeError(f"Firefox (Puppeteer) failed, status {done.returncode}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


@contextmanager
def xvfb():
    """A virtual X display for WebKitGTK (DISPLAY set while inside); none is needed if one exists."""
    if os.environ.get("DISPLAY"):
        yield
        return
    if not shutil.which("Xvfb"):
        raise RuntimeError("Xvfb not found: run `make browsers` (apt-get install xvfb)")
    display = f":{90 + os.getpid() % 100}"
    proc = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.environ["DISPLAY"] = display
    try:
        time.sleep(0.5)
        yield
    finally:
        del os.environ["DISPLAY"]
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def webkit_session(popups: bool = False):
    """A Selenium session on WebKitGTK (MiniBrowser), SharedArrayBuffer on in isolated pages; with
    `popups`, scripts may open windows (Safari's default blocks window.open without a click)."""
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    if not Path(WEBKIT_DRIVER).exists():
        raise RuntimeError(f"{WEBKIT_DRIVER} not found: run `make browsers` (apt-get install webkit2gtk-driver)")
    options = Options()
    options.binary_location = MINIBROWSER
    options.add_argument("--automation")
    if popups:
        options.add_argument("--javascript-can-open-windows-automatically=true")   # a WebKitSettings property
    with xvfb():
        os.environ["JSC_useSharedArrayBuffer"] = "1"   # read by the web process MiniBrowser starts
        driver = webdriver.WebKitGTK(options=options, service=Service(executable_path=WEBKIT_DRIVER))
        try:
            driver.set_script_timeout(TIMEOUT)
            yield driver
        finally:
            driver.quit()
            os.environ.pop("JSC_useSharedArrayBuffer", None)


# WebKit's console, collected in the page. WebKitWebDriver hands out no console log and has no way to run a
# script before a page's own, so this buffer goes in as soon as get() returns (after the load event): it
# records console.error calls, uncaught errors and unhandled rejections from then on, like Chromium's
# console/pageerror listeners. It misses what happened before it was installed (an error while the page's
# scripts first ran, during load), messages the engine writes itself (a failed request, a CSP refusal: no
# console.error call), and workers' consoles. Each document needs it again: webkit_open() installs it.
CONSOLE_BUFFER = """
if (!window.__lllmConsole) {
  const seen = window.__lllmConsole = [];
  const text = (v) => v instanceof Error ? `${v}${v.stack ? `\n${v.stack}` : ''}`    // WebKit's stack omits the message
    : typeof v === 'string' ? v : (() => { try { return JSON.stringify(v); } catch { return String(v); } })();
  const error = console.error.bind(console);
  console.error = (...args) => { seen.push(args.map(text).join(' ')); error(...args); };
  window.addEventListener('error', (e) => seen.push(`uncaught: ${e.message || text(e.error)}`));
  window.addEventListener('unhandledrejection', (e) => seen.push(`unhandled rejection: ${text(e.reason)}`));
}
"""
READ_CONSOLE = "return window.__lllmConsole ? window.__lllmConsole.splice(0) : null;"


def webkit_open(driver, url: str, ready: str | None = "window.lllm") -> None:
    """Open `url`, put the console buffer in, and wait until the expression `ready` is true (None: a page
    that is not the site's, with no runtime to wait for)."""
    from selenium.webdriver.support.wait import WebDriverWait
    driver.get(url)
    driver.execute_script(CONSOLE_BUFFER)
    # WebKitWebDriver can return from get() before the page's modules have run (seen about one
    # visit in five on a busy machine): wait for the runtime they define, as a reader's page does.
    if ready:
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(f"return Boolean({ready})"))


def webkit_console(driver) -> list[str]:
    """What the page's console buffer recorded since webkit_open() (emptied as read)."""
    seen = driver.execute_script(READ_CONSOLE)
    return ["the console buffer is gone: the page became a new document the test did not open"] if seen is None else seen


def webkit(url: str, arg: dict, script: Path = SCENARIO, popups: bool = False, then: tuple | None = None,
           ready: str | None = "window.lllm") -> dict:
    """{report, console} (and `linked` with `then`): the page function in `script` run by WebKitGTK (Selenium);
    `ready`: what to wait for once the page has loaded (webkit_open)."""
    with webkit_session(popups) as driver:
        webkit_open(driver, url, ready)
        out = {"report": driver.execute_async_script(page_function(script.read_text(encoding="utf-8"), arg))}
        console = webkit_console(driver)
        if then:
            visits = []
            for link in links_of(out["report"]):
                driver.get("about:blank")
                webkit_open(driver, link)                          # a new document: everything recomputed
                visits.append(driver.execute_async_script(page_function(then[0].read_text(encoding="utf-8"), then[1])))
                console += webkit_console(driver)
            out["linked"] = linked_reports(out["report"], visits)
    return {**out, "console": console}


def chromium(browser, url: str, arg: dict, script: Path = SCENARIO, then: tuple | None = None,
             context: dict | None = None, before=None) -> dict:
    """{report, console} (and `linked` with `then`): the page function in `script` run by Chromium (Playwright's
    `browser`) in a new context (`context`: its options, a viewport say). `before(page)`, if given, runs once the
    page has loaded, before the script: its value comes back as `before`."""
    ctx = browser.new_context(**(context or {}))
    console: list[str] = []
    out = {}
    try:
        page = ctx.new_page()
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: console.append(f"uncaught: {e}"))
        page.goto(url)
        if before:
            out["before"] = before(page)
        out["report"] = page.evaluate(script.read_text(encoding="utf-8"), arg)
        if then:
            visits = []
            for link in links_of(out["report"]):
                page.goto(link)
                visits.append(page.evaluate(then[0].read_text(encoding="utf-8"), then[1]))
            out["linked"] = linked_reports(out["report"], visits)
    finally:
        ctx.close()
    return {**out, "console": console}


# ---- what every engine must show -----------------------------------------------------------------

def cpython_demo(params: dict) -> dict:
    """The oracle: the same widget params through lllm.web.demos in CPython (onnxruntime)."""
    from lllm.web.demos import run_json
    return json.loads(run_json(json.dumps(params)))


def playground_first_cell() -> str:
    """What the playground's first cell (from_browser(seed=1) continuing "Once") prints, in CPython."""
    from lllm.model.onnx_backend import from_onnx
    return from_onnx(str(ROOT / "build" / "model" / "tinyllm.onnx"), temperature=0.8, seed=1)("Once", max_new_tokens=80) + "\n"


def check_report(run: dict) -> dict:
    """Fail with every difference from what the terminal shows; returns the report."""
    report = run["report"]
    assert "fatal" not in report, report.get("fatal")
    problems = list(report["errors"]) + [f"console: {line}" for line in run["console"]]
    if report.get("isolated") is not True or report.get("sync") != "atomics":
        problems.append(f"the page is not cross-origin isolated with Atomics: {report.get('isolated')}, {report.get('sync')}")
    if report.get("ready") != "ready":
        problems.append(f"runtime: {report.get('ready')}")
    demo = report.get("demo") or {}
    if demo:
        expected = cpython_demo(demo["params"])
        if demo["state"] != "done" or demo["trace"] != expected.get("trace", expected.get("error")):
            problems.append(f"agent demo ({demo['state']}): the trace differs from CPython's:\n{demo['trace']}\n"
                            f"--- CPython:\n{expected['trace']}")
    if (report.get("cell") or {}).get("output") != playground_first_cell():
        problems.append(f"runnable cell: {report.get('cell')}")
    editor = {"state": "ready", "tab": "    ", "labelled": "lllm-q-quiz-onnx-reorder-code", "stayed": True}
    if report.get("editor") != editor:
        problems.append(f"the code editor: {report.get('editor')} (wanted {editor})")
    if report.get("quiz") != "All 3 tests passed.":
        problems.append(f"quiz code attempt: {report.get('quiz')!r}")
    lab = report.get("lab") or {}
    if lab.get("state") != "done" or not lab.get("text", "").strip():
        problems.append(f"reasoning lab: {lab}")
    if report.get("stop") != {"stillRunning": True, "stopped": "stopped", "after": "alive 4\n"}:
        problems.append(f"stopping a runaway cell: {report.get('stop')}")
    assert not problems, "\n".join(problems)
    return report
