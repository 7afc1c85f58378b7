"""The built site in real Chromium, served by hooks/serve.py and by `wrangler pages dev`.

Every page: zero console errors, zero requests to another origin, every diagram in the page as an
SVG (drawn at build time) and no Mermaid fetched; search finds a known word; instant navigation
works; heavy files (Pyodide, onnxruntime) are fetched only by the pages that need them; under wrangler the CSP header is present and a
missing path answers 404.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

MERMAID_FILES = re.compile(r"mermaid", re.I)   # any file of Mermaid's: diagrams are drawn at build time
RUNTIME_FILES = re.compile(r"/vendor/pyodide/|/vendor/ort/|\.whl$|\.onnx$|pyodide|ort-wasm")
LIVE_CODE = re.compile(r'class="[^"]*\b(lllm-playground|lllm-inside|lllm-demo|lllm-oversight|runnable)\b')


def site_pages(site_dir: Path) -> list[tuple[str, Path, int]]:
    """(URL path, HTML file, expected status) for every page of the built site ('' is home),
    plus a missing path, which must answer 404 with the site's 404.html."""
    pages = []
    for index in sorted(site_dir.rglob("index.html")):
        rel = index.parent.relative_to(site_dir).as_posix()
        pages.append(("" if rel == "." else rel + "/", index, 200))
    return pages + [("no/such/page/", site_dir / "404.html", 404)]


def mermaid_blocks(html: str) -> int:
    """The diagrams in a built page: each drawn at build time to an SVG in a `div.mermaid` (hooks/diagrams.py)."""
    return len(re.findall(r'<div class="mermaid lllm-mermaid"><svg ', html))


def wait_for_diagrams(page, expected: int) -> None:
    """Every diagram is in the HTML as an SVG: nothing to wait for but the page itself. No Mermaid
    block may be left for Material to draw (it would fetch Mermaid from a CDN)."""
    page.wait_for_function(
        "n => document.querySelectorAll('div.mermaid > svg').length >= n && !document.querySelector('pre.mermaid')",
        arg=expected, timeout=90_000)


def sweep(page, server) -> dict[str, tuple[Path, list[str]]]:
    """Visit every page; returns {path: (html file, requested urls)}. Fails on the first dirty page."""
    fetched = {}
    for path, html_file, status in site_pages(server.dir):
        page.reset()
        response = page.page.goto(server.url + path, wait_until="load")
        assert response.status == status, f"/{path}: HTTP {response.status}, expected {status}"
        blocks = mermaid_blocks(html_file.read_text(encoding="utf-8"))
        wait_for_diagrams(page.page, blocks)
        rendered = page.page.evaluate("document.querySelectorAll('div.mermaid > svg').length")
        assert rendered == blocks, f"/{path}: {rendered} diagrams rendered, {blocks} in the HTML"
        # the playground in view starts its model's download (load on intent, ~15 MB): let it finish
        page.page.wait_for_load_state("networkidle", timeout=180_000)
        page.assert_clean(f"/{path}", expected_404=server.url + path if status == 404 else None)
        fetched[path] = (html_file, list(page.requests))
    return fetched


@pytest.fixture(scope="module")
def local_sweep(browser, site_server):
    """One sweep over the loopback server, shared by the checks below."""
    from conftest import origin, watch

    context = browser.new_context(service_workers="block")
    try:
        yield sweep(watch(context, {origin(site_server.url)}), site_server)
    finally:
        context.close()


def test_every_page_is_clean_and_renders_its_diagrams(local_sweep, site_server):
    assert len(local_sweep) >= 8
    assert "architecture/" in local_sweep


def test_no_page_fetches_mermaid(local_sweep, site_server):
    """Diagrams are drawn at build time: a page with diagrams fetches no more than one without."""
    with_diagrams = [path for path, (html_file, _) in local_sweep.items()
                     if mermaid_blocks(html_file.read_text(encoding="utf-8"))]
    assert len(with_diagrams) >= 20, f"only {with_diagrams} have diagrams: is the sweep seeing them?"
    for path, (_, urls) in local_sweep.items():
        mermaid = [u for u in urls if MERMAID_FILES.search(u)]
        assert not mermaid, f"/{path} fetched {mermaid}"


def test_pages_without_live_code_fetch_no_runtime(local_sweep, site_server):
    for path, (html_file, urls) in local_sweep.items():
        if not LIVE_CODE.search(html_file.read_text(encoding="utf-8")):
            heavy = [u for u in urls if RUNTIME_FILES.search(u)]
            assert not heavy, f"/{path} has no live code but fetched {heavy}"


def test_missing_path_is_a_real_404(site_server):
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(site_server.url + "no/such/page/")
    assert err.value.code == 404
    assert "Page not found" in err.value.read().decode()


