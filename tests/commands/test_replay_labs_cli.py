"""`python -m lllm replay` (lllm/commands/replay.py) for the workflow, oversight and debate run files: the page's trace, exit 1 when a
recorded branch differs, one line and status 2 for a malformed file."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lllm.timetravel.demos import any_trace_text, travel_any

ROOT = Path(__file__).resolve().parents[2]
SPECS = {
    "workflow": {"inputs": {"goal": "What is 17 * 23?"}, "edits": [{"parent": 1, "step": 4, "text": "400"}]},
    "oversight": {"inputs": {"goal": "What is 17 * 23?"}, "edits": [{"parent": 1, "step": 2, "decision": "inject 400"}]},
    "debate": {"inputs": {"question": "What is 48 plus 17?"}, "edits": [{"parent": 1, "step": 6, "answer": "70"}]},
}


def replay(path):
    return subprocess.run([sys.executable, "-m", "lllm", "replay", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("demo", sorted(SPECS))
def test_replay_prints_the_trace_and_names_a_changed_branch(tmp_path, demo):
    record = travel_any({"schema": "lllm-run", "version": 2, "demo": demo, **SPECS[demo]})
    (tmp_path / "run.json").write_text(json.dumps(record))
    done = replay(tmp_path / "run.json")
    assert (done.returncode, done.stderr, done.stdout) == (0, "", any_trace_text(record))
    assert "== branch 2: from branch 1, step " in done.stdout and " (edited)\n" in done.stdout
    record["branches"][1]["steps"][-1]["fields"] = {"text": "changed by hand"}
    (tmp_path / "run.json").write_text(json.dumps(record))
    changed = replay(tmp_path / "run.json")
    assert (changed.returncode, changed.stdout) == (1, done.stdout)
    assert changed.stderr == f"lllm replay: branch 2 differs from what {tmp_path / 'run.json'} recorded\n"


def test_a_malformed_stepped_file_is_one_line_and_status_2(tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps({"schema": "lllm-run", "version": 2, "demo": "debate",
                                                   "inputs": {"question": "q"}, "edits": [{"parent": 1, "step": 0, "answer": "1"}]}))
    bad = replay(tmp_path / "bad.json")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == f"lllm replay: error: {tmp_path / 'bad.json'}: field edits[0].step must be an integer between 1 and 40, got 0\n"
