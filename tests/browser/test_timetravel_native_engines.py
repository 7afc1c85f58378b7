"""Time travel on the native Agent page in Firefox and WebKit (one launch per engine), on TinyLLM in the page
(sampled, a predictor seeded per model call): run, edit the user's message, run from there; two branches in
the tree, branch 2 a fork of branch 1's dialog split after message 3 keeping the first 1, message 2 marked
as the first difference, the same record as CPython, `python -m lllm replay` on the export prints the page's
trace exactly, and the link opened in a new document recomputes both branches. Chromium, the keyboard,
390 px and axe-core are in test_timetravel_native_chromium.py; the page functions are
tests/support/timetravel_native_scenario.js and timetravel_link.js."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from lllm.timetravel.native import native_trace_text, travel_native
from support import engines

pytestmark = pytest.mark.browser
PAGE = "native/agent/"
SCRIPT = ROOT / "tests" / "support" / "timetravel_native_scenario.js"
LINK = ROOT / "tests" / "support" / "timetravel_link.js"
ARG = {"demo": "native-agent", "brain": "tinyllm", "step": 2, "field": "content", "value": "The fox ran"}


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_native_agent_time_travel_and_its_link_in(engine, site_server, tmp_path):
    out = getattr(engines, engine)(site_server.url + PAGE, ARG, script=SCRIPT, then=(LINK, None))
    report, linked = out["report"], out["linked"]
    assert "fatal" not in report, report.get("fatal")
    assert report["first"] == {"state": "done", "steps": 3, "error": ""} and report["error"] == ""
    assert [(t["branch"], t["selected"], t["level"]) for t in report["tree"]] == [("1", "false", "tree"), ("2", "true", "group")]
    assert "split from solver.main-0 after message 3, kept the first 1" in report["tree"][1]["text"]
    assert report["difference"] == "First difference: step 2."
    spec = {k: report["record"][k] for k in ("schema", "version", "demo", "inputs", "edits")}
    assert spec["edits"] == [{"parent": 1, "step": 2, "content": "The fox ran"}]
    expected = travel_native(spec)                              # the oracle: TinyLLM's sampled text in CPython
    assert report["record"] == json.loads(json.dumps(expected)) and report["trace"] == native_trace_text(expected)
    run_file = tmp_path / "native-run.json"
    run_file.write_text(report["exported"], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", report["trace"])
    assert (linked["state"], linked["branches"], linked["trace"]) == ("done", 2, report["trace"]), linked
    assert linked["record"] == report["record"]
    assert out["console"] == []
