"""Time travel on the native runtime's pages in Chromium (one launch), at 390 px. The Agent page: run the
scripted agent, step back to the tool's result, edit it, run from there; two branches in the tree (the
runtime's dialog tree: branch 2 split from branch 1's dialog), message 4 marked as the first difference,
the same record and trace as CPython, the link in a fresh context reproduces both branches, and
`python -m lllm replay` on the page's export prints the page's trace; the keyboard alone moves through the
tree and the timeline; axe-core finds no serious or critical issue. The Tactic page: the same on TinyLLM
in the page (sampled, seeded per call), an edited call 1 re-running the rest of the tactic."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.timetravel.native import native_trace_text, travel_native
from support.axe import serious_violations

pytestmark = pytest.mark.browser


def settle(page, widget: str) -> str:
    page.wait_for_function(f"() => ['done', 'error'].includes(document.querySelector('{widget}')?.dataset.state)",
                           timeout=600_000)
    return page.evaluate(f"() => document.querySelector('{widget}').dataset.state")


def page_record(page, widget: str) -> tuple[dict, dict, str]:
    return (page.evaluate(f"() => document.querySelector('{widget}').lllmRecord"),
            page.evaluate(f"() => document.querySelector('{widget}').lllmSpec"),
            page.evaluate(f"() => document.querySelector('{widget} .lllm-tt__trace').textContent"))


def replays_to(page, widget: str, tmp_path, trace: str) -> None:
    run_file = tmp_path / "native-run.json"
    run_file.write_text(page.evaluate(f"() => document.querySelector('{widget}').lllmExportText()"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", trace)


def new_context(browser):
    return browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)


def test_native_agent_and_tactic_time_travel_in_chromium_at_390px(browser, site_server, tmp_path):
    context = new_context(browser)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    widget = ".lllm-timetravel[data-demo=native-agent]"
    try:
        page.goto(site_server.url + "native/agent/")
        page.wait_for_function("() => Boolean(window.lllm)")
        root = page.locator(widget)
        root.locator(".lllm-tt__run").click()
        assert settle(page, widget) == "done"
        steps = root.locator(".lllm-tt__step")
        assert steps.count() == 5
        steps.nth(4).click()                                        # the answer, then one step back: the tool's result
        root.locator(".lllm-tt__prev").click()
        assert root.locator(".lllm-tt__step[aria-current=step]").inner_text() == "4"
        assert root.locator("[name=edit-content]").input_value() == "391"
        root.locator("[name=edit-content]").fill("400")
        root.locator(".lllm-tt__rerun").click()
        assert settle(page, widget) == "done" and root.locator(".lllm-tt__error").inner_text() == ""
        tree = root.locator("[role=tree] [role=treeitem]")
        assert [tree.nth(i).get_attribute("data-branch") for i in range(tree.count())] == ["1", "2"]
        child = root.locator("[role=tree] [role=group] [role=treeitem]")
        assert child.get_attribute("aria-selected") == "true"
        assert "split from solver.main-0 after message 5, kept the first 3" in child.inner_text()
        assert root.locator(".lllm-tt__diff-summary").inner_text() == "First difference: step 4."
        assert root.locator(".lllm-tt__first-diff th").inner_text() == "step 4 (first difference)"
        steps.nth(4).click()                                        # branch 2's next call saw the edited result
        root.locator(".lllm-tt__step-view details").first.evaluate("d => d.open = true")
        assert "Observation: 400\nAssistant: " in root.locator(".lllm-tt__step-view details pre").inner_text()
        record, spec, trace = page_record(page, widget)
        assert spec["demo"] == "native-agent" and spec["edits"] == [{"parent": 1, "step": 4, "content": "400"}]
        expected = travel_native(spec)                              # the oracle: the same spec in CPython
        assert record == json.loads(json.dumps(expected)) and trace == native_trace_text(expected)
        replays_to(page, widget, tmp_path, trace)
        # the keyboard alone: ↑ and Enter in the tree open branch 1; ← on the timeline moves a step back
        page.focus(f"{widget} .lllm-tt__tree [aria-selected=true]")
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        assert root.locator("[role=tree] > [role=treeitem]").get_attribute("aria-selected") == "true"
        page.focus(f"{widget} .lllm-tt__step[aria-current=step]")
        page.keyboard.press("ArrowRight")
        assert root.locator(".lllm-tt__step[aria-current=step]").inner_text() == "2"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        page.evaluate(f"() => document.querySelectorAll('{widget} details').forEach(d => d.open = true)")
        assert serious_violations(page) == []
        link = page.evaluate(f"() => document.querySelector('{widget}').lllmLink")
        # a malformed file, and a Tactic's run on the Agent page: one sentence each, and the branches stay
        bad = '{"schema": "lllm-run", "version": 2, "demo": "native-agent", "inputs": {"goal": "x", "max_steps": 9}}'
        page.evaluate(f"text => document.querySelector('{widget}').lllmImport(text)", bad)
        assert root.locator(".lllm-tt__error").inner_text() == "field inputs.max_steps must be an integer between 1 and 5, got 9"
        other = '{"schema": "lllm-run", "version": 2, "demo": "native-tactic", "inputs": {"task": "x"}}'
        page.evaluate(f"text => document.querySelector('{widget}').lllmImport(text)", other)
        assert root.locator(".lllm-tt__error").inner_text() == (
            "This run is for another page's widget (demo \"native-tactic\"); open it there.")
        assert root.locator("[role=tree] [role=treeitem]").count() == 2 and page_record(page, widget)[0] == record
        watched.assert_clean()
    finally:
        context.close()

    fresh = new_context(browser)                                    # the link, in a profile that has seen nothing
    watched = watch(fresh, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(link)
        assert settle(page, widget) == "done"
        again, _, again_trace = page_record(page, widget)
        assert again == record and again_trace == trace
        assert page.locator(f"{widget} [role=tree] [role=treeitem]").count() == 2

        tactic = ".lllm-timetravel[data-demo=native-tactic]"       # the Tactic page, on TinyLLM in the page
        page.goto(site_server.url + "native/tactic/")
        root = page.locator(tactic)
        root.locator("select[name=brain]").select_option("tinyllm")
        root.locator(".lllm-tt__run").click()
        assert settle(page, tactic) == "done"
        first_calls = root.locator(".lllm-tt__step").count()
        assert first_calls >= 2
        root.locator("[name=edit-reply]").fill("Action: calc[2 + 2]")
        root.locator(".lllm-tt__rerun").click()
        assert settle(page, tactic) == "done" and root.locator(".lllm-tt__error").inner_text() == ""
        assert root.locator(".lllm-tt__diff-summary").inner_text() == "First difference: step 1."
        record, spec, trace = page_record(page, tactic)
        assert spec["edits"] == [{"parent": 1, "step": 1, "reply": "Action: calc[2 + 2]"}]
        assert record["branches"][1]["steps"][0]["calls"][0]["result"] == "4"
        expected = travel_native(spec)                              # TinyLLM's sampled text, the same in CPython
        assert record == json.loads(json.dumps(expected)) and trace == native_trace_text(expected)
        replays_to(page, tactic, tmp_path, trace)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        assert serious_violations(page) == []
        watched.assert_clean()
    finally:
        fresh.close()
