"""Diagrams cost a reading page no script and move nothing (hooks/diagrams.py draws them at build time).

At a phone's viewport (390x844) each page is scrolled through to the bottom. The layout shifts the page
recorded (a buffered PerformanceObserver, as Lighthouse's own layout-shift audit cannot run on this
Chromium) must add up to at most 0.05, and no file of Mermaid's may be fetched. At a desktop's width the
diagrams' labels are drawn at a legible size, and in both colour schemes (switched with Material's own
toggle) every label contrasts with the box behind it by at least 4.5:1.
"""

from __future__ import annotations

import pytest

from test_site_browser import mermaid_blocks

pytestmark = pytest.mark.browser

PAGES = ["", "course/", "tinyllm/generation/", "native/tactic/", "agents/react/"]
# the layout-shift check also covers the playground, whose widget is drawn near the top after the first paint
SHIFT_PAGES = PAGES + ["playground/"]
# and the one with coloured boxes (hooks/architecture.py's status classes); its wide diagrams have a
# legibility test of their own (test_site_browser.py: drawn at >= 70% of their natural size)
CONTRAST_PAGES = PAGES + ["architecture/"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1300, "height": 900}
MOST_SHIFT = 0.05
LEAST_LABEL_PX = 11         # a label's text as drawn, in CSS px (Mermaid draws it at 16 px, then the SVG scales)
LEAST_CONTRAST = 4.5        # WCAG AA for text

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

# Each label of each diagram: its text's size as drawn, and its contrast with what is behind it (the
# box's fill, which may be translucent, over the page's background).
LABELS = """() => {
  const rgba = s => { const v = s.match(/[\\d.]+/g).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lum = c => c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
                    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const page = rgba(getComputedStyle(document.body).backgroundColor);
  const out = [];
  document.querySelectorAll('.lllm-mermaid > svg').forEach((svg, n) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    svg.querySelectorAll('.node').forEach(node => {
      // the text's own element (Mermaid wraps it in a <p>): its colour is what the reader sees
      const label = node.querySelector('.nodeLabel p') || node.querySelector('.nodeLabel');
      const shape = node.querySelector('rect, polygon, path, circle');
      if (!label || !label.textContent.trim() || !shape) return;
      const style = getComputedStyle(shape), fill = rgba(style.fill);
      const box = over([fill[0], fill[1], fill[2], fill[3] * Number(style.fillOpacity)], page);
      const text = over(rgba(getComputedStyle(label).color), box);
      out.push({diagram: n, text: label.textContent.trim().slice(0, 30), contrast: ratio(text, box),
                px: parseFloat(getComputedStyle(label).fontSize) * scale});
    });
    svg.querySelectorAll('span.edgeLabel').forEach(outer => {
      const label = outer.querySelector('p') || outer;
      if (!label.textContent.trim()) return;
      const box = over(rgba(getComputedStyle(label).backgroundColor), over(rgba(getComputedStyle(outer).backgroundColor), page));
      const text = over(rgba(getComputedStyle(label).color), box);
      out.push({diagram: n, text: label.textContent.trim().slice(0, 30), contrast: ratio(text, box),
                px: parseFloat(getComputedStyle(label).fontSize) * scale});
    });
  });
  return out;
}"""


@pytest.fixture(scope="module")
def phone_visits(browser, site_server):
    """{path: (layout shift, requested urls, diagrams in the HTML)} for each page in SHIFT_PAGES."""
    from conftest import origin, watch

    context = browser.new_context(viewport=PHONE, service_workers="block")
    context.add_init_script(SHIFT_PROBE)
    page = watch(context, {origin(site_server.url)})
    visits = {}
    try:
        for path in SHIFT_PAGES:
            page.reset()
            page.page.goto(site_server.url + path, wait_until="load")
            page.page.evaluate(SCROLL_THROUGH)
            page.assert_clean(f"/{path}")
            shift = page.page.evaluate("() => window.__lllm_shift")
            html = (site_server.dir / path / "index.html").read_text(encoding="utf-8")
            visits[path] = (shift, list(page.requests), mermaid_blocks(html))
    finally:
        context.close()
    return visits


def test_every_page_has_diagrams_and_fetches_no_mermaid(phone_visits):
    for path, (_, urls, drawn) in phone_visits.items():
        assert drawn, f"/{path} has no drawn diagram: pick a page that has one"
        mermaid = [u for u in urls if "mermaid" in u.lower()]
        assert not mermaid, f"/{path} fetched {mermaid}: its diagrams are drawn at build time"


def test_the_diagrams_move_nothing(phone_visits):
    shifts = {path: round(shift, 3) for path, (shift, _, _) in phone_visits.items()}
    assert all(shift <= MOST_SHIFT for shift in shifts.values()), f"layout shift above {MOST_SHIFT}: {shifts}"


def test_labels_are_legible_and_contrast_in_both_schemes(browser, site_server):
    context = browser.new_context(viewport=DESKTOP, service_workers="block", color_scheme="light")
    page = context.new_page()
    try:
        for path in CONTRAST_PAGES:
            page.goto(site_server.url + path)
            assert page.evaluate("() => document.body.dataset.mdColorScheme") == "default"
            for scheme in ("default", "slate"):
                labels = page.evaluate(LABELS)
                assert len(labels) >= 3, f"/{path}: no labels found in its diagrams"
                dim = [lab for lab in labels if lab["contrast"] < LEAST_CONTRAST]
                assert not dim, f"/{path} ({scheme}): labels below {LEAST_CONTRAST}:1: {dim[:5]}"
                small = [lab for lab in labels if lab["px"] < LEAST_LABEL_PX and path in PAGES]
                assert not small, f"/{path}: labels drawn below {LEAST_LABEL_PX} px: {small[:5]}"
                if scheme == "default":   # Material's own toggle, as a reader switches
                    page.locator('label[title="Switch to dark mode"]').click()
                    page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'")
            page.locator('label[title="Switch to light mode"]').click()
            page.wait_for_function("() => document.body.dataset.mdColorScheme === 'default'")
    finally:
        context.close()
