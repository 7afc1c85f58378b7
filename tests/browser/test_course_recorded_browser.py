"""Recorded demos in real Chromium: with SharedArrayBuffer and JSPI taken away before any page
script runs (so the runtime cannot start: lllm.sync is null), every agent demo says why in one
sentence and plays the run recorded in CPython at build time, labelled "recorded" (the reasoning
lab too, for its Run button); the params the
untouched widget sends are the recorded ones (hooks/recorded.py mirrors the widget's defaults).

Uses tests/conftest.py: `site_server` and `browser`.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import origin, watch

pytestmark = pytest.mark.browser
NO_RUNTIME = "delete self.SharedArrayBuffer; delete WebAssembly.Suspending; delete WebAssembly.promising;"
DEMO_PAGES = ["agents/react/", "agents/", "agents/brains/", "agents/memory/", "agents/memory-explainer/",
              "agents/lab/", "agents/evaluator/", "agents/inference-playground/", "agents/agent-model/"]


@pytest.fixture
def no_runtime(browser, site_server):
    context = browser.new_context(service_workers="block")
    context.add_init_script(script=NO_RUNTIME)
    watched = watch(context, {origin(site_server.url)})
    yield watched
    context.close()


def test_a_demo_without_the_runtime_plays_its_recording(no_runtime, site_server):
    pg = no_runtime.page
    pg.goto(site_server.url + "agents/react/")
    assert pg.evaluate("() => [typeof SharedArrayBuffer, window.lllm.sync]") == ["undefined", None]
    demo = pg.locator(".lllm-demo").first
    demo.get_by_role("button", name="Run").click()
    expect(demo).to_have_attribute("data-state", "recorded")
    label = demo.locator(".lllm-recorded")
    expect(label).to_contain_text(re.compile(r"^recorded This browser cannot run Python in a page", re.I))
    expect(label).not_to_contain_text("not the ones you chose")
    expect(demo.locator(".lllm-demo__answer")).to_have_text("Final answer: 391")
    expect(demo.locator(".lllm-recorded__note")).to_contain_text("Recorded when the site was built")
    # a changed goal still plays the page's recording, and says so
    demo.locator("input[name='goal']").fill("What is 2 + 2?")
    demo.get_by_role("button", name="Run").click()
    expect(label).to_contain_text("It uses the page's own settings, not the ones you chose.")
    assert not [u for u in no_runtime.requests if "pyodide" in u], "the runtime was downloaded anyway"
    no_runtime.assert_clean()


def test_every_demo_has_a_recording_for_its_own_params(no_runtime, site_server):
    pg = no_runtime.page
    played = 0
    for path in DEMO_PAGES:
        pg.goto(site_server.url + path)
        demos = pg.locator(".lllm-demo:not(.lllm-demo--yours)")   # --yours needs the reader's server: nothing to record
        for i in range(demos.count()):
            demo = demos.nth(i)
            demo.locator(".lllm-demo__run").click()
            expect(demo).to_have_attribute("data-state", "recorded")
            expect(demo.locator(".lllm-recorded")).not_to_contain_text("not the ones you chose")
            expect(demo.locator(".lllm-demo__output > :not(.lllm-recorded):not(.lllm-recorded__note)").first).to_be_visible()
            played += 1
    assert played >= 10
    no_runtime.assert_clean()


def test_the_reasoning_lab_without_the_runtime_plays_its_run(no_runtime, site_server):
    pg = no_runtime.page
    pg.goto(site_server.url + "reasoning/")
    lab = pg.locator(".lllm-reasoning-lab")
    lab.locator(".lllm-reasoning-lab__run").click()
    expect(lab).to_have_attribute("data-state", "recorded")
    expect(lab.locator(".lllm-recorded")).to_contain_text("This browser cannot run Python in a page")
    expect(lab.locator(".lllm-recorded")).not_to_contain_text("not the ones you chose")
    expect(lab.locator(".lllm-reasoning-lab__tree").first).to_be_visible()
    lab.locator(".lllm-reasoning-lab__bench").click()             # another button: Run's recording, said so
    expect(lab.locator(".lllm-recorded")).to_contain_text("not the ones you chose")
    no_runtime.assert_clean()
