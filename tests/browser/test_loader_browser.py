"""The page's one module (site/assets/runtime/loader.mjs) and the build-time copy buttons
(hooks/codeblocks.py) in real Chromium: a reading page imports no widget module; a page with
widgets imports exactly theirs, also when reached by Material's instant navigation, and the widget
is set up; as a reader gets it (no EAGER, a phone's screen), a widget's module is imported only
when the widget comes near the viewport, by scrolling or by a link to it; a copy button puts its
block's code on the clipboard; Material's start leaves every code block as the HTML wrote it (no
layout work per block)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import origin, watch

pytestmark = pytest.mark.browser
WIDGET_MODULES = ("quiz/quiz.mjs", "runtime/cells.mjs", "runtime/intent.mjs", "runtime/playground.mjs",
                  "inside/inside.mjs", "train/train.mjs", "agents/demos.mjs", "agents/oversight.mjs",
                  "agents/timetravel.mjs")


def modules(watched) -> set[str]:
    """The widget modules the page requested (by their path under assets/)."""
    return {m for m in WIDGET_MODULES if any(u.split("?")[0].endswith("/assets/" + m) for u in watched.requests)}


def test_a_page_imports_only_its_widgets_modules_also_after_instant_navigation(browser, site_server):
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    page.goto(site_server.url + "design/")
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => window.lllmModules && window.lllm")
    assert modules(watched) == set(), "a page without widgets imported widget modules"
    assert any(u.endswith("/assets/course/course.mjs") for u in watched.requests), "the course marks did not load"

    # Material's instant navigation: a click swaps the page without a reload; the ReAct page's demo,
    # time travel and quiz must be set up by modules imported only now.
    page.evaluate("() => { window.__sameDocument = true; }")   # a reload would forget it
    page.evaluate("(url) => { const a = document.createElement('a'); a.href = url; a.textContent = 'go';"
                  " document.querySelector('.md-content__inner').append(a); a.click(); }",
                  site_server.url + "agents/react/")
    page.wait_for_url("**/agents/react/")
    assert page.evaluate("() => window.__sameDocument") is True, "the navigation reloaded the page"
    expect(page.locator(".lllm-demo").first).to_have_attribute("data-state", "idle", timeout=30_000)
    expect(page.locator(".lllm-timetravel").first).to_have_attribute("data-state", "idle", timeout=30_000)
    expect(page.locator(".lllm-quiz[data-quiz-ready]").first).to_be_attached(timeout=30_000)
    needed = {m for m in WIDGET_MODULES
              if any(f.endswith(m) for f in page.evaluate("() => window.lllmModules.needed()"))}
    assert {"agents/demos.mjs", "agents/timetravel.mjs", "quiz/quiz.mjs", "runtime/intent.mjs"} <= needed, needed
    assert modules(watched) == needed
    assert {"runtime/playground.mjs", "train/train.mjs", "inside/inside.mjs"}.isdisjoint(modules(watched))
    watched.assert_clean("loader")
    context.close()


def test_a_widget_module_is_imported_when_its_widget_comes_near(lazy_browser, site_server):
    context = lazy_browser.new_context(service_workers="block", viewport={"width": 412, "height": 823}, is_mobile=True)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    page.goto(site_server.url + "agents/react/")
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => window.lllmModules && window.lllm")
    assert page.evaluate("() => window.lllmEager") is None
    assert modules(watched) == {"runtime/intent.mjs"}, "widgets screens below the opening were drawn at once"
    assert page.evaluate("() => document.querySelector('.lllm-demo').dataset.state") is None

    # Scrolled to within a screen of the demo: its module only, and the demo drawn.
    page.evaluate("() => window.scrollTo(0, document.querySelector('.lllm-demo').offsetTop - 1.5 * innerHeight)")
    expect(page.locator(".lllm-demo").first).to_have_attribute("data-state", "idle", timeout=30_000)
    assert "agents/demos.mjs" in modules(watched) and "quiz/quiz.mjs" not in modules(watched)

    # A jump to the page's end (instant, as a link to its end jumps; the End key animates the scroll in
    # Chromium, and a long page's animation can pass the widget by): the quiz and the cells beside it
    # drawn, the time travel jumped over not.
    page.evaluate("() => window.scrollTo({top: document.documentElement.scrollHeight, behavior: 'instant'})")
    expect(page.locator(".lllm-quiz[data-quiz-ready]").first).to_be_attached(timeout=30_000)
    assert modules(watched) == {"runtime/intent.mjs", "agents/demos.mjs", "quiz/quiz.mjs", "runtime/cells.mjs"}
    assert page.evaluate("() => document.querySelector('.lllm-timetravel').dataset.state") is None
    watched.assert_clean("lazy widgets")
    context.close()


def test_a_link_to_a_widget_draws_it_at_once(lazy_browser, site_server):
    context = lazy_browser.new_context(service_workers="block", viewport={"width": 412, "height": 823}, is_mobile=True)
    page = context.new_page()
    heading = page.goto(site_server.url + "agents/react/") and page.evaluate(
        "() => [...document.querySelectorAll('h2[id]')].filter((h) => h.compareDocumentPosition("
        "document.querySelector('.lllm-timetravel')) & Node.DOCUMENT_POSITION_FOLLOWING).pop().id")
    page.goto("about:blank")
    page.goto(site_server.url + f"agents/react/#{heading}")
    expect(page.locator(".lllm-timetravel").first).to_have_attribute("data-state", "idle", timeout=30_000)
    assert page.evaluate("() => document.querySelector('.lllm-quiz').dataset.quizReady") is None
    context.close()


RUN = {"schema": "lllm-run", "version": 1, "inputs": {"goal": "What is 6 times 7?", "brain": "rule"},
       "edits": [{"parent": 1, "step": 1, "observation": "40"}]}


def test_a_run_link_replays_its_widget_at_once_and_scrolls_to_it(lazy_browser, site_server):
    """A reader opens a shared run link on a phone: the time-travel widget, screens below the opening, is
    drawn and replays the run without the reader scrolling, and is brought into view; the address
    the link named is read before Material's heading tracking can rewrite it."""
    import base64
    import json
    from lllm.timetravel.react import travel
    fragment = base64.urlsafe_b64encode(json.dumps(RUN).encode()).decode().rstrip("=")
    context = lazy_browser.new_context(service_workers="block", viewport={"width": 412, "height": 823}, is_mobile=True)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    page.goto(site_server.url + "agents/react/#run=" + fragment)
    page.wait_for_function("() => ['done', 'error'].includes(document.querySelector('.lllm-timetravel')?.dataset.state)",
                           timeout=900_000)
    shown = page.evaluate("""() => { const root = document.querySelector('.lllm-timetravel');
        const box = root.getBoundingClientRect();
        return {state: root.dataset.state, error: root.querySelector('.lllm-tt__error').textContent,
                branches: root.querySelectorAll('[role=treeitem]').length, record: root.lllmRecord,
                inView: box.top < innerHeight && box.bottom > 0, scrolled: scrollY > innerHeight,
                kept: window.lllmRunLink ?? null, quiz: document.querySelector('.lllm-quiz').dataset.quizReady ?? null}; }""")
    assert (shown["state"], shown["error"], shown["branches"]) == ("done", "", 2), shown
    assert shown["record"] == json.loads(json.dumps(travel(RUN)))
    assert shown["inView"] and shown["scrolled"], "the widget was not brought into view"
    assert shown["kept"] is None and shown["quiz"] is None      # the link was read once; other widgets stay lazy
    watched.assert_clean("run link")
    context.close()


