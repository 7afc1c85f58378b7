"""A byte budget per page kind: what a reader's first visit costs, counted as the server sends it.

Shared by tests/browser/test_byte_budget_browser.py (in `make test`: every page kind in Chromium, the demo in
Firefox and WebKit too) and bench/byte_budget.py (it rewrites the measured figures in the data file). The budgets and the figures last
measured live in one data file, bench/budgets.json, which the Performance page shows (hooks/budget.py):

    {"measured": {"date", "machine", "engine", "bare_pyodide_gzip"},
     "pages": {kind: {"path", "budget_gzip", "gzip", "requests", "files": {path: gzip}}}}

A visit (byte_budget.js drives it): a fresh browser profile, widgets drawn the lazy way a reader gets
them (loader.mjs, no window.lllmEager), the reader scrolls to the one widget the page kind is about
and uses it. Counted from the first request until the service worker's background caching is idle:
no file sent for QUIET_S (the demo waits for its "rest" message first). The budget of the demo page
is its bytes to the first answer; of the others, the whole visit. Bytes are gzip-sized, as
support.first_visit counts them (what a compressing CDN sends).

Chromium's visits are each a fresh context of one Playwright browser (`visit`, `bare_pyodide`). Firefox
(Puppeteer, byte_budget.mjs) and WebKit (Selenium, support.engines) are launched once each for a bare
Pyodide and one visit (`engine_visit`): the bare Pyodide runs on another origin of the same server
(localhost, the visit 127.0.0.1), so the two share no HTTP cache entry and no service worker.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from support.first_visit import GOAL, PYODIDE, SCRIPT as FIRST_VISIT, Sent, gzip_size, totals

SCRIPT = Path(__file__).with_name("byte_budget.js")
DATA = Path(__file__).resolve().parents[2] / "bench" / "budgets.json"
QUIET_S = 3.0            # background caching is idle: nothing sent for this long
# page kind -> the page, the widget the reader uses (byte_budget.js)
KINDS = {
    "reading": {"path": "tinyllm/data/", "selector": None, "title": "reading page (Data; a code cell and a quiz, not used)"},
    "demo": {"path": "agents/react/", "selector": '.lllm-demo[data-demo="react"]', "title": "ReAct demo, to its first answer"},
    "inside": {"path": "tinyllm/inside/", "selector": ".lllm-inside", "title": "inside view, its first step drawn"},
    "train": {"path": "tinyllm/train/", "selector": ".lllm-train", "title": "training tab, to its first checkpoint"},
}

# Which feature a file is fetched for, by its path (first match wins): the table's second column.
FEATURES = [
    (r"^/search/|/workers/search\.", "Material search (index, worker)"),
    (r"/javascripts/bundle\.|/stylesheets/|/assets/images/|favicon|/fonts/", "Material theme"),
    (r"/runtime/vendor/pyodide/", "Pyodide"),
    (r"/runtime/vendor/ort/|/runtime/vendor/onnxruntime", "onnxruntime-web"),
    (r"/runtime/model/tinyllm(-agent)?-inside|/assets/inside/", "inside view"),
    (r"/runtime/model/tinygpt", "TinyGPT"),
    (r"/runtime/model/tinyllm-agent", "agent model"),
    (r"/runtime/model/", "story model (TinyLLM)"),
    (r"/runtime/lllm_learn-|/runtime/runtime\.json", "lllm wheel, manifest"),
    (r"/runtime/vendor/wheels/|pydantic", "Pydantic wheels"),
    (r"/assets/editor/codemirror\.", "editor (CodeMirror)"),
    (r"/assets/editor/", "code cells"),     # editor.mjs: the small part that decides when to load the editor
    (r"/agents/(timetravel|timetravel-controls|branches|chatimport|drilldown)\.|/native/timetravel", "time travel"),
    (r"/agents/tabmodel\.|/assets/train/yours\.", "tab-trained model"),
    (r"/agents/yourmodel\.|/runtime/chat\.", "your model"),
    (r"/assets/train/", "training tab"),
    (r"/assets/agents/", "agent demos"),
    (r"/assets/quiz/", "quiz"),
    (r"/assets/course/", "course marks"),
    (r"/runtime/(sandbox|sandbox-inside|snapshot)\.", "run_python sandbox"),
    (r"/runtime/(worker|fetching|answer|model|sampler|gpt|timeline)\.", "runtime workers"),
    (r"/runtime/cells\.|/runtime/cell-error\.", "code cells"),
    (r"/assets/runtime/", "page runtime (loader, lllm.mjs, offline)"),
    (r"^/sw\.js", "service worker"),
    (r"\.html$|/$|\?", "pages"),
]


# A budget is what was measured plus SLACK, rounded up to 10 kB: room for a few kB of change, not for
# a new 200 kB file (a run measures the same files each time; what varies is a small file or two
# arriving just before or after the demo's answer).
SLACK = 60_000


def budget_for(gzip: int) -> int:
    return -(-(gzip + SLACK) // 10_000) * 10_000


def feature(path: str) -> str:
    for pattern, name in FEATURES:
        if re.search(pattern, path):
            return name
    return "other"


@dataclass
class Visit:
    kind: str
    report: dict
    sent: list[Sent]                      # from the first request until background caching was idle
    budgeted: list[Sent] = field(default_factory=list)   # what the budget counts (demo: to the answer)


def visit(browser, server, kind: str, hurry: bool = False) -> Visit:
    """One reader's first visit of `kind` in a fresh context of `browser` (a lazy one: no EAGER)."""
    spec = KINDS[kind]
    context = browser.new_context()
    try:
        page = context.new_page()
        start = len(server.log)
        page.goto(server.url + spec["path"])
        report = page.evaluate(SCRIPT.read_text(encoding="utf-8"), visit_arg(kind, hurry))
        sent = until_quiet(server, start)
    finally:
        context.close()
    return made(kind, report, sent)


