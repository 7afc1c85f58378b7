"""The one table of time-travel demos: every demo a run file may name is a row; a native run goes through
its row (travel, trace and comparison) and only then loads the native runtime, so the other demos' pages
run without Pydantic."""

import json
import subprocess
import sys
from pathlib import Path

import re

import pytest

from hooks import layers

from lllm.timetravel.demos import DEMOS, any_trace_text, differing_branch, travel_any, which_demo

ROOT = Path(__file__).resolve().parents[2]
AGENT = {"schema": "lllm-run", "version": 2, "demo": "native-agent", "inputs": {"goal": "What is 17 * 23?"},
         "edits": [{"parent": 1, "step": 4, "content": "400"}]}
WORKFLOW = {"schema": "lllm-run", "version": 2, "demo": "workflow", "inputs": {"goal": "What is 6 times 7?"},
            "edits": [{"parent": 1, "step": 4, "text": "40"}]}


def test_every_demo_a_run_file_may_name_is_a_row():
    assert sorted(DEMOS) == ["debate", "memory", "native-agent", "native-tactic", "oversight", "react", "workflow"]
    with pytest.raises(ValueError, match="^field demo must be one of react, memory, workflow, oversight, debate, "
                                         "native-agent, native-tactic in a version 2 file, got 'dance'$"):
        which_demo({"version": 2, "demo": "dance"})


def widget_demos() -> list[str]:
    """The keys of the page widget's own `DEMOS` object (site/assets/agents/timetravel.mjs: its controls per demo)."""
    source = (ROOT / "site" / "assets" / "agents" / "timetravel.mjs").read_text(encoding="utf-8")
    body = re.search(r"^const DEMOS = \{\n(.*?)^\};", source, re.M | re.S).group(1)
    return re.findall(r'^  "?([\w-]+)"?: ', body, re.M)


def test_the_pages_widget_has_a_row_for_every_demo_and_no_other():
    """The one list is Python's table; the widget's DEMOS (controls, which Python cannot hold) must follow it."""
    assert widget_demos() == list(DEMOS)


def test_no_module_below_the_labs_names_a_lab_demo():
    """The stepped demos' fields, the debate's brains, the demo tactic live in the labs, not below them."""
    below = [p for folder, layer, _ in layers.FOLDERS if layer < layers.layer_of_folder("labs")
             for p in (ROOT / "lllm" / folder).rglob("*.py")]
    assert {"agents", "runtimes", "predictors"} <= {p.relative_to(ROOT).parts[1] for p in below}
    named = [f"{p.relative_to(ROOT)}: {word}" for p in below for word in ("lllm.labs", "STEPPED", "DEBATE_BRAINS",
             "DECISIONS", "SolveAndExplain", '"oversight"', '"debate"', '"workflow"') if word in p.read_text(encoding="utf-8")]
    assert not named


def test_a_native_run_goes_through_its_row_travel_trace_and_comparison():
    from lllm.timetravel.native import native_trace_text, travel_native
    record = travel_any(AGENT)
    assert record == travel_native(AGENT) and any_trace_text(record) == native_trace_text(record)
    recorded = json.loads(json.dumps(record["branches"]))
    assert differing_branch(recorded, record["branches"]) is None
    recorded[1]["steps"][3]["content"] = "401"
    assert differing_branch(recorded, record["branches"]) == 2


def test_a_stepped_run_is_compared_by_its_own_row():
    record = travel_any(WORKFLOW)
    recorded = json.loads(json.dumps(record["branches"]))
    assert differing_branch(recorded, record["branches"]) is None
    recorded[0]["answer"] = "41"
    assert differing_branch(recorded, record["branches"]) == 1


def test_the_native_runtime_loads_only_for_a_native_run():
    code = ("import json, sys; from lllm.web.timetravel import run_json; "
            "out = json.loads(run_json(json.dumps({'spec': {'version': 2, 'demo': 'workflow', 'inputs': {'goal': 'What is 6 times 7?'}}}))); "
            "print(out['ok'], 'pydantic' in sys.modules, 'lllm.runtimes.native' in sys.modules); "
            "out = json.loads(run_json(json.dumps({'spec': {'version': 2, 'demo': 'native-tactic', 'inputs': {'task': 'Hi'}}}))); "
            "print(out['ok'], 'pydantic' in sys.modules, 'lllm.runtimes.native' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True False False", "True True True"]
