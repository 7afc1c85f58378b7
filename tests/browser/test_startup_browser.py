"""Material's start, made cheaper (hooks/overrides/main.html, hooks/markup.py), in real Chromium:
<html> has Material's start-up classes before its script runs, the <head>'s URLs are absolute
before the first paint, the links in the body are left as the HTML wrote them, and instant
navigation still keeps the stylesheets it shares with the next page (it compares the two <head>s);
tables wrapped for scrolling at build time are not wrapped again."""

from __future__ import annotations

import pytest

from conftest import origin, watch

pytestmark = pytest.mark.browser


def test_materials_start_restyles_nothing_and_instant_navigation_keeps_the_stylesheets(browser, site_server):
    context = browser.new_context(service_workers="block")
    # what <html> and <head> look like at the first script after <head> (before Material's runs)
    context.add_init_script("""document.addEventListener("readystatechange", () => {
      if (document.readyState === "interactive" && !window.__early) window.__early = {
        classes: document.documentElement.className,
        head: [...document.head.querySelectorAll("link[href]")].map((l) => l.getAttribute("href")) };
    });""")
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    page.goto(site_server.url + "agents/react/")
    page.wait_for_function("() => window.lllmModules && document.querySelector('.md-sidebar')")
    early = page.evaluate("() => window.__early")
    assert {"js", "js-focus-visible"} <= set(early["classes"].split()) and "no-js" not in early["classes"], early
    relative = [h for h in early["head"] if not h.startswith(site_server.url)]
    assert not relative, f"relative URLs left in <head> for Material to rewrite: {relative}"
    body = page.evaluate("() => [...document.querySelectorAll('.md-content a[href]')].map((a) => a.getAttribute('href'))")
    assert any(h.startswith("../") for h in body), "Material rewrote the body's links (hooks/markup.py's patch is gone)"

    # instant navigation: the same stylesheet elements stay (a failed <head> comparison replaces them)
    page.evaluate("() => { window.__same = true; document.querySelectorAll('link[rel=stylesheet]').forEach((l) => { l.__kept = true; }); }")
    page.locator(".md-content a[href='../memory/']").first.click()
    page.wait_for_url("**/agents/memory/")
    page.wait_for_function("() => document.querySelector('h1')?.textContent.includes('emory')")
    kept = page.evaluate("() => [window.__same === true, [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => !!l.__kept)]")
    assert kept[0], "the click reloaded the page instead of Material's instant navigation"
    assert kept[1] and all(kept[1]), f"instant navigation replaced stylesheets it shares with the next page: {kept[1]}"
    watched.assert_clean()
    context.close()


def test_tables_wrapped_at_build_time_are_not_wrapped_again(page, site_server):
    page.page.goto(site_server.url + "tinyllm/generation/")
    page.page.wait_for_function("() => window.lllmModules && document.querySelector('.md-sidebar')")
    counts = page.page.evaluate("""() => [document.querySelectorAll('.md-content table:not([class])').length,
      document.querySelectorAll('.md-content .md-typeset__scrollwrap > .md-typeset__table > table:not([class])').length,
      document.querySelectorAll('.md-typeset__scrollwrap .md-typeset__scrollwrap').length]""")
    assert counts[0] >= 2 and counts[0] == counts[1] and counts[2] == 0, counts
    page.assert_clean()
