"""Diagrams cost nothing until seen and move nothing when drawn (hooks/diagrams.py, mermaid-stub.js).

At a phone's viewport (390x844) each page is scrolled through to the bottom until every diagram is
drawn. The layout shifts the page recorded (a buffered PerformanceObserver, as Lighthouse's own
layout-shift audit cannot run on this Chromium) must add up to at most 0.1, and no ELK chunk may
be fetched unless a diagram on the page asks for the ELK layout.
"""

from __future__ import annotations

import re

import pytest

from hooks import diagrams

pytestmark = pytest.mark.browser

PAGES = ["", "course/", "tinyllm/generation/", "native/tactic/", "agents/react/"]
PHONE = {"width": 390, "height": 844}
MOST_SHIFT = 0.1
ASKS_FOR_ELK = re.compile(r"flowchart-elk|[\"']?layout[\"']?\s*:\s*[\"']?elk")

SHIFT_PROBE = """
window.__lllm_shift = 0;
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__lllm_shift += entry.value;
}).observe({type: 'layout-shift', buffered: true});
"""

SCROLL_THROUGH = """async () => {
  const pause = () => new Promise(resolve => setTimeout(resolve, 150));
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
    window.scrollTo(0, y);
    await pause();
  }
}"""


@pytest.fixture(scope="module")
def phone_visits(browser, site_server):
    """{path: (layout shift, requested urls, diagram texts)} for each page in PAGES."""
    from conftest import origin, watch

    context = browser.new_context(viewport=PHONE, service_workers="block")
    context.add_init_script(SHIFT_PROBE)
    page = watch(context, {origin(site_server.url)})
    visits = {}
    try:
        for path in PAGES:
            page.reset()
            page.page.goto(site_server.url + path, wait_until="load")
            page.page.evaluate(SCROLL_THROUGH)
            page.page.wait_for_function("() => !document.querySelector('pre.mermaid')", timeout=90_000)
            page.assert_clean(f"/{path}")
            shift = page.page.evaluate("() => window.__lllm_shift")
            html = (site_server.dir / path / "index.html").read_text(encoding="utf-8")
            visits[path] = (shift, list(page.requests), diagrams.texts(html))
    finally:
        context.close()
    return visits


def test_every_page_has_diagrams_to_draw(phone_visits):
    for path, (_, urls, texts) in phone_visits.items():
        assert texts, f"/{path} has no diagram: pick a page that has one"
        assert any("/assets/vendor/mermaid/" in u for u in urls), f"/{path} drew its diagrams without Mermaid?"


def test_drawing_the_diagrams_moves_nothing(phone_visits):
    shifts = {path: round(shift, 3) for path, (shift, _, _) in phone_visits.items()}
    assert all(shift <= MOST_SHIFT for shift in shifts.values()), f"layout shift above {MOST_SHIFT}: {shifts}"


def test_no_elk_unless_a_diagram_asks_for_it(phone_visits):
    for path, (_, urls, texts) in phone_visits.items():
        elk = [u for u in urls if "elk" in u.rsplit("/", 1)[-1].lower()]
        if not any(ASKS_FOR_ELK.search(t) for t in texts):
            assert not elk, f"/{path}: no diagram asks for ELK, but the page fetched {elk}"


def test_every_diagram_in_the_site_has_its_size(site_server):
    """A diagram missing from hooks/diagram_sizes.json would shift the page when drawn."""
    table = diagrams.load_table()
    missing = sorted({f"{page.parent.relative_to(site_server.dir).as_posix()}/"
                      for page in site_server.dir.rglob("*.html")
                      for text in diagrams.texts(page.read_text(encoding="utf-8"))
                      if diagrams.key(text) not in table})
    assert not missing, f"diagrams without a size on {missing}: build the site, then run python -m hooks.diagrams --site public"
