"""The three engines' drivers and what their one visit must show (tests/support/engine_scenario.js).

    run_scenario("webkit", url)  -> the report the scenario resolved to, plus console errors
    check_report(report)         -> fails naming every step that went wrong

Chromium runs through Playwright (conftest's `browser`), Firefox through Puppeteer over WebDriver
BiDi (tests/support/firefox_scenario.mjs, Debian's firefox-esr), WebKit through Selenium and WebKitGTK's
WebDriver (/usr/bin/WebKitWebDriver driving MiniBrowser under Xvfb). WebKitGTK exposes
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

def firefox(url: str, arg: dict, script: Path = SCENARIO) -> dict:
    """{report, console}: the page function in `script` run by Firefox (Puppeteer, WebDriver BiDi)."""
    if not Path(FIREFOX).exists():
        raise RuntimeError(f"{FIREFOX} not found: run `make browsers` (apt-get install firefox-esr)")
    done = subprocess.run(["node", str(ROOT / "tests" / "support" / "firefox_scenario.mjs"), url, json.dumps(arg), "--script", str(script)],
                          cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT,
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


def webkit(url: str, arg: dict, script: Path = SCENARIO, popups: bool = False) -> dict:
    """{report, console}: the page function in `script` run by WebKitGTK (Selenium)."""
    from selenium.webdriver.support.wait import WebDriverWait
    with webkit_session(popups) as driver:
        driver.get(url)
        # WebKitWebDriver can return from get() before the page's modules have run (seen about one
        # visit in five on a busy machine): wait for the runtime they define, as a reader's page does.
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return Boolean(window.lllm)"))
        report = driver.execute_async_script(page_function(script.read_text(encoding="utf-8"), arg))
    return {"report": report, "console": []}   # WebKitWebDriver does not hand out the console


def chromium(browser, url: str, arg: dict, script: Path = SCENARIO, then: tuple | None = None) -> dict:
    """{report, console}: the page function in `script` run by Chromium (Playwright's `browser`); with
    `then` = (script, arg), the same tab goes on to the report's `link` and runs that too ({..., linked})."""
    context = browser.new_context()
    console: list[str] = []
    out = {}
    try:
        page = context.new_page()
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: console.append(f"uncaught: {e}"))
        page.goto(url)
        out["report"] = page.evaluate(script.read_text(encoding="utf-8"), arg)
        if then:
            page.goto(out["report"]["link"])
            out["linked"] = page.evaluate(then[0].read_text(encoding="utf-8"), then[1])
    finally:
        context.close()
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
