"""Benchmark of the reference site: build time, and bytes transferred per page (cold cache).

    .venv/bin/python bench/site_bench.py [--runs 2]

Builds the site into a temporary folder (`mkdocs build --strict`, timed), serves it with
hooks/serve.py on loopback, opens every page in a fresh Chromium context and adds up what the
page fetched (response bodies plus headers, as Chromium reports them) once its diagrams are
rendered and the network is idle. Pages are grouped by whether they have Mermaid diagrams.
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from conftest import CHROMIUM, CHROMIUM_ARGS, build_site, free_port  # noqa: E402
from hooks.serve import serve_in_thread  # noqa: E402
from test_site_browser import mermaid_blocks, site_pages, wait_for_diagrams  # noqa: E402

KiB = 1024


def measure_page(browser, url: str, blocks: int) -> tuple[int, int, int]:
    """(total bytes, mermaid bytes, requests) for one cold page load."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    finished = []
    page.on("requestfinished", lambda r: finished.append(r))
    page.goto(url, wait_until="load")
    wait_for_diagrams(page, blocks)
    page.wait_for_load_state("networkidle")
    total = mermaid = 0
    for request in finished:
        sizes = request.sizes()
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        total += size
        if "/assets/vendor/mermaid/" in request.url:
            mermaid += size
    context.close()
    return total, mermaid, len(finished)


def summary(name: str, rows: list[tuple[str, int, int, int]]) -> None:
    if not rows:
        print(f"{name}: no pages")
        return
    totals = [r[1] for r in rows]
    largest = max(rows, key=lambda r: r[1])
    print(f"{name}: {len(rows)} pages, median {statistics.median(totals) / KiB:,.0f} KiB, "
          f"largest {largest[1] / KiB:,.0f} KiB (/{largest[0]})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="builds to time (the best is reported too)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        times = []
        for run in range(args.runs):
            dest = Path(tmp) / f"public{run}"
            start = time.perf_counter()
            result = build_site(dest, f"http://127.0.0.1:{port}/")
            times.append(time.perf_counter() - start)
            if result.returncode != 0:
                print(result.stdout, result.stderr, file=sys.stderr)
                return 1
        files = [p for p in dest.rglob("*") if p.is_file()]
        print(f"build (mkdocs build --strict, all hooks): {', '.join(f'{t:.1f} s' for t in times)}"
              f"  -> {len(files)} files, {sum(p.stat().st_size for p in files) / KiB / KiB:.1f} MiB")
        server = serve_in_thread(dest, port)
        rows_with, rows_without = [], []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                print(f"\n{'page':32} {'diagrams':>8} {'requests':>8} {'KiB':>8} {'mermaid KiB':>12}")
                for path, html_file, status in site_pages(dest):
                    if status != 200:
                        continue
                    blocks = mermaid_blocks(html_file.read_text(encoding="utf-8"))
                    total, mermaid, requests = measure_page(browser, f"http://127.0.0.1:{port}/{path}", blocks)
                    print(f"/{path:31} {blocks:8} {requests:8} {total / KiB:8,.0f} {mermaid / KiB:12,.0f}")
                    (rows_with if blocks else rows_without).append((path, total, mermaid, requests))
                browser.close()
        finally:
            server.shutdown()
        print()
        summary("pages with diagrams   ", rows_with)
        summary("pages without diagrams", rows_without)
    return 0


if __name__ == "__main__":
    sys.exit(main())
