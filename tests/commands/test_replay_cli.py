"""`python -m lllm replay RUN.json` (lllm/commands/replay.py): the shared trace, exit 1 when the file's branches differ, one line for a bad file."""

import json
import subprocess
import sys
from pathlib import Path

from lllm.timetravel.react import trace_text, travel

ROOT = Path(__file__).resolve().parents[2]
SPEC = {"schema": "lllm-run", "version": 1, "inputs": {"goal": "What is 17 * 23?", "brain": "rule"},
        "edits": [{"parent": 1, "step": 1, "observation": "400"}]}


def replay(path):
    return subprocess.run([sys.executable, "-m", "lllm", "replay", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_replay_prints_the_trace_of_the_file(tmp_path):
    record = travel(SPEC)
    (tmp_path / "run.json").write_text(json.dumps(record))
    done = replay(tmp_path / "run.json")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == trace_text(record)
    assert "== branch 2: from branch 1, step 1 edited (observation: \"400\")\n" in done.stdout


def test_replay_says_which_recorded_branch_differs(tmp_path):
    record = travel(SPEC)
    record["branches"][1]["answer"] = "401"
    (tmp_path / "run.json").write_text(json.dumps(record))
    done = replay(tmp_path / "run.json")
    assert done.returncode == 1
    assert done.stderr == f"lllm replay: branch 2 differs from what {tmp_path / 'run.json'} recorded\n"


def test_a_malformed_file_is_one_line_and_status_2(tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps({"schema": "lllm-run", "inputs": {"goal": "x", "seed": "one"}}))
    (tmp_path / "broken.json").write_text("{")
    bad, broken = replay(tmp_path / "bad.json"), replay(tmp_path / "broken.json")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == f"lllm replay: error: {tmp_path / 'bad.json'}: field inputs.seed must be an integer >= 0, got 'one'\n"
    assert broken.returncode == 2 and broken.stderr.startswith(f"lllm replay: error: {tmp_path / 'broken.json'} is not valid JSON")
