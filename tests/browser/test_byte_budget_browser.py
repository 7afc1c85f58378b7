"""A byte budget per page kind (tests/support/byte_budget.py): a reading page, the ReAct demo to its
first answer, the inside view, the training tab. Each is one reader's first visit in Chromium over
the built site (the demo's in Firefox and WebKit too): a fresh profile, widgets drawn the lazy way a reader gets them (no lllmEager), the
one widget the kind is about used, counted as the server sends it until the service worker's
background caching is idle. The budgets, and the figures measured last, are in bench/budgets.json
(the Performance page shows them; `python bench/byte_budget.py --write` measures them again).

- a page over its budget fails, naming the files that are new or grew since those figures;
- no feature's files arrive before its widget is used: time travel, the inside view, the editor,
  TinyGPT, the model trained in the tab and "your model" (a server on the reader's computer), but
  for what NOT_YET lists; on the ReAct page in every engine;
- on the demo page no file is sent twice, until the background caching has ended (its "rest"),
  and the bytes to the first answer stay within 2x a bare loadPyodide() in the same run and
  engine: in Chromium, Firefox and WebKit.

One launch per engine for the file: Chromium (lazy_browser), each page kind visited once, the first
time a test asks; Firefox and WebKit each a bare Pyodide and the demo's visit (byte_budget.engine_visit).
"""

from __future__ import annotations

import pytest

from support import byte_budget as bb
from support.first_visit import ANSWER, CountingServer
from support.runtime import free_port

pytestmark = pytest.mark.browser
MAX_RATIO = 2.0
# Never before the reader uses its widget; the kinds that are about one may load it.
LATER = {"time travel", "inside view", "editor (CodeMirror)", "TinyGPT", "tab-trained model", "your model"}
ALLOWED = {"inside": {"inside view"}, "train": {"tab-trained model"}}
# Not done yet, each listed so that doing it fails this test until it is taken off the list
# ({kind: {feature}}): none now.
NOT_YET: dict[str, set[str]] = {}
ENGINES = ("chromium", "firefox", "webkit")
# WebKit's visit runs in MiniBrowser with a profile of its own, not WebDriver's ephemeral session, which
# keeps no HTTP cache (a reader's Safari has one): tests/support/webkit_profile.py says why.


@pytest.fixture(scope="module")
def counted(site_build):
    server = CountingServer(site_build.dir, free_port())
    yield server
    server.close()


@pytest.fixture(scope="module")
def visits(lazy_browser, counted):
    """kind -> its Visit, made the first time a test asks for that kind."""
    made: dict[str, bb.Visit] = {}

    def get(kind: str) -> bb.Visit:
        if kind not in made:
            made[kind] = bb.visit(lazy_browser, counted, kind)
            assert "error" not in made[kind].report, made[kind].report
        return made[kind]
    return get


@pytest.fixture(scope="module")
def bare_pyodide(lazy_browser, counted):
    return bb.bare_pyodide(lazy_browser, counted)


@pytest.fixture(scope="module")
def demo_in(visits, counted, request):
    """engine -> (bare Pyodide's gzip bytes, the demo's Visit), each engine launched once, when first asked."""
    made: dict[str, tuple[int, bb.Visit]] = {}

    def get(engine: str) -> tuple[int, bb.Visit]:
        if engine not in made:
            made[engine] = ((request.getfixturevalue("bare_pyodide"), visits("demo")) if engine == "chromium"
                            else bb.engine_visit(engine, counted))
        return made[engine]
    return get


def over_budget(kind: str, measured: bb.Counted) -> str | None:
    data = bb.load()
    stored = data["pages"][kind]
    if measured.gzip <= stored["budget_gzip"]:
        return None
    when = data["measured"]
    lines = bb.grown(measured, stored) or ["(no file grew by more than 2 kB: many small ones did)"]
    return (f"{bb.KINDS[kind]['title']} (/{stored['path']}): {measured.gzip:,} B gzip in {measured.requests} requests, "
            f"over its budget of {stored['budget_gzip']:,} B by {measured.gzip - stored['budget_gzip']:,} B. "
            f"Against the figures of {when.get('date')} ({stored['gzip']:,} B), in bench/budgets.json:\n  " + "\n  ".join(lines))


@pytest.mark.parametrize("kind", list(bb.KINDS))
def test_each_page_kind_stays_within_its_byte_budget(kind, visits, counted):
    v = visits(kind)
    measured = bb.count(v.budgeted, counted.directory)
    print(f"{kind}: {measured.requests} requests, {bb.mb(measured.gzip)} MB gzip; "
          + ", ".join(f"{name} {b / 1e3:.0f} kB" for name, (_, b) in bb.by_feature(measured.files).items()))
    assert measured.requests > 0, "nothing was counted: the counting is broken"
    problem = over_budget(kind, measured)
    assert problem is None, problem


