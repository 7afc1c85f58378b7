"""Offline after the first visit (site/sw.js, hooks/offline.py, assets/runtime/offline.mjs), in
real Chromium with its service worker on: visit, go offline, reload, run an agent — the same
trace as CPython; and a new deploy replaces the cache instead of mixing versions, even when a
request reaches the old service worker as it is being replaced.

The site is a copy of the session's build on a server of its own: the deploy test rebuilds the
copy's precache list (the real hook) after changing a page, which the shared server must not see.
"""

from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from conftest import origin, watch
from support.engines import SCENARIO_ARG, cpython_demo
from support.runtime import free_port, run_demo

pytestmark = pytest.mark.browser
def wait_offline(page, state: str, timeout: int) -> None:
    """Until the footer's service-worker state (offline.mjs) is `state`: "pages" or "all"."""
    page.wait_for_function("s => document.documentElement.dataset.offline === s", arg=state, timeout=timeout)


@pytest.fixture(scope="module")
def deployed(site_build, tmp_path_factory):
    from hooks.serve import make_server

    folder = tmp_path_factory.mktemp("deployed") / "public"
    shutil.copytree(site_build.dir, folder)
    aged = time.time() - 2 * 3600              # a deploy hours old, as in CI (a fresh build hid a race)
    for path in folder.rglob("*"):
        os.utime(path, (aged, aged))
    server = make_server(folder, free_port())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/", folder
    server.shutdown()
    server.server_close()


@pytest.fixture
def tab(browser, deployed):
    """A fresh profile per test: a reader who visited the site before, online."""
    url, _ = deployed
    context = browser.new_context(service_workers="allow")
    watched = watch(context, {origin(url)})
    yield watched
    context.close()


def test_a_visited_page_runs_an_agent_offline(tab, deployed):
    url, _ = deployed
    page = tab.page
    page.goto(url + "agents/react/")
    # Playwright's request interception (watch) turns Chromium's HTTP cache off, so this page is
    # saved with the rest of the site, not from the cache at once (test_first_visit_browser.py).
    page.evaluate("() => lllm.ready()")
    wait_offline(page, "all", 300_000)
    assert "live code included" in page.locator(".lllm-offline").text_content()

    page.context.set_offline(True)
    try:
        page.reload()
        assert page.evaluate("crossOriginIsolated"), "the cached page lost its COOP/COEP headers"
        demo = page.locator('.lllm-demo[data-demo="react"]').first
        run = run_demo(demo, goal=SCENARIO_ARG["goal"], brain=SCENARIO_ARG["brain"])
        assert run["state"] == "done", run
        assert run["result"]["trace"] == cpython_demo(run["params"])["trace"]
        page.goto(url + "architecture/")          # a page never opened before: precached too
        assert page.locator("h1").first.text_content().startswith("Architecture")
    finally:
        page.context.set_offline(False)


def deploy_again(folder, marker: str) -> None:
    """A new deploy: the playground page gains `<p id=marker>`, and the precache list is rebuilt."""
    from hooks import offline

    html = folder / "playground" / "index.html"
    html.write_text(html.read_text(encoding="utf-8").replace("</article>", f"<p id='{marker}'>new deploy</p></article>", 1), encoding="utf-8")
    sw = folder / "sw.js"
    sw.write_text(sw.read_text(encoding="utf-8").split("\n", 1)[1], encoding="utf-8")   # the build's line, as before the hook
    offline.on_post_build({"site_dir": str(folder)})


DEPLOYS = "async () => (await caches.keys()).filter((name) => name.startsWith('lllm-'))"   # one cache per deploy


def offer_of_new_deploy(page, url, folder, marker: str):
    """Visit, deploy again, reload (still the old version): the footer's offer, and the old caches."""
    page.goto(url + "playground/")
    page.locator(".lllm-playground textarea").focus()   # a touch loads the model; the rest is saved once it is idle
    wait_offline(page, "all", 120_000)
    old = page.evaluate(DEPLOYS)
    deploy_again(folder, marker)
    page.reload()                                 # still the old version: served whole from its cache
    assert page.locator(f"#{marker}").count() == 0
    offer = page.locator(".lllm-offline", has_text="A new version of this site is ready")
    offer.wait_for(timeout=120_000)
    return offer, old


def assert_new_version_shown(page, marker: str, old: list) -> None:
    page.locator(f"#{marker}").wait_for(timeout=60_000)
    new = page.evaluate(DEPLOYS)
    assert len(old) == len(new) == 1 and old != new, (old, new)


def test_a_new_deploy_replaces_the_cache_without_mixing_versions(tab, deployed):
    offer, old = offer_of_new_deploy(tab.page, *deployed, "deploy-2")
    # the click scrolls the footer into view, bringing the playground's cells near: their editor
    # loads its bundle through the old worker as the switch begins (it once stranded the switch)
    offer.get_by_role("button", name="Reload").click()
    assert_new_version_shown(tab.page, "deploy-2", old)


def test_a_request_during_the_switch_does_not_strand_it(tab, deployed):
    """Requests reaching the old worker as it stops (as the browser's own favicon request can)
    start it again, and Chromium keeps the new worker waiting until the old one idles: the
    page's reload retry (offline.mjs) brings the new version anyway. That reload goes to the
    server (sw.js leaves it alone): answered by the old worker as it stopped, it once stranded the
    page half-loaded (run ten times in a row to see a race like that)."""
    offer, old = offer_of_new_deploy(tab.page, *deployed, "deploy-3")
    tab.page.evaluate("""() => { const post = ServiceWorker.prototype.postMessage;
      ServiceWorker.prototype.postMessage = function (message) {
        post.call(this, message);
        if (message?.type === 'take-over')
          for (const ms of [5, 20, 50, 100, 200]) setTimeout(() => fetch(`/assets/images/favicon.png?stray=${ms}`), ms);
      }; }""")
    offer.get_by_role("button", name="Reload").click()
    assert_new_version_shown(tab.page, "deploy-3", old)
    assert "lllm-switch" not in tab.page.url, tab.page.url   # the retry's mark is not left in the address