def test_search_finds_a_known_word(page, site_server):
    page.page.goto(site_server.url)
    page.page.locator("label.md-search__icon, .md-search__input").first.click()
    page.page.locator("input.md-search__input").press_sequentially("Mulberry32", delay=20)  # Material listens to key events
    results = page.page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=60_000)
    hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
    assert any("tinyllm/generation/" in href for href in hrefs), hrefs   # the page that explains it
    page.assert_clean()


def test_instant_navigation_keeps_the_page_and_renders_diagrams(page, site_server):
    page.page.goto(site_server.url + "roadmap/")
    page.page.wait_for_load_state("networkidle")
    page.page.evaluate("window.__lllm_no_reload = 42")
    page.page.locator("nav.md-nav--primary a[href$='architecture/']").first.click()
    page.page.wait_for_url(re.compile(r"/architecture/$"))
    page.page.locator("h1", has_text="Architecture").wait_for()
    assert page.page.evaluate("window.__lllm_no_reload") == 42, "the click reloaded the page"
    blocks = mermaid_blocks((site_server.dir / "architecture" / "index.html").read_text(encoding="utf-8"))
    wait_for_diagrams(page.page, blocks)
    # diagrams.js set up its Enlarge buttons on the swapped-in page too (document$, not a reload)
    assert page.page.locator(".lllm-diagram__enlarge").count() == page.page.locator(".lllm-diagram").count() >= 5
    page.assert_clean()


# ---- the same site under Cloudflare's runtime (wrangler pages dev, offline) ------------------------------

def test_wrangler_serves_the_headers_and_a_404(wrangler_server):
    with urllib.request.urlopen(wrangler_server.url + "architecture/") as response:
        headers = {k.lower(): v for k, v in response.headers.items()}
    csp = headers.get("content-security-policy", "")
    assert "default-src 'self'" in csp and "'unsafe-eval'" not in csp
    assert headers.get("x-content-type-options") == "nosniff"
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(wrangler_server.url + "no/such/page/")
    assert err.value.code == 404
    assert "Page not found" in err.value.read().decode()


def test_wrangler_applies_redirects(wrangler_server):
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(wrangler_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("GET", "/arch")
    response = conn.getresponse()
    assert response.status in (301, 308) and response.getheader("Location").endswith("/architecture/")
    conn.close()


def test_every_page_works_under_wrangler_and_its_csp(page, wrangler_server):
    fetched = sweep(page, wrangler_server)
    assert len(fetched) >= 8


# ---- the architecture page's generated diagrams: legible, and Enlarge shows them at natural size ---------

NATURAL_WIDTH = """async (i) => {
  document.querySelectorAll('.lllm-diagram__enlarge')[i].click();
  const deadline = Date.now() + 60000;
  let svg = null;
  while (!svg && Date.now() < deadline) {
    await new Promise(r => setTimeout(r, 100));
    const canvas = document.querySelector('dialog.lllm-zoom[open] .lllm-zoom__canvas');
    svg = canvas && canvas.shadowRoot && canvas.shadowRoot.querySelector('svg');
  }
  if (!svg) return null;
  const box = svg.querySelector('.node rect, .node polygon');    // styled by the page's shared CSS, copied in
  const result = {natural: svg.viewBox.baseVal.width, shown: svg.getBoundingClientRect().width,
                  fill: box && getComputedStyle(box).fill};
  document.querySelector('dialog.lllm-zoom').close();
  return result;
}"""


def test_architecture_diagrams_are_legible_and_enlarge(page, site_server):
    """At a 1300 px wide window every generated diagram is drawn at >= 70% of its natural size (the
    widest one scrolls sideways instead of shrinking), and Enlarge opens it at 100%."""
    page.page.set_viewport_size({"width": 1300, "height": 900})
    page.page.goto(site_server.url + "architecture/")
    blocks = mermaid_blocks((site_server.dir / "architecture" / "index.html").read_text(encoding="utf-8"))
    wait_for_diagrams(page.page, blocks)
    frames = page.page.locator(".lllm-diagram")
    assert frames.count() >= 5
    assert page.page.locator(".lllm-diagram__enlarge").count() == frames.count()
    for i in range(frames.count()):
        size = page.page.evaluate(NATURAL_WIDTH, i)
        assert size, f"diagram {i}: Enlarge drew nothing"
        assert abs(size["shown"] - size["natural"]) < 2, f"diagram {i}: Enlarge shows {size}"
        assert size["fill"] not in (None, "rgb(0, 0, 0)"), f"diagram {i}: Enlarge lost the diagram's CSS: {size}"
        host = frames.nth(i).locator("div.mermaid").bounding_box()["width"]
        scale = min(1.0, host / size["natural"])
        assert scale >= 0.7, f"diagram {i} is drawn at {scale:.0%} of its natural size: text too small"
    assert not page.page.evaluate("() => document.querySelector('dialog.lllm-zoom') !== null"), "dialog not closed"
    page.page.keyboard.press("Escape")
    page.assert_clean()
