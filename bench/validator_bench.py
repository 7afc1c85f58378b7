"""Benchmark: what the Nu HTML Checker (vnu, npm `vnu-jar`, pinned in package.json) reports on the built site.

Not a test: it lists what the validator still says about every page, grouped by message, with where
the markup comes from, so the performance page can say which reports are ours and which belong to
the theme or a library (tests/site/test_site_markup.py keeps our own markup clean).

    python bench/validator_bench.py [--site public] [--out bench/results/validator.md]

Without `--site` the site is built into a temporary folder first. vnu needs Java (`java` on PATH;
`make bench` installs Debian's default-jre-headless when it is missing).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from conftest import build_site, free_port  # noqa: E402

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"

# (pattern in the message or its extract, where that markup comes from). First match wins.
SOURCES = [
    (r"__codelineno-", "pymdownx.highlight: the line anchors of code blocks (`anchor_linenums`)"),
    (r"[Ll]abel\"><p>|labelBkg|foreignObject", "Mermaid: the HTML labels (a `p` in a `span`) inside the build-time SVGs"),
    (r"<hr />|<img [^>]*/>|<br />", "Python-Markdown: it writes void elements XHTML-style (`<hr />`)"),
    (r"md-nav__link|md-toggle|md-search|data-md-", "Material for MkDocs: the theme's own templates"),
    (r"<!-- ", "ours: an HTML comment in a page's Markdown"),
]


def source_of(message: dict) -> str:
    text = message.get("message", "") + " " + message.get("extract", "")
    for pattern, source in SOURCES:
        if re.search(pattern, text):
            return source
    return "ours (not attributed to the theme or a library): fix it"


def validate(site: Path) -> list[dict]:
    """vnu's messages for every HTML file under `site` (JSON on stderr, as vnu writes it)."""
    done = subprocess.run(["java", "-jar", str(VNU), "--format", "json", "--skip-non-html", str(site)],
                          capture_output=True, text=True)
    return json.loads(done.stderr or '{"messages": []}')["messages"]


def table(messages: list[dict], site: Path) -> list[str]:
    groups: dict[tuple, dict] = defaultdict(lambda: {"count": 0, "pages": set()})
    for m in messages:
        kind = m["type"] + (f" ({m['subType']})" if m.get("subType") else "")
        key = (kind, re.sub(r"\s+", " ", m["message"]).strip(), source_of(m))
        groups[key]["count"] += 1
        groups[key]["pages"].add(m.get("url", "").split(site.name + "/", 1)[-1])
    lines = ["| kind | message | times | pages | where it comes from |", "|---|---|---|---|---|"]
    for (kind, message, source), g in sorted(groups.items(), key=lambda kv: (kv[0][0] != "error", -kv[1]["count"])):
        shown = message.replace("|", "\\|")
        lines.append(f"| {kind} | {shown[:160]}{'…' if len(shown) > 160 else ''} | {g['count']:,} | {len(g['pages'])} | {source} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one into a temporary folder)")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown, dated) to this file")
    args = parser.parse_args()
    if not VNU.is_file():
        print("error: node_modules/vnu-jar is missing: run `make node`", file=sys.stderr)
        return 2
    if shutil.which("java") is None:
        print("error: vnu needs Java: install default-jre-headless (Debian) or run `make bench`", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_site(Path(tmp) / "public", free_port())
        if not (site / "index.html").is_file():
            print(f"error: {site} has no index.html: build the site first (`make site`)", file=sys.stderr)
            return 2
        messages = validate(site)
        lines = table(messages, site)
        pages = len(list(site.rglob("*.html")))
    version = subprocess.run(["java", "-jar", str(VNU), "--version"], capture_output=True, text=True).stdout.strip()
    note = (f"Measured {datetime.date.today().isoformat()} by `make bench` (bench/validator_bench.py): the Nu HTML "
            f"Checker {version} over the {pages} HTML files of the built site; {len(messages):,} messages.")
    print("\n".join(lines), note, sep="\n")
    if args.out:
        args.out.write_text("\n".join(lines) + f"\n\n{note}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
