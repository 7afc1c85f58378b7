"""MkDocs hook · the byte budgets on the Performance page, from bench/budgets.json.

`<!-- lllm:byte-budget -->` in a page becomes a table: per page kind, its budget (gzip bytes),
the figures last measured (requests, gzip bytes, files sent twice, ratio to a bare Pyodide) and the
three biggest features, then the date and machine they were measured on. The same file is what
tests/browser/test_byte_budget_browser.py holds each page kind to (tests/support/byte_budget.py);
`python bench/byte_budget.py --write` measures the figures again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "budgets.json"
MARKER = "<!-- lllm:byte-budget -->"


def table(data: dict) -> str:
    sys.path.insert(0, str(ROOT / "tests"))
    from support.byte_budget import KINDS, by_feature   # one list of page kinds and features

    measured = data.get("measured", {})
    bare = measured.get("bare_pyodide_gzip") or 0
    rows = ["| page kind | page | budget, MB gzip | measured, MB gzip | requests | whole visit, MB gzip (requests) | sent twice | × bare Pyodide | biggest parts |",
            "|---|---|---|---|---|---|---|---|---|"]
    for kind, page in data["pages"].items():
        parts = ", ".join(f"{name} {b / 1e6:.2f}" for name, (_, b) in list(by_feature(page.get("files", {})).items())[:3])
        whole = f"{page['whole_gzip'] / 1e6:.2f} ({page['whole_requests']})" if page.get("whole_gzip") else "–"
        ratio = f"{page['gzip'] / bare:.2f}×" if bare and page.get("gzip") else "–"
        rows.append(f"| {KINDS.get(kind, {}).get('title', kind)} | [/{page['path']}]({page['path'].rstrip('/')}.md) | {page['budget_gzip'] / 1e6:.2f} "
                    f"| {page.get('gzip', 0) / 1e6:.2f} | {page.get('requests', '–')} | {whole} | {page.get('twice', '–')} | {ratio} | {parts} |")
    rows.append("")
    rows.append(f"Measured {measured.get('date', '?')} in {measured.get('engine', '?')} on {measured.get('machine', '?')}; "
                f"a bare Pyodide: {bare / 1e6:.2f} MB gzip.")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **kwargs) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, table(json.loads(DATA.read_text(encoding="utf-8"))))