@pytest.mark.parametrize("engine,kind", [("chromium", kind) for kind in bb.KINDS] + [(e, "demo") for e in ENGINES[1:]])
def test_no_feature_loads_before_its_widget_is_used(engine, kind, visits, demo_in, counted):
    v = visits(kind) if engine == "chromium" else demo_in(engine)[1]
    early = {path: bb.feature(path) for path in bb.count(v.budgeted, counted.directory).files
             if bb.feature(path) in LATER - ALLOWED.get(kind, set())}
    known = NOT_YET.get(kind, set())
    assert {path: f for path, f in early.items() if f not in known} == {}, f"{kind}: fetched before the reader used their widget: {early}"
    assert set(early.values()) == known, f"{kind}: no longer fetched early, take them off NOT_YET: {known - set(early.values())}"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_demo_answers_once_per_file_within_twice_a_bare_pyodide(engine, demo_in, counted):
    bare_pyodide, v = demo_in(engine)
    report = v.report
    assert report["state"] == "done" and report["answer"] == ANSWER, report
    to_answer, whole = bb.count(v.budgeted, counted.directory), bb.count(v.sent, counted.directory)
    print(f"{engine} demo: to the answer {bb.mb(to_answer.gzip)} MB gzip ({to_answer.gzip / bare_pyodide:.2f}x bare Pyodide "
          f"{bb.mb(bare_pyodide)} MB); whole visit {whole.requests} requests, {bb.mb(whole.gzip)} MB "
          f"({whole.gzip / bare_pyodide:.2f}x), sent twice {whole.twice}")
    assert bare_pyodide > 5_000_000, f"a bare loadPyodide() counted only {bare_pyodide} bytes: the counting is broken"
    assert to_answer.gzip / bare_pyodide <= MAX_RATIO, f"{to_answer.gzip / bare_pyodide:.2f}x a bare Pyodide to the first answer"
    assert report["rest"] == "done", f"the background caching did not end: {report.get('rest')}"
    assert whole.twice == [], f"sent more than once on one visit: {whole.twice}"


def test_a_readers_code_gets_its_editor_when_touched_not_when_seen(lazy_browser, site_server):
    """The editor's bundle (≈120 kB gzip) is fetched when the reader touches the code, not when it is
    seen (site/assets/editor/editor.mjs), and takes the focus the touch gave the code."""
    context = lazy_browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        asked = []
        page.on("request", lambda r: asked.append(r.url))
        page.goto(site_server.url + bb.KINDS["reading"]["path"])
        cell = page.locator("div.runnable.highlight").first
        cell.scroll_into_view_if_needed()
        page.wait_for_function("() => document.querySelector('div.runnable.highlight').dataset.editor === 'waiting'", timeout=60_000)
        page.wait_for_timeout(1000)             # time for an IntersectionObserver callback, had one been due
        assert not any("/assets/editor/codemirror.mjs" in u for u in asked), "the editor loaded for code only seen"
        cell.locator("code").first.click()
        page.wait_for_function("() => document.querySelector('div.runnable.highlight').dataset.editor === 'ready'", timeout=60_000)
        assert any("/assets/editor/codemirror.mjs" in u for u in asked)
        assert page.evaluate("() => Boolean(document.activeElement?.closest('.cm-editor'))"), "the editor did not take the focus"
    finally:
        context.close()


def test_the_search_index_arrives_once_when_the_reader_searches(lazy_browser, counted):
    """Material's search index (≈340 kB gzip) is held back until the reader reaches for search
    (hooks/overrides/main.html), then sent once, through the service worker, and search finds a word."""
    context = lazy_browser.new_context()
    try:
        page = context.new_page()
        start = len(counted.log)
        page.goto(counted.url + bb.KINDS["reading"]["path"])
        page.wait_for_function("() => document.documentElement.dataset.offline", timeout=60_000)   # the worker controls the page
        page.wait_for_timeout(1000)
        index = lambda: [s for s in counted.log[start:] if s.path.split("?")[0] == "/search/search_index.json"]  # noqa: E731
        assert index() == [], "the search index was sent before the reader reached for search"
        page.locator("label.md-search__icon, .md-search__input").first.click()
        page.locator("input.md-search__input").press_sequentially("Mulberry32", delay=20)
        results = page.locator(".md-search-result__item a")
        results.first.wait_for(timeout=60_000)
        assert any("tinyllm/generation/" in results.nth(i).get_attribute("href") for i in range(results.count()))
        assert len(index()) == 1, f"the search index was sent {len(index())} times"
    finally:
        context.close()
