"""Time travel on the debate page in Firefox and WebKit (one launch per engine; Chromium is
test_timetravel_labs_chromium.py): run, go back to agent-2's round-1 turn with the timeline's keys, edit
its answer, run from there; two branches, step 6 marked as the first difference, the same record as
CPython, the export replays in the terminal to the page's trace, a malformed file is one sentence naming
the field, and the link (the same launch's tab navigated to it: a new document that recomputes everything
from the fragment) shows the same two branches. Page functions: tests/support/timetravel_steps_scenario.js
and timetravel_link.js."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from lllm.timetravel.debate import debate_trace_text, travel_debate
from support import engines

pytestmark = pytest.mark.browser
PAGE = "agents/debate/"
SCRIPT = ROOT / "tests" / "support" / "timetravel_steps_scenario.js"
LINK = ROOT / "tests" / "support" / "timetravel_link.js"
ARG = {"demo": "debate", "edits": [{"step": 6, "field": "answer", "value": "70"}]}
SPEC = {"schema": "lllm-run", "version": 2, "demo": "debate",
        "inputs": {"question": "What is 48 plus 17?", "rounds": 1, "seed": 0}, "edits": [{"parent": 1, "step": 6, "answer": "70"}]}


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_debate_time_travel_and_its_link_in(engine, site_server, tmp_path):
    out = getattr(engines, engine)(site_server.url + PAGE, ARG, script=SCRIPT, then=(LINK, None))
    report, linked = out["report"], out["linked"]
    assert "fatal" not in report, report.get("fatal")
    assert report["first"] == {"state": "done", "steps": 8, "error": ""} and report["errors"] == [""]
    assert report["current"] == "6"
    assert report["tree"] == [{"branch": "1", "selected": "false", "level": "tree"},
                              {"branch": "2", "selected": "true", "level": "group"}]
    assert report["difference"] == "First difference: step 6."
    assert report["marked"] == "step 6: agent-2, round 1 (first difference)"
    expected = travel_debate(SPEC)                               # the oracle: the same spec in CPython
    assert report["record"] == json.loads(json.dumps(expected)) and report["trace"] == debate_trace_text(expected)
    run_file = tmp_path / "debate.json"
    run_file.write_text(report["exported"], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", report["trace"])
    assert report["malformed"] == {"error": "field inputs.question must be non-empty text, got None", "trace": True, "branches": 2}
    assert (linked["state"], linked["branches"], linked["trace"]) == ("done", 2, report["trace"]), linked
    assert linked["record"] == report["record"]
    assert out["console"] == []
