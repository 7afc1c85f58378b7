"""A phone in real Chromium: every built page at 390 x 844 CSS px (touch, a mobile viewport) scrolls
no sideways and offers no target under 44 x 44 CSS px; disabled controls look disabled.

What counts as a target (WCAG 2.5.5 "Target Size", the 44 px level; 2.5.8's exceptions): every
visible link, button, input, select, text area, summary, ARIA button or tab, and Material's header
buttons (labels for its hidden toggles). A radio or checkbox is measured together with its labels,
which click it: its hit area is the box around both. A target counts as visible when it has a size,
is not hidden or transparent, and is not off the screen to the side (Material's closed drawers).

Exempt: a link inline in running text, as WCAG's "Inline" exception has it (its size is set by the
line height of the sentence around it): a link drawn inline whose nearest block holds words besides
the link's own. A link that is the whole of its paragraph, list item or table cell is a target.

The sweep is one browser context, the pages one after another (the site built once, shared with
every browser test through tests/conftest.py); the fixes are in site/assets/stylesheets/touch.css.
"""

from __future__ import annotations

import pytest

from conftest import origin, watch
from test_site_browser import mermaid_blocks, site_pages, wait_for_diagrams

pytestmark = pytest.mark.browser
WIDTH, MIN = 390, 44
LONG = 180_000          # ms: pages start their widgets late on a busy 2-core machine

TARGETS = """([W, MIN]) => {
  const SEL = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=tab], label[for]';
  const transparent = (el) => { for (let e = el; e; e = e.parentElement) if (getComputedStyle(e).opacity === '0') return true; return false; };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && r.left < W
      && getComputedStyle(el).visibility !== 'hidden' && !transparent(el);
  };
  const blockOf = (el) => { let e = el.parentElement; while (e && getComputedStyle(e).display.startsWith('inline')) e = e.parentElement; return e; };
  const inlineInText = (el) => {
    if (el.tagName !== 'A' || getComputedStyle(el).display !== 'inline') return false;
    const block = blockOf(el);
    return !!block && /[A-Za-z]{2,}/.test(block.textContent.replace(el.textContent, ''));
  };
  const hitArea = (el) => {
    const boxes = [el, ...(el.labels || [])].map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0);
    const left = Math.min(...boxes.map((r) => r.left)), right = Math.max(...boxes.map((r) => r.right));
    const top = Math.min(...boxes.map((r) => r.top)), bottom = Math.max(...boxes.map((r) => r.bottom));
    return [right - left, bottom - top];
  };
  const name = (el) => `<${el.tagName.toLowerCase()}${el.type ? ' type=' + el.type : ''}${el.className && typeof el.className === 'string' ? ' class="' + el.className + '"' : ''}> "${(el.textContent || el.value || el.getAttribute('aria-label') || el.title || '').trim().slice(0, 40)}"`;
  const small = [];
  let measured = 0;
  for (const el of document.querySelectorAll(SEL)) {
    if (el.tagName === 'LABEL' && el.control && visible(el.control)) continue;   // measured with its control
    if (!visible(el) || inlineInText(el)) continue;
    measured += 1;
    const [w, h] = hitArea(el);
    if (w < MIN - 0.5 || h < MIN - 0.5) small.push(`${name(el)} is ${w.toFixed(0)} x ${h.toFixed(0)} px`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, measured, small};
}"""


def open_page(pg, url: str, html_file) -> None:
    pg.goto(url, wait_until="load", timeout=LONG)
    wait_for_diagrams(pg, mermaid_blocks(html_file.read_text(encoding="utf-8")))
    pg.wait_for_load_state("networkidle", timeout=LONG)          # the widgets' modules and data are in
    pg.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def test_no_page_scrolls_sideways_or_has_a_target_under_44px_at_390px(browser, site_server):
    context = browser.new_context(service_workers="block", viewport={"width": WIDTH, "height": 844},
                                  is_mobile=True, has_touch=True, reduced_motion="reduce")
    context.set_default_timeout(LONG)
    pg = watch(context, {origin(site_server.url)}).page
    wide, small, pages, measured = [], [], 0, 0
    try:
        for path, html_file, _status in site_pages(site_server.dir):
            open_page(pg, site_server.url + path, html_file)
            report = pg.evaluate(TARGETS, [WIDTH, MIN])
            pages += 1
            measured += report["measured"]
            if report["scrollWidth"] > WIDTH:
                wide.append(f"/{path}: scrolls sideways ({report['scrollWidth']} px wide at {WIDTH} px)")
            small += [f"/{path}: {s}" for s in report["small"]]
    finally:
        context.close()
    assert pages > 40 and measured > 20 * pages, (pages, measured)   # the sweep saw the site, not empty pages
    problems = wide + small
    assert not problems, (f"at {WIDTH} px, {len(wide)} pages scroll sideways and {len(small)} targets are under {MIN} px:\n"
                          + "\n".join(problems[:200]))


