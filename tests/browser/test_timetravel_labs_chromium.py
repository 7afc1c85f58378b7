"""Time travel on the debate, typed-workflow and human-in-the-loop pages in Chromium (one launch), at 390 px. The debate: run,
step back with the timeline's buttons and keys, edit agent-2's round-1 answer, run from there, then edit the
critic's verdict on that branch; the tree holds three branches, the comparison marks the edited step, the
record and the trace are CPython's, the exported file replays in the terminal to the page's trace, and the
link in a fresh context recomputes all three branches. The typed workflow: an edited observation gives a new
answer; oversight: an edited decision does; both the same record as CPython. Keyboard alone on the tree and the timeline; axe-core: no serious or
critical issue."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.timetravel.debate import debate_trace_text, travel_debate
from lllm.timetravel.oversight import travel_oversight
from lllm.timetravel.workflow import travel_workflow, workflow_trace_text
from support.axe import serious_violations

pytestmark = pytest.mark.browser
DEBATE, WORKFLOW = ".lllm-timetravel[data-demo=debate]", ".lllm-timetravel[data-demo=workflow]"
OVERSIGHT = ".lllm-timetravel[data-demo=oversight]"
VERDICT = "SCORE agent-0: 2/10\nSCORE agent-1: 2/10\nSCORE agent-2: 9/10"


def settle(page, widget: str) -> str:
    page.wait_for_function(f"() => ['done', 'error'].includes(document.querySelector('{widget}').dataset.state)",
                           timeout=600_000)
    return page.evaluate(f"() => document.querySelector('{widget}').dataset.state")


def shown(page, widget: str) -> dict:
    return page.evaluate(f"""() => {{ const root = document.querySelector('{widget}');
      return {{record: root.lllmRecord, spec: root.lllmSpec, link: root.lllmLink,
               trace: root.querySelector('.lllm-tt__trace').textContent, exported: root.lllmExportText()}}; }}""")


def test_debate_and_workflow_time_travel_in_chromium_at_390px(browser, site_server, tmp_path):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(site_server.url + "agents/debate/")
        page.wait_for_function("() => Boolean(window.lllm)")
        root = page.locator(DEBATE)
        root.locator(".lllm-tt__run").click()
        assert (settle(page, DEBATE), root.locator(".lllm-tt__error").inner_text()) == ("done", "")
        steps = root.locator(".lllm-tt__step")
        assert steps.count() == 8 and steps.nth(6).get_attribute("aria-label") == "step 7: critic"
        steps.nth(7).click()                                        # the synthesis, then back two steps
        root.locator(".lllm-tt__prev").click()
        root.locator(".lllm-tt__prev").click()
        assert root.locator(".lllm-tt__step[aria-current=step]").inner_text() == "6"
        assert root.locator("h4", has_text="Branch 1, step 6 of 8").inner_text() == "Branch 1, step 6 of 8: agent-2, round 1"
        root.locator("[name=edit-answer]").fill("70")
        root.locator(".lllm-tt__rerun").click()
        assert settle(page, DEBATE) == "done" and root.locator(".lllm-tt__error").inner_text() == ""
        assert root.locator(".lllm-tt__diff-summary").inner_text() == "First difference: step 6."
        assert root.locator(".lllm-tt__first-diff th").inner_text() == "step 6: agent-2, round 1 (first difference)"
        steps.nth(6).click()                                        # branch 2's critic: it scored agent-2 2/10
        assert "SCORE agent-2: 2/10" in root.locator("[name=edit-verdict]").input_value()
        root.locator("[name=edit-verdict]").fill(VERDICT)
        root.locator(".lllm-tt__rerun").click()
        assert settle(page, DEBATE) == "done" and root.locator(".lllm-tt__error").inner_text() == ""
        tree = root.locator("[role=tree] [role=treeitem]")
        assert [tree.nth(i).get_attribute("data-branch") for i in range(tree.count())] == ["1", "2", "3"]
        assert root.locator("[role=tree] [role=group] [role=group] [role=treeitem]").get_attribute("aria-selected") == "true"
        assert tree.nth(2).inner_text() == "branch 3: step 7: verdict edited → answer 70"
        assert root.locator(".lllm-tt__diff-summary").inner_text() == "First difference: step 6."     # against branch 1
        root.locator("select[name=compare]").select_option("2")
        assert root.locator(".lllm-tt__diff-summary").inner_text() == "First difference: step 7."     # against its parent
        debate = shown(page, DEBATE)
        assert debate["spec"]["edits"] == [{"parent": 1, "step": 6, "answer": "70"}, {"parent": 2, "step": 7, "verdict": VERDICT}]
        expected = travel_debate(debate["spec"])                    # the oracle: the same spec in CPython
        assert debate["record"] == json.loads(json.dumps(expected)) and debate["trace"] == debate_trace_text(expected)
        run_file = tmp_path / "debate.json"
        run_file.write_text(debate["exported"], encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file)], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
        assert (done.returncode, done.stderr, done.stdout) == (0, "", debate["trace"])
        # the keyboard alone: ↑ and Enter open branch 2 in the tree; → moves along the timeline
        page.focus(f"{DEBATE} .lllm-tt__tree [aria-selected=true]")
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        assert page.evaluate(f"() => document.querySelector('{DEBATE} .lllm-tt__tree [aria-selected=true]').dataset.branch") == "2"
        page.focus(f"{DEBATE} .lllm-tt__step[aria-current=step]")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "step 2: agent-1, round 0"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        page.evaluate(f"() => document.querySelectorAll('{DEBATE} details').forEach(d => d.open = true)")
        assert serious_violations(page) == []

        page.goto(site_server.url + "agents/typed-workflow/")     # the typed workflow: an edited observation
        page.wait_for_function("() => Boolean(window.lllm)")
        flow = page.locator(WORKFLOW)
        flow.locator(".lllm-tt__run").click()
        assert settle(page, WORKFLOW) == "done"
        flow.locator(".lllm-tt__step").nth(3).click()
        assert flow.locator("[name=edit-text]").input_value() == "391"
        flow.locator("[name=edit-text]").fill("400")
        flow.locator(".lllm-tt__rerun").click()
        assert settle(page, WORKFLOW) == "done" and flow.locator(".lllm-tt__error").inner_text() == ""
        workflow = shown(page, WORKFLOW)
        expected = travel_workflow(workflow["spec"])
        assert workflow["record"] == json.loads(json.dumps(expected)) and workflow["trace"] == workflow_trace_text(expected)
        assert [b["answer"] for b in workflow["record"]["branches"]] == ["391", "400"]
        assert flow.locator(".lllm-tt__diff-summary").inner_text() == "First difference: step 4."

        page.goto(site_server.url + "agents/human-in-loop/")       # oversight: an edited decision
        page.wait_for_function("() => Boolean(window.lllm)")
        oversee = page.locator(OVERSIGHT)
        oversee.locator(".lllm-tt__run").click()
        assert settle(page, OVERSIGHT) == "done"
        oversee.locator(".lllm-tt__step").nth(1).click()
        assert oversee.locator("[name=edit-decision]").input_value() == "approve"
        oversee.locator("[name=edit-decision]").fill("edit calc[6 * 8]")
        oversee.locator(".lllm-tt__rerun").click()
        assert settle(page, OVERSIGHT) == "done" and oversee.locator(".lllm-tt__error").inner_text() == ""
        overseen = shown(page, OVERSIGHT)
        assert overseen["record"] == json.loads(json.dumps(travel_oversight(overseen["spec"])))
        assert [b["answer"] for b in overseen["record"]["branches"]] == ["42", "48"]
        assert oversee.locator(".lllm-tt__first-diff th").inner_text() == "step 2: decision 1 (first difference)"
        page.evaluate(f"() => document.querySelectorAll('{OVERSIGHT} details').forEach(d => d.open = true)")
        assert serious_violations(page) == [] and page.evaluate("() => document.documentElement.scrollWidth") <= 391
        watched.assert_clean()
    finally:
        context.close()
    fresh = browser.new_context(service_workers="block")        # the link in a fresh profile: the same three branches
    try:
        other = fresh.new_page()
        other.goto(debate["link"])
        assert settle(other, DEBATE) == "done"
        again = shown(other, DEBATE)
        assert (again["record"], again["trace"]) == (debate["record"], debate["trace"])
        assert other.locator(f"{DEBATE} [role=treeitem]").count() == 3
    finally:
        fresh.close()
