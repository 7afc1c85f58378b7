"""The one table of time-travel demos: every demo a run file may name is a row; a native run goes through
its row (travel, trace and comparison) and only then loads the native runtime, so the other demos' pages
run without Pydantic."""

import json
import subprocess
import sys
from pathlib import Path

from lllm.agents import runfile
from lllm.labs.timetravel.demos import DEMOS, any_trace_text, differing_branch, travel_any

ROOT = Path(__file__).resolve().parents[2]
AGENT = {"schema": "lllm-run", "version": 2, "demo": "native-agent", "inputs": {"goal": "What is 17 * 23?"},
         "edits": [{"parent": 1, "step": 4, "content": "400"}]}
WORKFLOW = {"schema": "lllm-run", "version": 2, "demo": "workflow", "inputs": {"goal": "What is 6 times 7?"},
            "edits": [{"parent": 1, "step": 4, "text": "40"}]}


def test_every_demo_a_run_file_may_name_is_a_row():
    assert sorted(DEMOS) == sorted(runfile.DEMOS)
    assert sorted(runfile.DEMOS) == ["debate", "memory", "native-agent", "native-tactic", "oversight", "react", "workflow"]


def test_a_native_run_goes_through_its_row_travel_trace_and_comparison():
    from lllm.runtimes.native.timetravel import native_trace_text, travel_native
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