def test_a_gallery_screens_away_from_its_demo_gets_its_buttons(lazy_browser, site_server):
    """The agent model page's gallery (Try it: run this row's goal in the demo) is set up by the demo's
    module, and stands more than two screens above the demo: it must be a reason to import it too."""
    context = lazy_browser.new_context(service_workers="block", viewport={"width": 412, "height": 823}, is_mobile=True)
    page = context.new_page()
    page.goto(site_server.url + "agents/agent-model/")
    gap = page.evaluate("() => document.querySelector('.lllm-demo').getBoundingClientRect().top"
                        " - document.querySelector('.lllm-gallery').getBoundingClientRect().top")
    assert gap > 2 * 823, f"the gallery's top is only {gap:.0f} px above the demo: this test would show nothing"
    page.evaluate("() => window.scrollTo(0, document.querySelector('.lllm-gallery').offsetTop)")
    expect(page.locator(".lllm-gallery .lllm-gallery__try").first).to_be_visible(timeout=30_000)
    assert page.evaluate("() => document.querySelector('.lllm-demo').dataset.state") == "idle"
    context.close()


def test_a_copy_button_copies_its_code_and_material_leaves_the_blocks_alone(browser, site_server):
    context = browser.new_context(service_workers="block", permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(site_server.url + "agents/react/")
    page.wait_for_load_state("networkidle")
    blocks = page.evaluate("""() => [...document.querySelectorAll('pre[data-lllm-code]')].map((pre) => ({
        number: pre.dataset.lllmCode, buttons: pre.querySelectorAll('.md-code__button').length,
        navs: pre.querySelectorAll('nav.md-code__nav').length}))""")
    assert len(blocks) >= 10
    assert all(b["buttons"] == 1 and b["navs"] == 1 for b in blocks), [b for b in blocks if b["buttons"] != 1][:3]
    second = page.locator("div.highlight:not(.runnable) pre[data-lllm-code] >> visible=true").nth(1)
    second.scroll_into_view_if_needed()
    code = second.locator("code").inner_text()
    second.hover()
    second.locator(".md-code__button").click()
    page.wait_for_function("(text) => navigator.clipboard.readText().then((t) => t === text)", arg=code.rstrip(),
                           timeout=10_000)
    expect(page.locator(".md-dialog")).to_contain_text("Copied to clipboard")
    context.close()