def visit_arg(kind: str, hurry: bool = False) -> dict:
    return {"kind": kind, "goal": GOAL, "selector": KINDS[kind]["selector"], "hurry": hurry}


def until_quiet(server, start: int) -> list[Sent]:
    """What the server sent from log entry `start` on, once it has sent nothing for QUIET_S (at most 120 s more)."""
    deadline = time.time() + 120
    while time.time() < deadline:
        last = server.log[-1].at if len(server.log) > start else 0
        if time.time() - last >= QUIET_S:
            break
        time.sleep(0.25)
    return server.log[start:]


def made(kind: str, report: dict, sent: list[Sent]) -> Visit:
    budgeted = [s for s in sent if s.at * 1000 <= report["answerAt"]] if kind == "demo" and "answerAt" in report else sent
    return Visit(kind, report, sent, budgeted)


@dataclass
class Counted:
    requests: int
    gzip: int
    files: dict[str, int]                 # path (query dropped) -> gzip bytes sent, all its copies
    twice: list[str]


def count(sent: list[Sent], site: Path) -> Counted:
    bodies = [s for s in sent if s.status != 304]
    files: dict[str, int] = {}
    for s in bodies:
        path = s.path.split("?")[0]
        files[path] = files.get(path, 0) + gzip_size(site, s.path)
    times = Counter(s.path for s in bodies)
    return Counted(len(bodies), sum(files.values()), files, sorted(p for p, n in times.items() if n > 1))


def by_feature(files: dict[str, int]) -> dict[str, tuple[int, int]]:
    """feature -> (files, gzip bytes), biggest first."""
    out: dict[str, list[int]] = {}
    for path, size in files.items():
        row = out.setdefault(feature(path), [0, 0])
        row[0] += 1
        row[1] += size
    return {k: (n, b) for k, (n, b) in sorted(out.items(), key=lambda kv: -kv[1][1])}


