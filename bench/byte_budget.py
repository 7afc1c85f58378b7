"""What each page kind's first visit costs, by file and by feature (tests/support/byte_budget.py says how
it is counted), in Chromium over the built site, and the ReAct demo's in Firefox and WebKit (--engines:
each engine's own bare Pyodide beside it); with --write, the figures go to bench/budgets.json
(the budgets there are kept unless --budgets sets them anew: measured + SLACK, tests/support/byte_budget.py;
the Performance page shows both). tests/browser/test_byte_budget_browser.py
checks every page kind against its budget in `make test`.

    python bench/byte_budget.py [--site public-dir --port N] [--kinds demo,reading] [--engines firefox,webkit] [--files] [--write [--budgets]]

Without --site the site is built into a temporary folder first. --files prints every file sent.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support import byte_budget as bb  # noqa: E402
from support.first_visit import CountingServer  # noqa: E402
from support.runtime import build_site, free_port, launch  # noqa: E402


def machine() -> str:
    cpu = "?"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", type=Path)
    ap.add_argument("--port", type=int, default=0, help="the port --site was built for")
    ap.add_argument("--kinds", default=",".join(bb.KINDS))
    ap.add_argument("--engines", default="firefox,webkit", help="the other engines whose demo visit is measured ('' for none)")
    ap.add_argument("--files", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--budgets", action="store_true", help="with --write: set each budget anew from this measure (budget_for)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = None
    if args.site:
        site, port = args.site, args.port
    else:
        tmp = tempfile.TemporaryDirectory()
        port = free_port()
        site = build_site(Path(tmp.name) / "public", port)
    server = CountingServer(site, port)
    data = bb.load()
    try:
        with sync_playwright() as p:
            browser = launch(p, lazy=True)
            bare = bb.bare_pyodide(browser, server)
            print(f"bare Pyodide: {bb.mb(bare)} MB gzip")
            for kind in args.kinds.split(","):
                v = bb.visit(browser, server, kind)
                budget, whole = bb.count(v.budgeted, site), bb.count(v.sent, site)
                print(f"\n## {kind}: {bb.KINDS[kind]['title']}  {json.dumps({k: v.report.get(k) for k in ('state', 'answer', 'rest', 'saved', 'checkpoint', 'error') if k in v.report})}")
                print(f"budgeted: {budget.requests} requests, {bb.mb(budget.gzip)} MB gzip ({budget.gzip / bare:.2f}x bare Pyodide); "
                      f"whole visit: {whole.requests} requests, {bb.mb(whole.gzip)} MB gzip; sent twice: {whole.twice}")
                print("| feature | files | kB gzip |\n|---|---|---|")
                for name, (n, b) in bb.by_feature(budget.files).items():
                    print(f"| {name} | {n} | {b / 1e3:.1f} |")
                if args.files:
                    print("| file | feature | kB gzip |\n|---|---|---|")
                    for path, b in sorted(budget.files.items(), key=lambda kv: -kv[1]):
                        print(f"| {path} | {bb.feature(path)} | {b / 1e3:.1f} |")
                page = data["pages"].setdefault(kind, {"path": bb.KINDS[kind]["path"], "budget_gzip": 0})
                if args.budgets or not page["budget_gzip"]:
                    page["budget_gzip"] = bb.budget_for(budget.gzip)
                page.update({"path": bb.KINDS[kind]["path"], "gzip": budget.gzip, "requests": budget.requests,
                             "twice": len(whole.twice), "whole_gzip": whole.gzip, "whole_requests": whole.requests, "files": dict(sorted(budget.files.items()))})
            browser.close()
        for engine in filter(None, args.engines.split(",")):
            engine_bare, v = bb.engine_visit(engine, server)
            budget, whole = bb.count(v.budgeted, site), bb.count(v.sent, site)
            print(f"\n## demo in {engine}: {budget.requests} requests, {bb.mb(budget.gzip)} MB gzip to the answer "
                  f"({budget.gzip / engine_bare:.2f}x its bare Pyodide, {bb.mb(engine_bare)} MB); whole visit {whole.requests} requests, "
                  f"{bb.mb(whole.gzip)} MB; sent twice ({len(whole.twice)}): {whole.twice}")
            data.setdefault("engines", {})[engine] = {"bare_pyodide_gzip": engine_bare, "gzip": budget.gzip, "requests": budget.requests,
                                                      "twice": len(whole.twice), "twice_files": whole.twice,
                                                      "whole_gzip": whole.gzip, "whole_requests": whole.requests}
    finally:
        server.close()
        if tmp:
            tmp.cleanup()
    if args.write:
        data["measured"] = {"date": datetime.date.today().isoformat(), "machine": machine(), "engine": "chromium",
                            "bare_pyodide_gzip": bare}   # the page kinds' figures; "engines": the demo's in the others
        bb.DATA.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {bb.DATA}")


if __name__ == "__main__":
    main()
