"""The agent-model page's write-your-own box in Firefox and WebKit (Chromium: test_agent_model_browser.py):
each typed goal's run and verdict are CPython's (tests/support/judge_scenario.js; the drivers are tests/support/engines.py)."""

from __future__ import annotations

import json

import pytest

from support import engines
from lllm.web.demos import run_json

pytestmark = pytest.mark.browser
PAGE = "agents/agent-model/"
GOALS = ["What is 48 plus 17, Kim has 3 kites?", "WHAT IS 31 MULTIPLIED BY 4?", "How old is Tom?"]
SCRIPT = engines.ROOT / "tests" / "support" / "judge_scenario.js"


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_the_typed_goal_box_is_cpythons_in(engine, site_server):
    out = getattr(engines, engine)(site_server.url + PAGE, {"goals": GOALS}, script=SCRIPT)
    report = out["report"]
    assert "fatal" not in report, report.get("fatal")
    assert [run["state"] for run in report["runs"]] == ["done"] * len(GOALS), report["runs"]
    for goal, run in zip(GOALS, report["runs"]):
        expected = json.loads(run_json(json.dumps({"demo": "judge", "goal": goal})))
        assert run["result"] == expected, goal
        assert run["shown"]["text"] == expected["verdict"]
    assert [run["shown"]["verdict"] for run in report["runs"]] == ["wrong", "right", "unknown"]
    assert out["console"] == []
