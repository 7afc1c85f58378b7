"""Benchmark: a learner's first visit to the ReAct demo in every engine (Chromium, Firefox, WebKit).

Not a test: it prints numbers and ratios measured in this one run (the machine is shared and
noisy: compare numbers measured back to back, not across runs). tests/browser/test_first_visit_browser.py
asserts the byte counts in Chromium; this prints them, and the times, for all three.

    python bench/engine_bench.py [--engines chromium,firefox,webkit] [--out bench/results/first-visit.md]
                                 [--warm 3] [--verbose]   # warm windows per engine; print each one's lllm.timings

Per engine, each in a fresh profile, driven as tests/support/engines.py drives it (tests/support/first_visit.js):
  - bare Pyodide: a module worker that only awaits loadPyodide(): its ms and gzip bytes, the baseline.
  - to the first answer: requests, raw and gzip bytes the server sent from opening /agents/react/
    until the agent-tuned TinyLLM answered "What is 17 * 23?" (tests/support/first_visit.py counts them);
    its ratio to bare Pyodide and to the floor (what the answer truly needs: Pyodide's core,
    onnxruntime-web's wasm, the agent model, the lllm wheel).
  - whole visit: requests and gzip bytes from opening the page until the service worker reported
    that its background caching had ended (the rest of the site saved for offline use);
    twice: files sent more than once in it; asked again: files asked for again and answered 304
    (no body, a round trip) but /sw.js, the browser's own update check.
  - warm sent: bodies the server sent while the warm windows ran (each should come from the cache).
  - cold ready / warm ready: the runtime's start until lllm.ready() (Python and onnxruntime-web),
    on the first visit and in a second document served by the service worker's cache (a new
    window; WebKit's MiniBrowser is told it may open one; WebKit's visit runs in MiniBrowser with a
    profile of its own, tests/support/webkit_profile.py, since WebDriver's session keeps no HTTP
    cache and a reader's Safari does). Warm is the median of WARM_RUNS such
    windows opened one after another (one warm start varies by a third from run to run here);
    cold is the one first visit. The warm start step by step is the median of each step
    (lllm.timings: when each worker was running, the snapshot read, Pyodide's wasm compiled, ...).
  - Python ready, cold / warm: the same two starts until Python alone was ready (lllm.timings'
    "python: ready", in s after the runtime was asked for), and their ratio: what issue 23's
    "warm second visit" target is about.
  - first answer: from the click to the answer, and its ratio to bare Pyodide's time.
Chromium also times Python's predictor calls both ways Python can block on the model
(Atomics.wait and JSPI), which is what decides the default (site/assets/runtime/lllm.mjs).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support import engines, webkit_profile  # noqa: E402
from support.first_visit import ANSWER, GOAL, PYODIDE, SCRIPT, CountingServer, floor_gzip, totals  # noqa: E402
from support.runtime import build_site, free_port, launch  # noqa: E402

PREDICTOR_CALLS = """async () => {
  await lllm.ready();
  const t0 = performance.now();
  await lllm.run('from lllm.web.browser import from_browser\\nb = from_browser(seed=1)\\nfor i in range(40): b("Once", 20)');
  return performance.now() - t0;
}"""
HEADER = ("| engine | bare Pyodide | requests | MB raw | MB gzip | whole visit | twice | asked again | warm sent "
          "| × bare Pyodide | × floor | cold ready | warm ready "
          "| warm × cold | Python ready, cold / warm | Python warm × cold | first answer | × bare Pyodide time | answer |")
COLUMNS = HEADER.count("|") - 1
WARM_RUNS = 3


# The warm start's steps (lllm.timings, site/assets/runtime/timeline.mjs) shown in the second table.
STEPS = [("python: worker running", "workers running"), ("python: snapshot read", "snapshot read"),
         ("python: wasm compiled", "Pyodide compiled"), ("python: wasm instantiated", "Pyodide instantiated"),
         ("python: lllm unpacked", "lllm's files written"), ("python: started", "Python started"),
         ("python: ready", "Python ready"), ("model: onnxruntime ready", "onnxruntime-web ready"),
         ("page: ready", "ready")]
STEPS_HEADER = "| warm start, s after lllm.ready() | " + " | ".join(label for _, label in STEPS) + " |"


def run(engine: str, url: str, arg: dict, browser=None, server=None) -> dict:
    if engine == "chromium":
        out = engines.chromium(browser, url, arg, script=SCRIPT)
    elif engine == "webkit" and server is not None:    # the visit: with an HTTP cache, as a reader's WebKit has
        return webkit_profile.run_in_profile(server, url, SCRIPT, arg, eager=True)[0]
    elif engine == "webkit":
        out = engines.webkit(url, arg, script=SCRIPT, popups=True)   # the warm start's window
    else:
        out = getattr(engines, engine)(url, arg, script=SCRIPT)
    return out["report"]


def measure(engine: str, server: CountingServer, browser, warm_runs: int = WARM_RUNS) -> dict:
    """One engine: a bare Pyodide, then a first visit with a warm second document."""
    url = server.url + "agents/react/"
    bare = run(engine, url, {"phase": "bare"}, browser)
    if "fatal" in bare:
        return {"fatal": bare["fatal"]}
    bare_sent = [s for s in server.between(bare["startAt"] / 1000, bare["endAt"] / 1000) if s.path.startswith(PYODIDE)]
    start = len(server.log)
    visit = run(engine, url, {"phase": "visit", "goal": GOAL, "warm": warm_runs}, browser, server)
    if "fatal" in visit:
        return {"fatal": visit["fatal"]}
    sent = server.log[start:]
    first = [s for s in sent if s.at * 1000 <= visit["restAt"]]
    return {"bare": totals(bare_sent, server.directory), "bare_ms": bare["ms"], "visit": visit,
            "answer": totals([s for s in sent if s.at * 1000 <= visit["answerAt"]], server.directory),
            "whole": totals(first, server.directory), "warm": totals(sent[len(first):], server.directory)}


def step_ms(timings: list | None, step: str) -> float | None:
    """When `step` happened in lllm.timings ([[step, ms], ...]), or None."""
    return next((ms for name, ms in timings or [] if name == step), None)


def warm_median(visit: dict, step: str | None = None) -> float | None:
    """The median over the warm windows of lllm.ready() (step None) or of when `step` happened."""
    values = [r["readyMs"] if step is None else step_ms(r["timings"], step) for r in visit.get("warmRuns", [])]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def row(engine: str, m: dict, floor: int) -> str:
    if "fatal" in m:
        return f"| {engine} | failed: {m['fatal'].splitlines()[0][:120]} |" + " |" * (COLUMNS - 2)
    v, a = m["visit"], m["answer"]
    seconds = lambda ms: f"{ms / 1000:.1f} s" if ms is not None else "–"   # noqa: E731
    ratio = lambda warm, cold: f"{warm / cold:.2f}×" if warm and cold else "–"   # noqa: E731
    cold_py, warm_py = step_ms(v.get("coldTimings"), "python: ready"), warm_median(v, "python: ready")
    warm_ready = warm_median(v)
    python = f"{cold_py / 1000:.1f} / {warm_py / 1000:.2f} s" if cold_py and warm_py else "–"
    right = "391 ✓" if v["answer"] == ANSWER else repr(v["answer"])[:40]
    w = m["whole"]
    again = [p for p in w.revalidated if p != "/sw.js"]
    return (f"| {engine} | {m['bare'].gzip / 1e6:.2f} MB, {m['bare_ms'] / 1000:.1f} s | {a.requests} | {a.raw / 1e6:.1f} | {a.gzip / 1e6:.2f} "
            f"| {w.requests}, {w.gzip / 1e6:.2f} MB | {len(w.twice)} | {len(again)} | {m['warm'].requests} "
            f"| {a.ratio(m['bare']):.2f}× | {a.ratio(floor):.2f}× | {seconds(v['coldReadyMs'])} | {seconds(warm_ready)} "
            f"| {ratio(warm_ready, v['coldReadyMs'])} | {python} | {ratio(warm_py, cold_py)} "
            f"| {seconds(v['answerMs'])} | {v['answerMs'] / m['bare_ms']:.2f}× | {right} |")


def steps_row(engine: str, m: dict) -> str:
    """When each step of the warm start happened, in s after the runtime was asked for (medians)."""
    visit = m.get("visit", {})
    cells = [f"{ms / 1000:.2f}" if (ms := warm_median(visit, step)) is not None else "–" for step, _ in STEPS]
    return f"| {engine} | " + " | ".join(cells) + " |"


def machine() -> str:
    cpus = os.cpu_count()
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else platform.processor()
    return f"{cpus} cores ({model}), {platform.system()} {platform.release()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="chromium,firefox,webkit")
    parser.add_argument("--warm", type=int, default=WARM_RUNS, help=f"warm windows per engine (default {WARM_RUNS})")
    parser.add_argument("--verbose", action="store_true", help="also print every warm window's lllm.timings")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown, dated) to this file")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        port = free_port()
        site = build_site(Path(tmp) / "public", port)
        server = CountingServer(site, port)
        floor = floor_gzip(site)
        browser = launch(p)
        lines, steps = [HEADER, "|" + "---|" * COLUMNS], [STEPS_HEADER, "|" + "---|" * (len(STEPS) + 1)]
        for engine in args.engines.split(","):
            m = measure(engine, server, browser, args.warm)
            lines.append(row(engine, m, floor))
            steps.append(steps_row(engine, m))
            print(lines[-1], steps[-1], sep="\n", flush=True)
            for warm in m.get("visit", {}).get("warmRuns", []) if args.verbose else []:
                print(f"  {engine} warm:", ", ".join(f"{step} {ms}" for step, ms in warm["timings"]), flush=True)
        stamp = (f"Measured {datetime.date.today().isoformat()} on {machine()}, by `make bench` "
                 f"(bench/engine_bench.py): floor {floor / 1e6:.2f} MB gzip.")
        print(stamp)
        if args.out:
            args.out.write_text("\n".join([f"<!-- {stamp} -->", *lines, "", *steps, "", stamp, ""]), encoding="utf-8")
        if "chromium" in args.engines:
            times = {}
            for sync in ("atomics", "jspi"):
                context = browser.new_context(service_workers="block")
                context.add_init_script(f"window.lllmSync = '{sync}'")
                page = context.new_page()
                page.goto(server.url + "agents/react/")
                times[sync] = page.evaluate(PREDICTOR_CALLS)
                context.close()
            print(f"chromium: 40 predictor calls of 20 characters from Python: Atomics.wait {times['atomics']:.0f} ms, "
                  f"JSPI {times['jspi']:.0f} ms (JSPI / Atomics = {times['jspi'] / times['atomics']:.2f}x)")
        browser.close()
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
