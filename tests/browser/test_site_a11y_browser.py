"""Accessibility in real Chromium: axe-core (npm, WCAG 2 A and AA rules) finds no serious or
critical violation on any page, in the light and the dark palette; every widget works at 390 px
wide without scrolling sideways; the widgets' controls have labels and are reached by Tab.

Fixes live in site/assets/stylesheets/a11y.css and site/assets/javascripts/a11y.js (Material's
bundle is never patched). One visit per page checks both palettes (the reader's toggle).
"""

from __future__ import annotations

import pytest

from conftest import origin, watch
from support.axe import AXE, add_axe, serious_violations
from test_site_browser import mermaid_blocks, site_pages, wait_for_diagrams

pytestmark = pytest.mark.browser
SETTLED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"   # a11y.js has run
WIDGETS = ".lllm-playground, .lllm-demo, .lllm-oversight, .lllm-timetravel, .lllm-reasoning-lab, div.runnable.highlight, .lllm-quiz"


def visit(page, server, path, html_file):
    page.goto(server.url + path, wait_until="load")
    wait_for_diagrams(page, mermaid_blocks(html_file.read_text(encoding="utf-8")))
    page.wait_for_load_state("networkidle")
    page.evaluate(SETTLED)


def switch_palette(page) -> str:
    """Click the header's palette toggle, as a reader does; returns the scheme now shown."""
    scheme = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    page.locator(f"label[title='Switch to {'light' if scheme == 'slate' else 'dark'} mode']").click()
    page.wait_for_function("s => document.body.getAttribute('data-md-color-scheme') !== s", arg=scheme)
    page.evaluate(SETTLED)
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def test_axe_finds_nothing_serious_on_any_page_in_either_palette(browser, site_server):
    """Every page once, checked in the palette it opened in, then again after the reader switches
    palettes with the header's toggle (the choice carries to the next page, so both are covered)."""
    assert AXE.is_file(), "run `make node` (npm ci installs axe-core)"
    context = browser.new_context(service_workers="block", color_scheme="light")
    watched = watch(context, {origin(site_server.url)})
    problems, seen = [], set()
    try:
        for path, html_file, status in site_pages(site_server.dir):
            visit(watched.page, site_server, path, html_file)
            for switch in (False, True):
                scheme = switch_palette(watched.page) if switch else \
                    watched.page.evaluate("document.body.getAttribute('data-md-color-scheme')")
                seen.add(scheme)
                problems += [f"/{path} ({scheme}): {v}" for v in serious_violations(watched.page)]
    finally:
        context.close()
    assert seen == {"default", "slate"}, seen
    assert not problems, "\n".join(problems)


def test_every_widget_fits_a_390px_screen_and_is_labelled(browser, site_server):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, reduced_motion="reduce")
    page = watch(context, {origin(site_server.url)}).page
    problems = []
    try:
        for path, html_file, status in site_pages(site_server.dir):
            if status != 200 or not any(w.strip(". ").split(".")[-1] in html_file.read_text(encoding="utf-8")
                                        for w in WIDGETS.split(",")):
                continue
            visit(page, site_server, path, html_file)
            report = page.evaluate("""(widgets) => {
                const wide = document.documentElement.scrollWidth > window.innerWidth + 1;
                const sticking = [...document.querySelectorAll(widgets)].filter(w => w.getBoundingClientRect().right > window.innerWidth + 1)
                  .map(w => w.className);
                const unlabelled = [...document.querySelectorAll(`:is(${widgets}) :is(input, select, textarea, button)`)]
                  .filter(c => !c.hidden && !(c.labels?.length || c.getAttribute('aria-label') || c.getAttribute('aria-labelledby') || c.title || c.textContent.trim()))
                  .map(c => c.outerHTML.slice(0, 80));
                const unreachable = [...document.querySelectorAll(`:is(${widgets}) :is(input, select, textarea, button)`)]
                  .filter(c => !c.hidden && !c.disabled && c.tabIndex < 0).map(c => c.outerHTML.slice(0, 80));
                return {wide, sticking, unlabelled, unreachable};
            }""", WIDGETS)
            if report["wide"]:
                problems.append(f"/{path}: the page scrolls sideways at 390 px")
            problems += [f"/{path}: wider than the screen: {c}" for c in report["sticking"]]
            problems += [f"/{path}: no label: {c}" for c in report["unlabelled"]]
            problems += [f"/{path}: not reachable by Tab: {c}" for c in report["unreachable"]]
    finally:
        context.close()
    assert not problems, "\n".join(problems)


def test_a_demo_runs_by_keyboard_alone(browser, site_server):
    """Tab to the ReAct demo's Run button and press Enter: the rule brain answers."""
    context = browser.new_context(service_workers="block")
    page = watch(context, {origin(site_server.url)}).page
    try:
        page.goto(site_server.url + "agents/react/")
        demo = page.locator('.lllm-demo[data-demo="react"]').first
        demo.locator("[name=goal]").focus()
        for _ in range(12):                       # goal, brain, (sampling hidden for rule), max steps, Run
            if page.evaluate("() => document.activeElement.classList.contains('lllm-demo__run')"):
                break
            page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.textContent") == "Run"
        page.keyboard.press("Enter")
        page.wait_for_function("el => el.dataset.state === 'done'", arg=demo.element_handle(), timeout=300_000)
        assert "Final answer: 391" in demo.text_content()
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_offline_footer_and_its_list_of_saved_pages_are_legible(browser, site_server, scheme):
    """The footer's "Pages saved on this device" (offline.mjs, with the service worker on) sits in
    Material's .md-typeset, where a <details> becomes a white admonition box: its white summary
    text was on near-white. axe's color-contrast rule checks every text node of the footer's status."""
    context = browser.new_context(color_scheme=scheme)        # service workers allowed: the list needs them
    watched = watch(context, {origin(site_server.url)})
    try:
        pg = watched.page
        summary = pg.locator(".lllm-offline__pages > summary")
        for path in ("", "design/", "deploying/", "roadmap/", "performance/", "design/"):   # until two are saved
            pg.goto(site_server.url + path, wait_until="load")
            try:
                summary.wait_for(timeout=15_000)
                break
            except Exception:   # noqa: BLE001 - not listed yet: the worker saves a page once it controls one
                continue
        assert summary.text_content() == "Pages saved on this device"
        summary.click()
        pg.locator(".lllm-offline__pages a").first.wait_for()
        add_axe(pg)
        result = pg.evaluate("""() => axe.run('.lllm-offline', {runOnly: {type: 'rule', values: ['color-contrast']}})
          .then(r => ({violations: r.violations.flatMap(v => v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)),
                       passed: r.passes.flatMap(v => v.nodes.map(n => n.target.join(' '))),
                       unsure: r.incomplete.flatMap(v => v.nodes.map(n => n.target.join(' ')))}))""")
        assert not result["violations"], result
        assert any("summary" in t for t in result["passed"]), result       # the summary was measured, not skipped
        assert not result["unsure"], result
    finally:
        context.close()