# ---- disabled controls ---------------------------------------------------------------------------------

LOOK = """(b) => {
  const s = getComputedStyle(b);
  let bg = 'rgba(0, 0, 0, 0)';
  for (let e = b.parentElement; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') { bg = c; break; }
  }
  return {cursor: s.cursor, color: s.color, background: s.backgroundColor, border: s.borderTopStyle + ' ' + s.borderTopColor,
          borderColor: s.borderTopColor, page: bg};
}"""


def rgba(css: str) -> tuple[float, float, float, float]:
    parts = [float(x) for x in css[css.index("(") + 1:css.index(")")].replace("/", ",").split(",")]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast of a colour (its alpha laid over the page's colour) against the page's colour."""
    r, g, b, a = rgba(fg)
    base = rgba(bg)[:3]
    laid = [a * c + (1 - a) * p for c, p in zip((r, g, b), base)]

    def luminance(rgb):
        lin = [(c / 255) / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(laid), luminance(base)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_disabled_buttons_look_and_point_disabled(browser, site_server, scheme):
    """The training tab opens with Pause, Stop and "Write with your model" disabled (nothing to pause,
    no model yet). Each is measured as the page leaves it, hovered, and then enabled as the tab enables
    it when training starts: the pointer says not-allowed only when disabled, the look (text, fill,
    outline) differs, and the disabled text and outline keep >= 3:1 against the page behind them."""
    context = browser.new_context(service_workers="block", color_scheme=scheme, reduced_motion="reduce")   # no transitions mid-measure
    context.set_default_timeout(LONG)
    pg = watch(context, {origin(site_server.url)}).page
    try:
        pg.goto(site_server.url + "tinyllm/train/", wait_until="load")
        pg.wait_for_function("() => document.querySelector('.lllm-train[data-state=idle]')")
        if scheme == "dark" and pg.evaluate("document.body.getAttribute('data-md-color-scheme')") != "slate":
            pg.locator("label[title='Switch to dark mode']").click()
            pg.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
        for name in ("Pause", "Stop", "Write with your model"):
            button = pg.locator(".lllm-train button", has_text=name).first
            assert button.is_disabled(), f"{name} should open disabled"
            off = button.evaluate(LOOK)
            button.hover(force=True)
            hovered = button.evaluate(LOOK)
            pg.mouse.move(0, 0)
            button.evaluate("b => { b.disabled = false; }")
            on = button.evaluate(LOOK)
            button.evaluate("b => { b.disabled = true; }")
            where = f"{name} ({scheme})"
            assert off["cursor"] == "not-allowed" and on["cursor"] != "not-allowed", (where, off, on)
            assert (off["color"], off["background"], off["border"]) != (on["color"], on["background"], on["border"]), (where, off, on)
            assert hovered == off, f"{where}: hovering a disabled button changed its look: {off} -> {hovered}"
            assert contrast(off["color"], off["page"]) >= 3, (where, off)
            assert contrast(off["borderColor"], off["page"]) >= 3, (where, off)
    finally:
        context.close()


# ---- the Course page: the units first, and the marks explained --------------------------------------------

COURSE = """() => {
  const top = (el) => el.getBoundingClientRect().top + scrollY;
  const unit1 = document.querySelector("h3[id^='unit-']");
  const diagrams = [...document.querySelectorAll('.md-content div.mermaid')].map(top);
  const legend = document.querySelector('.md-content [data-course-legend]');
  const shown = (el) => !!el && el.getBoundingClientRect().height > 0 && getComputedStyle(el).visibility !== 'hidden';
  return {unit1: unit1 && top(unit1), unit1Text: unit1 && unit1.textContent, diagrams,
          legend: shown(legend) ? legend.textContent : null, legendTop: legend && top(legend)};
}"""


def test_the_course_page_opens_on_its_units_with_the_marks_explained(browser, site_server):
    """On a phone (390 x 844) Unit 1's heading is on the first screen and a half, above any diagram,
    with a visible legend of the marks above it; the navigation's list ends with the same legend once
    course.mjs has drawn its marks (a wide screen, where the navigation is a sidebar)."""
    phone = browser.new_context(service_workers="block", viewport={"width": WIDTH, "height": 844},
                                is_mobile=True, has_touch=True)
    phone.set_default_timeout(LONG)
    try:
        pg = watch(phone, {origin(site_server.url)}).page
        html = site_server.dir / "course" / "index.html"
        open_page(pg, site_server.url + "course/", html)
        got = pg.evaluate(COURSE)
        assert got["unit1Text"] and got["unit1Text"].startswith("Unit 1 ·"), got
        assert got["unit1"] < 1.5 * 844, f"Unit 1 starts {got['unit1']:.0f} px down, below the first screen and a half"
        assert got["diagrams"] and all(d > got["unit1"] for d in got["diagrams"]), f"a diagram comes before Unit 1: {got}"
        legend = got["legend"]
        assert legend is not None and got["legendTop"] < got["unit1"], f"no visible legend above Unit 1: {got}"
        for mark, words in (("✓", "done"), ("◐", "started"), ("○", "not started")):
            assert f"{mark} " in legend and words in legend, (mark, legend)
    finally:
        phone.close()
    wide = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 900})
    wide.set_default_timeout(LONG)
    try:
        pg = watch(wide, {origin(site_server.url)}).page
        pg.goto(site_server.url + "tinyllm/", wait_until="load")
        nav = pg.locator(".md-nav--primary [data-course-legend='nav']").first
        nav.wait_for(state="visible")
        text = nav.text_content()
        assert all(m in text for m in ("✓", "◐", "○")) and "not started" in text, text
        assert pg.locator(".md-nav--primary .lllm-course-mark").count() > 0      # the marks it explains are there
    finally:
        wide.close()


# ---- TinyGPT's attention tables open on the weights that matter ------------------------------------------

SHARES = """() => [...document.querySelectorAll('.lllm-inside-gpt .lllm-inside__tablewrap')].map((wrap) => {
  const box = wrap.getBoundingClientRect();
  const rows = [...wrap.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')]);
  const weight = (inside) => rows.reduce((sum, row) => sum + row.reduce((s, td) => s + (inside(td) ? Number(td.dataset.value) : 0), 0), 0);
  const shown = (td) => { const r = td.getBoundingClientRect(); return r.left >= box.left - 0.5 && r.right <= box.right + 0.5; };
  const total = weight(() => true);
  const scrolled = wrap.scrollLeft, shownNow = weight(shown);
  wrap.scrollLeft = 0;
  const shownAtStart = weight(shown);
  wrap.scrollLeft = scrolled;
  return {overflows: wrap.scrollWidth > wrap.clientWidth, scrolled, columns: rows[0].length,
          now: shownNow / total, atStart: shownAtStart / total};
})"""


def test_tinygpts_attention_tables_open_on_the_weights_that_matter(browser, site_server):
    """At 390 px a heads table (up to 64 characters wide) is wider than the screen. Each opens scrolled
    on the window of columns that holds the most attention. About 8 of its up to 64 columns fit, so the
    floor is a fifth of all the weight, and more than twice what the oldest characters (the left end,
    where it used to open, on rows of 0.00: 0.1 % to 4 % of the weight) show."""
    context = browser.new_context(service_workers="block", viewport={"width": WIDTH, "height": 844},
                                  is_mobile=True, has_touch=True)
    context.set_default_timeout(LONG)
    try:
        pg = watch(context, {origin(site_server.url)}).page
        pg.goto(site_server.url + "tinyllm/inside/", wait_until="load")
        pg.locator(".lllm-inside__switch select").select_option("tinygpt")        # as a reader picks it
        pg.wait_for_function("() => ['ready', 'error'].includes(document.querySelector('.lllm-inside-gpt')?.dataset.state)",
                             timeout=600_000)
        assert pg.evaluate("document.querySelector('.lllm-inside-gpt').dataset.state") == "ready"
        tables = pg.evaluate(SHARES)
        assert tables and all(t["overflows"] for t in tables), tables              # the case this is about
        for layer, t in enumerate(tables):
            assert t["now"] >= 0.2 and t["now"] > 2 * t["atStart"], f"layer {layer}: {t}"
    finally:
        context.close()
