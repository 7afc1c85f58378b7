"""WebKit as a reader has it: MiniBrowser with a profile of its own (a fresh folder), not WebDriver's session.

Why not WebDriver: WebKitWebDriver starts MiniBrowser with `--automation`, and an automation session
is an ephemeral one that keeps no HTTP cache at all: `force-cache` and `only-if-cached` go to the
network, so every file the page fetched before its service worker took over was sent a second time
when the worker saved it for offline use (21 files, measured 2026-12-07). Safari and every iPhone
browser keep an HTTP cache. Run the same visit in MiniBrowser with a profile folder of its own and
the worker finds those bytes there: 196 requests, none sent twice (measured 2026-12-08, 2 cores).

How the page is driven without WebDriver: MiniBrowser opens a driver page that the counting server
answers itself (never logged, never a site file). Same origin and the same headers as the site
(cross-origin isolated, so `window.open` keeps it scriptable), it opens the page and runs a
page-function file (the same files the WebDriver tests run) against the opened window, then posts
back its value. The site's Content-Security-Policy has no 'unsafe-eval', so the function is not
evaluated in the page: it is compiled into the driver's own script, with the page's globals
(`document`, `location`, `setTimeout`, ...) passed in as parameters of the same names.

    report, sent = run_in_profile(server, "/agents/react/", Path("tests/support/byte_budget.js"), {...},
                                  then=lambda: until_quiet(server, start))

`server` is a `first_visit.CountingServer`.

    >>> "document" in PAGE_GLOBALS and "window" in PAGE_GLOBALS
    True
    >>> "const run = (w) => (function (window" in driver_script("async () => 1;", {})
    True
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

from support.engines import MINIBROWSER, TIMEOUT, bare_function, xvfb
from support.first_visit import REPORT

DRIVER = "/__driver.html"
# The page's globals a page-function may name; each becomes a parameter bound to the opened window's own.
PAGE_GLOBALS = ("window", "document", "performance", "navigator", "location", "scrollTo", "setTimeout", "clearTimeout",
                "Event", "KeyboardEvent", "MouseEvent", "innerHeight", "innerWidth", "getComputedStyle", "fetch")
FUNCTIONS = {"scrollTo", "setTimeout", "clearTimeout", "getComputedStyle", "fetch"}   # called bare: bound to the window

DRIVER_JS = """
const params = new URLSearchParams(location.search);
const send = (value) => fetch("%(report)s", { method: "POST", body: JSON.stringify(value) });
(async () => {
  const w = window.open(params.get("to"), "_blank");
  if (!w) return send({ error: "MiniBrowser did not open the page (window.open returned null)" });
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));   // the driver's: a timer of the page's first,
                                                                  // blank document would be dropped when it navigates
  const deadline = Date.now() + 120000;
  while (!(w.document?.readyState === "complete" && w.lllm) && Date.now() < deadline) await sleep(100);
  if (!w.lllm) return send({ error: `window.lllm never appeared on ${params.get("to")}` });
  try {
    if (%(eager)s) await w.lllmModules?.loadAll();   // every widget drawn, near the viewport or not
    await send(await run(w)(%(arg)s));
  } catch (e) {
    const message = String((e && e.stack) || e);
    await send({ error: message, fatal: message });   // the names the WebDriver drivers use
  }
})();
"""


def driver_script(source: str, arg: dict, eager: bool = False) -> str:
    """The driver page's script: `run(w)` is the page-function `source` with `w`'s globals, called with `arg`
    (with `eager`, once every widget of the page is drawn, as tests/support/engines.page_function does)."""
    values = ", ".join("w" if n == "window" else f"w.{n}.bind(w)" if n in FUNCTIONS else f"w.{n}" for n in PAGE_GLOBALS)
    return (f"const run = (w) => (function ({', '.join(PAGE_GLOBALS)}) {{\n  return (\n{bare_function(source)}\n  );\n}})({values});\n"
            + DRIVER_JS % {"report": REPORT, "arg": json.dumps(arg), "eager": json.dumps(eager)})


def run_in_profile(server, page: str, script: Path, arg: dict, then=None, eager: bool = False,
                   timeout: float = TIMEOUT) -> tuple[dict, object]:
    """Open `page` (its URL, or its path on `server`) in MiniBrowser with a fresh profile of its own and run `script` there with `arg`:
    (its value, what `then()` returns, called while the browser is still open), or RuntimeError."""
    if not Path(MINIBROWSER).exists():
        raise RuntimeError(f"{MINIBROWSER} not found: run `make browsers` (apt-get install webkit2gtk-driver)")
    server.extra[DRIVER] = ("text/html", b'<!doctype html><title>driver</title><script src="/__driver.js"></script>')
    server.extra["/__driver.js"] = ("text/javascript", driver_script(script.read_text(encoding="utf-8"), arg, eager).encode())
    server.posted.clear()
    home = tempfile.mkdtemp(prefix="webkit-profile-")
    env = {**os.environ, "HOME": home, "XDG_CACHE_HOME": f"{home}/cache", "XDG_DATA_HOME": f"{home}/data",
           "XDG_CONFIG_HOME": f"{home}/config", "JSC_useSharedArrayBuffer": "1"}
    url = server.url.rstrip("/") + DRIVER + "?to=" + urllib.parse.quote(page, safe="")
    try:
        with xvfb(), tempfile.TemporaryFile("w+") as errors:
            env["DISPLAY"] = os.environ["DISPLAY"]
            proc = subprocess.Popen([MINIBROWSER, "--javascript-can-open-windows-automatically=true",
                                     "--enable-write-console-messages-to-stdout=true", url],   # console in the error
                                    env=env, stdout=errors, stderr=subprocess.STDOUT)
            try:
                deadline = time.time() + timeout
                while not server.posted and proc.poll() is None and time.time() < deadline:
                    time.sleep(0.5)
                after = then() if server.posted and then else None
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            if not server.posted:
                errors.seek(0)
                raise RuntimeError(f"MiniBrowser sent no report from {page} within {timeout:.0f} s "
                                   f"(status {proc.returncode}):\n{errors.read()[-3000:]}")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return json.loads(server.posted[0]), after
