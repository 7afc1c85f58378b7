"""Time travel on the ReAct page in Chromium, Firefox and WebKit (one launch per engine): run on the
agent-tuned TinyLLM, go back to step 1, edit the observation, run from there; two branches in the tree,
step 1 marked as the first difference, the same record as CPython's `travel`, and `python -m lllm replay`
on the page's export prints the page's trace exactly. The link opened elsewhere (a fresh Chromium
context; in Firefox and WebKit the same launch's tab navigated to it, a new document that recomputes
everything from the fragment) shows the same two runs. Chromium also checks the keyboard, 390 px,
axe-core and a malformed link. The page functions are tests/support/timetravel_scenario.js and
timetravel_link.js."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.timetravel.react import trace_text, travel
from support import engines
from support.axe import serious_violations

pytestmark = pytest.mark.browser
PAGE = "agents/react/"
SCRIPT = ROOT / "tests" / "support" / "timetravel_scenario.js"
LINK = ROOT / "tests" / "support" / "timetravel_link.js"       # what the link shows, once recomputed
ARG = {"goal": "What is 17 * 23?", "brain": "tinyllm-agent", "observation": "400"}


def spec_of(link: str) -> dict:
    fragment = link.split("#run=", 1)[1]
    return json.loads(base64.urlsafe_b64decode(fragment + "=" * (-len(fragment) % 4)))


def check(report: dict, tmp_path) -> None:
    assert "fatal" not in report, report.get("fatal")
    assert report["first"] == {"state": "done", "steps": 2, "error": ""}
    assert report["current"] == "1" and report["error"] == ""
    assert report["tree"] == [{"branch": "1", "selected": "false", "level": "tree"},
                              {"branch": "2", "selected": "true", "level": "group"}]    # branch 2 hangs under branch 1
    assert report["difference"] == "First difference: step 1." and report["marked"] == "step 1 (first difference)"
    spec = spec_of(report["link"])
    assert spec == {"schema": "lllm-run", "version": 1, "inputs": {"goal": ARG["goal"], "brain": "tinyllm-agent", "seed": 0,
                    "temperature": 0.8, "max_steps": 5, "script": ""},
                    "edits": [{"parent": 1, "step": 1, "observation": "400"}]}
    expected = travel(spec)                                     # the oracle: the same spec in CPython
    assert report["record"] == json.loads(json.dumps(expected))
    assert report["trace"] == trace_text(expected)
    run_file = tmp_path / "lllm-run.json"
    run_file.write_text(report["exported"], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == report["trace"]                       # the terminal prints what the page showed
    assert report["malformed"] == {"error": "field inputs.seed must be an integer >= 0, got -1", "trace": True, "branches": 2}


def settled(page) -> str:
    page.wait_for_function("() => ['done', 'error'].includes(document.querySelector('.lllm-timetravel')?.dataset.state)",
                           timeout=900_000)
    return page.evaluate("() => document.querySelector('.lllm-timetravel').dataset.state")


def test_chromium_keyboard_390px_axe_and_the_link_in_a_fresh_context(browser, site_server, tmp_path):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(site_server.url + PAGE)
        report = page.evaluate(SCRIPT.read_text(encoding="utf-8"), ARG)
        check(report, tmp_path)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        # the keyboard alone: the tree moves with ↑ and opens a branch with Enter; the timeline with → and ←
        page.focus(".lllm-tt__tree [aria-selected=true]")
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        assert page.evaluate("() => document.activeElement.dataset.branch") == "1"
        assert page.evaluate("() => document.querySelector('.lllm-tt__tree [aria-selected=true]').dataset.branch") == "1"
        page.focus(".lllm-tt__step[aria-current=step]")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => [document.querySelector('.lllm-tt__step[aria-current=step]').textContent, document.activeElement.textContent]") == ["2", "2"]
        page.keyboard.press("ArrowLeft")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "step 1: action"
        page.evaluate("() => document.querySelectorAll('.lllm-timetravel details').forEach(d => d.open = true)")
        assert serious_violations(page) == []
        watched.assert_clean()
    finally:
        context.close()
    fresh = browser.new_context(service_workers="block")        # the link in a fresh profile: the same two runs
    try:
        other = fresh.new_page()
        other.goto(report["link"])
        linked = other.evaluate(LINK.read_text(encoding="utf-8"))
        assert (linked["state"], linked["branches"], linked["trace"]) == ("done", 2, report["trace"]), linked
        assert linked["record"] == report["record"] and linked["inView"], "the linked widget was not scrolled into view"
        other.goto(site_server.url + PAGE + "#run=not-base64!")
        other.reload()
        assert settled(other) == "error"
        assert other.evaluate("() => document.querySelector('.lllm-tt__error').textContent") == (
            "The link's run could not be read: after #run= it must be base64url-encoded JSON.")
    finally:
        fresh.close()


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_time_travel_and_its_link_in(engine, site_server, tmp_path):
    out = getattr(engines, engine)(site_server.url + PAGE, ARG, script=SCRIPT, then=(LINK, None))
    report, linked = out["report"], out["linked"]
    check(report, tmp_path)
    assert (linked["state"], linked["branches"], linked["trace"]) == ("done", 2, report["trace"]), linked
    assert linked["record"] == report["record"] and linked["inView"], "the linked widget was not scrolled into view"
    assert out["console"] == []
