"""Benchmark · run_python's interpreter in the page, started ahead: its first call after 5 s of reading.

Per engine (Chromium through Playwright, Firefox through Puppeteer, WebKit through Selenium, as
tests/support/engines.py drives them), RUNS times in a fresh browser profile, on the proxies page
(tests/support/sandbox_prestart_timing.js): a first visit starts everything and caches both
snapshots; on the second the page is left idle for 5 s, then the page's own Python starts (its
warm start, the yardstick measured in the same run), and the first run_python call is timed from
the page (a cell calling `m.run_python("print(2 + 2)")`); then Stop, 5 s idle, and the first call
again. Prints medians, their ratios to the page's warm start, and how the frame's Python had
started (restored from its snapshot or not; in how long from the frame being asked for, files and
snapshot read from the cache included), and writes them to bench/results/page-sandbox.md.

    .venv/bin/python bench/page_sandbox_prestart_bench.py [--engines chromium,firefox,webkit] [--runs 3]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from engine_bench import machine  # noqa: E402
from support import engines  # noqa: E402
from support.runtime import build_site, free_port, launch, serve  # noqa: E402

PAGE = "native/proxies/"
SCRIPT = ROOT / "tests" / "support" / "sandbox_prestart_timing.js"
FIRST = {"visit": 1}
BOUNDS = {"chromium": 1500, "firefox": 1500, "webkit": 3000}   # ms: the first call after 5 s idle, and after Stop
OUT = ROOT / "bench" / "results" / "page-sandbox.md"


def chromium(url: str) -> dict:
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_context().new_page()
        page.goto(url)
        first = page.evaluate(SCRIPT.read_text(encoding="utf-8"), FIRST)
        page.goto(first["link"])
        second = page.evaluate(SCRIPT.read_text(encoding="utf-8"), None)
        browser.close()
    return {"first": first, "second": second}


def firefox(url: str) -> dict:
    done = subprocess.run(["node", str(ROOT / "tests" / "support" / "firefox_two_visits.mjs"), url, json.dumps(FIRST),
                           str(SCRIPT), str(SCRIPT)], cwd=ROOT, capture_output=True, text=True, timeout=engines.TIMEOUT,
                          env={**os.environ, "FIREFOX": engines.FIREFOX, "PUPPETEER_SKIP_DOWNLOAD": "1"})
    if done.returncode != 0:
        raise RuntimeError(f"Firefox (Puppeteer) failed, status {done.returncode}:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return {"first": out["report"], "second": out["linked"]}


def webkit(url: str) -> dict:
    from selenium.webdriver.support.wait import WebDriverWait
    source, reports = SCRIPT.read_text(encoding="utf-8"), []
    with engines.webkit_session() as driver:
        for arg in (FIRST, None):
            driver.get(reports[0]["link"] if reports else url)
            WebDriverWait(driver, 60).until(lambda d: d.execute_script("return Boolean(window.lllm)"))
            reports.append(driver.execute_async_script(engines.page_function(source, arg)))
    return {"first": reports[0], "second": reports[1]}


def measure(engine: str, url: str, runs: int) -> list[dict]:
    visits = []
    for _ in range(runs):
        visit = {"chromium": chromium, "firefox": firefox, "webkit": webkit}[engine](url)
        for report in visit.values():
            if report.get("fatal") or report.get("error"):
                raise RuntimeError(f"{engine}: {report}")
        visits.append(visit["second"])
    return visits


def row(engine: str, visits: list[dict]) -> str:
    median = lambda key: statistics.median(v[key] for v in visits)          # noqa: E731
    warm, first, after = median("pageWarmStart"), median("firstCall"), median("afterStop")
    restored = [v["frame"]["how"] for v in visits] + [v["frameAfterStop"]["how"] for v in visits]
    frame_ms = statistics.median(v["frame"]["ms"] for v in visits)
    bound = BOUNDS[engine]
    ok = "✓" if first <= bound and after <= bound else "✗"
    return (f"| {engine} | {warm:.0f} | {first:.0f} | {first / warm:.2f}× | {after:.0f} | {after / warm:.2f}× "
            f"| {bound} {ok} | {frame_ms:.0f} | {restored.count('snapshot')} of {len(restored)} "
            f"| {each(visits, 'firstCall')} / {each(visits, 'afterStop')} |")


def each(visits: list[dict], key: str) -> str:
    return ", ".join(f"{v[key]:.0f}" for v in visits)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="chromium,firefox,webkit")
    parser.add_argument("--runs", type=int, default=3, help="fresh profiles per engine (the median is printed)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    port = free_port()
    site = build_site(Path(tempfile.mkdtemp(prefix="lllm-bench-")) / "public", port)
    server = serve(site, port)
    url = f"http://127.0.0.1:{port}/{PAGE}"
    lines = ["| engine | page's warm start, ms | first call, ms | × warm start | after Stop, ms | × warm start "
             "| bound, ms | frame started in, ms | restored from the snapshot | each run: first / after Stop, ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    try:
        for engine in args.engines.split(","):
            lines.append(row(engine, measure(engine, url, args.runs)))
            print(lines[-1], flush=True)
    finally:
        server.shutdown()
    stamp = (f"Measured {datetime.date.today().isoformat()} on {machine()} (shared VM, headless), "
             f"median of {args.runs} fresh profiles, by bench/page_sandbox_prestart_bench.py.")
    print(stamp)
    args.out.write_text("\n".join([f"<!-- {stamp} -->", *lines, "", stamp, ""]), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
