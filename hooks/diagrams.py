"""MkDocs hook: each Mermaid block gets its drawn diagram's size, so nothing moves when it is drawn.

Read site/assets/javascripts/mermaid-stub.js first: a diagram is drawn in the page when its block
comes near the viewport, and the drawn diagram replaces the block. A block of Mermaid text is
150-300 px tall and the diagram 500-1000 px, so everything below it used to jump (a layout shift
of 0.23 on /course/). Here each `<pre class="mermaid">` gets the diagram's width and height as an
aspect ratio (site/assets/stylesheets/diagrams.css), so the block already has the diagram's size.

The sizes come from Mermaid itself, drawn in Chromium with the page's own settings, and are kept in
hooks/diagram_sizes.json by the text's hash. After changing a diagram, build the site and run

    python -m hooks.diagrams --site public      # measures every diagram again, rewrites the table

A block whose text is not in the table is left as it is (it will shift); tests/browser/
test_diagram_layout.py fails until the table is brought up to date.

    >>> sized('<pre class="mermaid"><code>flowchart TD\\n  A --&gt; B</code></pre>', {key("flowchart TD\\n  A --> B"): [100, 50]})
    '<pre class="mermaid" style="--lllm-w: 100; --lllm-h: 50"><code>flowchart TD\\n  A --&gt; B</code></pre>'
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
from pathlib import Path

TABLE = Path(__file__).with_name("diagram_sizes.json")
BLOCK = re.compile(r'<pre class="mermaid"(?: style="[^"]*")?><code>(.*?)</code></pre>', re.S)


def key(text: str) -> str:
    """The table's key for a diagram: its text as the page's `pre.textContent` reads it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def texts(page_html: str) -> list[str]:
    return [html.unescape(m.group(1)) for m in BLOCK.finditer(page_html)]


def sized(page_html: str, sizes: dict[str, list[float]]) -> str:
    def one(m: re.Match) -> str:
        size = sizes.get(key(html.unescape(m.group(1))))
        if not size:
            return m.group(0)
        return f'<pre class="mermaid" style="--lllm-w: {size[0]:g}; --lllm-h: {size[1]:g}"><code>{m.group(1)}</code></pre>'
    return BLOCK.sub(one, page_html)


def load_table() -> dict[str, list[float]]:
    return json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.exists() else {}


def on_post_page(output: str, page, config) -> str:
    return sized(output, load_table()) if '<pre class="mermaid">' in output else output


# ---- measuring: Mermaid draws every diagram of a built site in Chromium ----------------------------

MEASURE = """async texts => {
  const sizes = {};
  for (const [i, text] of texts.entries()) {
    const { svg } = await window.mermaid.render('lllm-size-' + i, text);
    const box = svg.match(/viewBox="([^"]+)"/)[1].split(/\\s+/).map(Number);
    sizes[i] = [Math.round(box[2] * 10) / 10, Math.round(box[3] * 10) / 10];
  }
  return sizes;
}"""


def measure(site: Path, chromium: str = "/usr/bin/chromium") -> dict[str, list[float]]:
    """{key: [width, height]} for every diagram in the built site `site`, drawn by its own Mermaid."""
    from playwright.sync_api import sync_playwright

    from hooks.serve import serve_in_thread

    found = {key(t): t for page in sorted(site.rglob("*.html")) for t in texts(page.read_text(encoding="utf-8"))}
    server = serve_in_thread(site)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True,
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_context(service_workers="block").new_page()
            # a page with a diagram: Material has given window.mermaid its settings (fonts, CSS)
            page.goto(f"http://127.0.0.1:{server.server_port}/architecture/")
            keys = sorted(found)
            drawn = page.evaluate(MEASURE, [found[k] for k in keys])
            browser.close()
    finally:
        server.shutdown()
    return {k: drawn[str(i)] for i, k in enumerate(keys)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hooks.diagrams", description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="public", help="a built site (default: public)")
    args = parser.parse_args(argv)
    sizes = measure(Path(args.site))
    rows = [f'  "{k}": [{w:g}, {h:g}]' for k, (w, h) in sorted(sizes.items())]
    TABLE.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")
    print(f"{len(sizes)} diagrams measured -> {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
