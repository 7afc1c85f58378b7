"""Time travel on the memory explainer's page in Chromium (one launch), at 390 px: run the session on the rule
brain, step back to step 1, edit its observation, run from there; two branches, step 1 marked as the first
difference, goal 2's memory block carrying the edited answer, the same record and trace as CPython, and
`python -m lllm replay` on the page's export prints the page's trace. axe-core: no serious or critical issue."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.timetravel.memory import memory_trace_text, travel_memory
from support.axe import serious_violations

pytestmark = pytest.mark.browser
PAGE = "agents/memory-explainer/"
WIDGET = ".lllm-timetravel[data-demo=memory]"


def settle(page) -> str:
    page.wait_for_function(f"() => ['done', 'error'].includes(document.querySelector('{WIDGET}').dataset.state)",
                           timeout=600_000)
    return page.evaluate(f"() => document.querySelector('{WIDGET}').dataset.state")


def test_memory_time_travel_in_chromium_at_390px(browser, site_server, tmp_path):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(site_server.url + PAGE)
        page.wait_for_function("() => Boolean(window.lllm)")
        root = page.locator(WIDGET)
        root.locator(".lllm-tt__run").click()
        assert settle(page) == "done"
        steps = root.locator(".lllm-tt__step")
        assert steps.count() == 6 and root.locator(".lllm-tt__memory").inner_text() == "(empty)"
        steps.nth(3).click()                                        # step 4, in goal 2: its memory holds goal 1's answer
        assert "agent: 391" in root.locator(".lllm-tt__memory").inner_text()
        for _ in range(3):                                          # step back to step 1
            root.locator(".lllm-tt__prev").click()
        assert root.locator(".lllm-tt__step[aria-current=step]").inner_text() == "1"
        assert root.locator(".lllm-tt__prev").is_disabled()
        root.locator("[name=edit-observation]").fill("400")
        root.locator(".lllm-tt__rerun").click()
        assert settle(page) == "done" and root.locator(".lllm-tt__error").inner_text() == ""
        tree = root.locator("[role=tree] [role=treeitem]")
        assert [tree.nth(i).get_attribute("data-branch") for i in range(tree.count())] == ["1", "2"]
        assert root.locator("[role=tree] [role=group] [role=treeitem]").get_attribute("aria-selected") == "true"
        assert root.locator(".lllm-tt__diff-summary").inner_text() == "First difference: step 1."
        assert root.locator(".lllm-tt__first-diff th").inner_text() == "step 1 (goal 1) (first difference)"
        steps.nth(2).click()                                        # branch 2, step 3: goal 2 now remembers 400
        assert "agent: 400" in root.locator(".lllm-tt__memory").inner_text()
        record = page.evaluate(f"() => document.querySelector('{WIDGET}').lllmRecord")
        spec = page.evaluate(f"() => document.querySelector('{WIDGET}').lllmSpec")
        assert spec["version"] == 2 and spec["demo"] == "memory" and spec["edits"] == [{"parent": 1, "step": 1, "observation": "400"}]
        expected = travel_memory(spec)                              # the oracle: the same spec in CPython
        assert record == json.loads(json.dumps(expected))
        assert [t["answer"] for t in record["branches"][1]["turns"]][:2] == ["400", "409"]
        trace = page.evaluate(f"() => document.querySelector('{WIDGET} .lllm-tt__trace').textContent")
        assert trace == memory_trace_text(expected)
        run_file = tmp_path / "session.json"
        run_file.write_text(page.evaluate(f"() => document.querySelector('{WIDGET}').lllmExportText()"), encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file)], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
        assert (done.returncode, done.stderr, done.stdout) == (0, "", trace)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        page.evaluate(f"() => document.querySelectorAll('{WIDGET} details').forEach(d => d.open = true)")
        assert serious_violations(page) == []
        watched.assert_clean()
    finally:
        context.close()