def bare_pyodide(browser, server) -> int:
    """What a bare loadPyodide() fetches in a fresh profile of `browser` (first_visit.js "bare"), gzip bytes."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url + "agents/react/")
        bare = page.evaluate(FIRST_VISIT.read_text(encoding="utf-8"), {"phase": "bare"})
    finally:
        context.close()
    return bare_gzip(server, bare)


def bare_gzip(server, bare: dict) -> int:
    """The Pyodide files the server sent during first_visit.js's "bare" report `bare`, each counted once:
    what a bare loadPyodide() needs (WebKit's, with no HTTP cache under WebDriver, fetches each twice)."""
    assert bare["answer"] == "ok", bare
    sent = {s.path: s for s in server.between(bare["startAt"] / 1000, bare["endAt"] / 1000) if s.path.startswith(PYODIDE)}
    return totals(list(sent.values()), server.directory).gzip


# ---- Firefox and WebKit: one launch each, a bare Pyodide then one visit ---------------------------

def engine_visit(engine: str, server, kind: str = "demo") -> tuple[int, Visit]:
    """(bare Pyodide's gzip bytes, the visit of `kind`) in one launch of "firefox" or "webkit"."""
    bare_url = server.url.replace("127.0.0.1", "localhost") + "robots.txt"   # a page without scripts, another origin
    return (firefox_visit if engine == "firefox" else webkit_visit)(server, bare_url, server.url + KINDS[kind]["path"], kind)


def firefox_visit(server, bare_url: str, url: str, kind: str) -> tuple[int, Visit]:
    import tempfile
    from support.engines import FIREFOX, ROOT
    with tempfile.TemporaryFile("w+") as errors:    # a file, not a pipe nobody reads until the end
        proc = subprocess.Popen(["node", str(SCRIPT.with_suffix(".mjs")), bare_url, url, json.dumps(visit_arg(kind))],
                                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True, bufsize=1,
                                env={**os.environ, "FIREFOX": FIREFOX, "PUPPETEER_SKIP_DOWNLOAD": "1"})

        def next_report(key: str) -> dict:
            line = proc.stdout.readline()
            if not line:
                proc.kill()
                errors.seek(0)
                raise RuntimeError(f"Firefox (Puppeteer) stopped before its {key} report, status {proc.wait()}:\n{errors.read()[-3000:]}")
            return json.loads(line)

        def go_on() -> None:
            proc.stdin.write("go on\n")
            proc.stdin.flush()

        try:
            bare = bare_gzip(server, next_report("bare")["bare"])
            start = len(server.log)
            go_on()
            out = next_report("visit")
            sent = until_quiet(server, start)
            go_on()
            proc.wait(timeout=60)         # Firefox's close sometimes never ends (measured): stopped below
        except subprocess.TimeoutExpired:
            pass
        finally:
            if proc.poll() is None:
                proc.terminate()           # Puppeteer closes its Firefox on SIGTERM
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    return bare, made(kind, {**out["visit"], "console": out["console"]}, sent)


def webkit_visit(server, bare_url: str, url: str, kind: str) -> tuple[int, Visit]:
    from support.engines import bare_function, webkit_session
    from support.webkit_profile import run_in_profile

    def run(driver, script: Path, arg: dict) -> dict:
        return driver.execute_async_script("const done = arguments[arguments.length - 1];\n"
                                           f"Promise.resolve(({bare_function(script.read_text(encoding='utf-8'))})({json.dumps(arg)}))"
                                           ".then(done, (e) => done({error: String(e && e.stack || e)}));")

    with webkit_session() as driver:     # WebDriver's ephemeral session: fine for one bare download
        driver.get(bare_url)
        bare = bare_gzip(server, run(driver, FIRST_VISIT, {"phase": "bare"}))
    start = len(server.log)              # the visit: with an HTTP cache, as a reader's WebKit has (webkit_profile)
    report, sent = run_in_profile(server, url, SCRIPT, visit_arg(kind), then=lambda: until_quiet(server, start))
    return bare, made(kind, report, sent)


def load() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def grown(measured: Counted, stored: dict, slack: int = 2048) -> list[str]:
    """The files behind a page over budget: new ones, and ones grown by more than `slack` bytes."""
    before = stored.get("files", {})
    lines = []
    for path, size in sorted(measured.files.items(), key=lambda kv: -(kv[1] - before.get(kv[0], 0))):
        was = before.get(path)
        if was is None:
            lines.append(f"{path}: new, {size:,} B gzip")
        elif size > was + slack:
            lines.append(f"{path}: {was:,} -> {size:,} B gzip")
    return lines


def mb(n: int) -> str:
    return f"{n / 1e6:.2f}"
