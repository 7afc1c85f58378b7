"""Benchmark: Lighthouse 12.2.3 (npm, pinned in package.json) on ten pages of the built site, mobile.

Not a test: it prints numbers measured in this one run on this one machine (shared and noisy:
compare runs made back to back, not across days). tests/ assert behaviour, never these numbers.

    python bench/lighthouse_bench.py [--runs 3] [--out bench/results/lighthouse.md]

The site is built (`mkdocs build`) and served by hooks/serve.py, so `_headers` applies (COOP/COEP,
the CSP, Cache-Control) as on Cloudflare Pages, and text and WebAssembly go out gzip'd as Cloudflare
sends them (Cloudflare may use brotli, a little smaller still).
Lighthouse's CLI drives Debian's Chromium (CHROME_PATH=/usr/bin/chromium) with its default
settings: a mobile phone, simulated slow 4G and a 4x slower CPU, a fresh profile every run (so
every run is a first visit; it counts what a service worker answered as 0 bytes, which a first
visit has none of before its worker takes over). Per page, the median of `--runs` runs of:
performance score, Total Blocking Time, Cumulative Layout Shift, Largest Contentful Paint, the
unused-JavaScript audit's bytes, and the accessibility score.

Lighthouse 12.2.3's RootCauses gatherer crashes on Chromium 156 ("reading 'frame_sequence'"), so the
audits that need it (SKIPPED) are left out; the CLS metric itself comes from the trace and works.
If it ever reports an error, CLS is read in the page instead: a PerformanceObserver for
`layout-shift` entries (buffered), summed over the first seconds, on the same phone-sized viewport.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from support.runtime import CHROMIUM, build_site, free_port  # noqa: E402

# The reading pages, then the ones that carry the heavy interactive work: the inside view, the training
# tab, the comparison page, and the ReAct page with its demo and time travel. Each is measured as a
# reader lands on it: the address alone, no scrolling, no click. Opened at its top, the ReAct page
# draws no time travel: that widget sits screens below the demo and its module is imported when the
# reader reaches it (runtime/loader.mjs). Opened at its time-travel section (the link other pages
# give), the page lands there and the widget is drawn on load: that is the last row.
TIME_TRAVEL = "/agents/react/#time-travel-step-back-edit-run-from-here"
PAGES = ["/", "/course/", "/tinyllm/generation/", "/native/tactic/", "/agents/react/", "/playground/",
         "/tinyllm/inside/", "/tinyllm/train/", "/tinyllm/versus/", TIME_TRAVEL]
LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
# Audits that need the RootCauses gatherer, which crashes on Chromium 156 (they would only error).
SKIPPED = ["layout-shifts", "largest-contentful-paint-element", "lcp-lazy-loaded", "non-composited-animations",
           "prioritize-lcp-image", "render-blocking-resources"]
# Plain `--headless`: with Playwright's longer flag list (tests/support/runtime.py) Lighthouse lost
# the navigation's start in the trace on COOP pages (NO_NAVSTART), measured.
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu"
HEADER = "| page | performance | TBT | CLS | LCP | unused JavaScript | accessibility |"

CLS_PROBE = """() => new Promise((resolve) => {
  let total = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) total += entry.value;
  }).observe({ type: "layout-shift", buffered: true });
  setTimeout(() => resolve(total), 5000);
})"""


def lighthouse(url: str, out: Path, attempts: int = 3) -> dict:
    """One Lighthouse run (a fresh Chromium profile); its JSON report. A run whose trace lost the
    navigation (an occasional runtime error) or came back without a performance score (a metric
    Lighthouse could not compute; seen on a busy machine) is made again, up to `attempts` in all."""
    command = ["node", str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
               "--only-categories=performance,accessibility", "--form-factor=mobile",
               f"--skip-audits={','.join(SKIPPED)}", f"--chrome-flags={CHROME_FLAGS}"]
    for _ in range(attempts):
        done = subprocess.run(command, env=dict(os.environ, CHROME_PATH=CHROMIUM), capture_output=True, text=True)
        report = json.loads(out.read_text(encoding="utf-8")) if done.returncode == 0 else {}
        scored = report and report["categories"]["performance"]["score"] is not None
        if report and not report.get("runtimeError") and scored:
            return report
        error = (report.get("runtimeError", {}).get("code") or ("no performance score" if report else None)
                 or (done.stderr.strip().splitlines() or ["no output"])[-1])
    raise RuntimeError(f"Lighthouse failed on {url} {attempts} times: {error}")


def cls_probe(url: str) -> float:
    """CLS read in the page (a phone-sized viewport), for when Lighthouse's audit errors."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_context(viewport={"width": 412, "height": 823}, is_mobile=True).new_page()
            page.goto(url)
            return page.evaluate(CLS_PROBE)
        finally:
            browser.close()


def measures(report: dict, url: str) -> dict:
    """The numbers of one run: scores 0-100, times in ms, bytes."""
    audits, categories = report["audits"], report["categories"]
    cls = audits["cumulative-layout-shift"]
    return {
        "performance": 100 * categories["performance"]["score"],
        "tbt": audits["total-blocking-time"]["numericValue"],
        "cls": cls_probe(url) if cls.get("errorMessage") or cls.get("numericValue") is None else cls["numericValue"],
        "lcp": audits["largest-contentful-paint"]["numericValue"],
        "unused_js": audits["unused-javascript"].get("details", {}).get("overallSavingsBytes", 0),
        "accessibility": 100 * categories["accessibility"]["score"],
    }


def row(page: str, runs: list[dict]) -> str:
    m = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    return (f"| `{page}` | {m['performance']:.0f} | {m['tbt']:,.0f} ms | {m['cls']:.3f} | {m['lcp'] / 1000:.1f} s "
            f"| {m['unused_js'] / 1024:,.0f} KiB | {m['accessibility']:.0f} |")


def machine() -> str:
    return f"{platform.platform()}, {os.cpu_count()} CPUs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--out", type=Path, help="also write the table (Markdown, dated) to this file")
    args = parser.parse_args()
    if not LIGHTHOUSE.is_file():
        print("error: node_modules/lighthouse is missing: run `make node`", file=sys.stderr)
        return 2
    from hooks.serve import make_server

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        site = build_site(Path(tmp) / "public", port)
        server = make_server(site, port, compress=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        version = subprocess.run(["node", str(LIGHTHOUSE), "--version"], capture_output=True, text=True).stdout.strip()
        lines = [HEADER, "|---|---|---|---|---|---|---|"]
        print(lines[0], lines[1], sep="\n", flush=True)
        try:
            for page in args.pages.split(","):
                url = f"http://127.0.0.1:{port}{page}"
                runs = [measures(lighthouse(url, Path(tmp) / "report.json"), url) for _ in range(args.runs)]
                lines.append(row(page, runs))
                print(lines[-1], flush=True)
        finally:
            server.shutdown()
            server.server_close()
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    note = (f"Measured {datetime.date.today().isoformat()} on {machine()}, by `make bench` (bench/lighthouse_bench.py): "
            f"Lighthouse {version}, mobile (simulated slow 4G, 4x CPU slowdown), {chromium}, median of {args.runs} runs "
            "per page; served by hooks/serve.py with gzip.")
    print(note)
    if args.out:
        args.out.write_text(f"<!-- {note} -->\n" + "\n".join(lines) + f"\n\n{note}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
