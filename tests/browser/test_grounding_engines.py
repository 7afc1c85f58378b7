"""The ReAct demo labels an answer that rests on nothing, in Firefox and WebKit (Chromium:
test_agents_browser.py): the agent-tuned brain copies a goal word, and the page shows CPython's verdict
(tests/support/grounding_scenario.js; the drivers are tests/support/engines.py)."""

from __future__ import annotations

import json

import pytest

from support import engines
from support.model_files import require_agent_model
from lllm.web.demos import run_json

pytestmark = pytest.mark.browser
PAGE = "agents/react/"
GOALS = {"What is the capital of France?": "capital", "Where does Lina live?": "Where", "Who is Pip?": None}
SCRIPT = engines.ROOT / "tests" / "support" / "grounding_scenario.js"
LABEL = "not grounded in any observation: no tool answered; the answer only repeats words of the goal"


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_the_react_demo_labels_an_ungrounded_answer_in(engine, site_server):
    require_agent_model()
    out = getattr(engines, engine)(site_server.url + PAGE, {"goals": list(GOALS)}, script=SCRIPT)
    report = out["report"]
    assert "fatal" not in report, report.get("fatal")
    assert [run["state"] for run in report["runs"]] == ["done"] * len(GOALS), report["runs"]
    for (goal, copied), run in zip(GOALS.items(), report["runs"]):
        assert run["result"] == json.loads(run_json(json.dumps(run["params"]))), goal
        if copied:
            assert run["answer"] == f"Final answer: {copied} — {LABEL}" and run["flagged"], goal
        else:                                     # a lookup that answered: grounded, no label
            assert run["answer"] == "Final answer: Pip is Mira's grey cat." and not run["flagged"], goal
    assert out["console"] == []
