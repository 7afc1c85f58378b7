"""The ReAct demo's own trace opened to the numbers, in Firefox and WebKit (Chromium's, with the hand-over to
time travel, is test_agents_browser.py): the agent-tuned TinyLLM's run in the demo, "Look inside" its step 1,
a character of its Thought opened in the page (onnxruntime-web, no Python for the view) equals
`python -m lllm replay RUN.json --inside 1:1:C --json` on the same run to 1e-4, with its four members' votes;
the demo's calls are the prompts time travel's branch 1 saw. The page function is
tests/support/demo_inside_scenario.js; one launch per engine."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from lllm.timetravel.react import travel
from support import engines
from support.model_files import require_agent_model

pytestmark = pytest.mark.browser
SCRIPT = ROOT / "tests" / "support" / "demo_inside_scenario.js"
INPUTS = {"goal": "What is 17 * 23?", "brain": "tinyllm-agent", "max_steps": 2}
C = 3


def replay_inside(run_file) -> dict:
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file), "--inside", f"1:1:{C}", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_a_character_of_the_demos_trace_opens_to_the_terminals_numbers_in(engine, site_server, tmp_path):
    require_agent_model()
    out = getattr(engines, engine)(site_server.url + "agents/react/", {"inputs": INPUTS, "c": C}, script=SCRIPT)
    report = out["report"]
    assert "fatal" not in report, report.get("fatal")
    assert report["state"] == "done" and report["buttons"] == 2              # both steps the model wrote
    params = report["params"]            # the seed and temperature boxes as the page left them (greedy: no effect)
    inputs = INPUTS | {"seed": params["seed"], "temperature": params["temperature"]}
    record = travel({"inputs": inputs})
    assert [c["prompt"] for c in report["calls"]] == [s["prompt"] for s in record["branches"][0]["steps"]]
    assert report["drill"] == "done", report["text"]
    run_file = tmp_path / "run.json"
    run_file.write_text(json.dumps(record), encoding="utf-8")
    want, view = replay_inside(run_file), report["view"]
    assert view["drawn"] == want["drawn"] and view["draw"]["char"] == want["draw"]["char"] == want["drawn"][C - 1]
    assert view["logits"] == pytest.approx(want["logits"], abs=1e-4)
    assert [m["argmax"] for m in view["members"]] == [m["argmax"] for m in want["members"]]
    for mine, theirs in zip(view["members"], want["members"]):
        assert mine["logits"] == pytest.approx(theirs["logits"], abs=1e-4)
    assert report["write"] and want["drawn"][C - 1] not in report["write"]    # the other candidates, to hand over
    assert out["console"] == []
