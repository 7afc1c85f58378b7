"""`python -m lllm grade RECORD`: the same result as the library, exit 0 on a pass, 1 on a fail, and one
sentence (status 2, no traceback) for a record that cannot be graded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lllm.labs.final.record import to_link
from support.final_record import record

ROOT = Path(__file__).resolve().parents[2]


def grade(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lllm", "grade", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_a_passing_record_exits_0(tmp_path):
    path = tmp_path / "final-record.json"
    path.write_text(json.dumps(record(77)), encoding="utf-8")
    done = grade(path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        f"Re-graded now from seed 77 (site version {record(77)['site_version']}), for Ada Lovelace, 12 min 34 s taken.",
        "Passed: 12 of 12 answers right (10 needed), the exercise passed 8 of 8 hidden checks."]


def test_a_failing_record_exits_1_naming_what_did_not_check_and_where_to_reread(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record(77, wrong=3)), encoding="utf-8")
    done = grade(path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[1].startswith("Not passed: 9 of 12") and lines[2].startswith("Question 1 (")
    assert lines[-1].startswith("Re-read: ")


def test_a_link_is_graded_like_its_file():
    done = grade(to_link(record(78), "http://127.0.0.1:8000/course/final/"))
    assert done.returncode == 0 and "Passed: 12 of 12" in done.stdout


@pytest.mark.parametrize("text, sentence", [
    ("{", "The record is not JSON: it was cut short or edited by hand."),
    ("[]", "The record must be a JSON object with the fields of an lllm.final-record."),
    (json.dumps(record(77) | {"seed": 78}), "The record's seed 78 does not give the questions it was sat with: its seed or its fingerprint was edited."),
    (json.dumps(record(77) | {"passed": True}), "The record has a field 'passed' that no final record has."),
])
def test_a_record_that_cannot_be_graded_is_one_sentence(tmp_path, text, sentence):
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    done = grade(path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"lllm grade: error: {sentence}\n")


def test_a_missing_file_is_one_sentence(tmp_path):
    done = grade(tmp_path / "none.json")
    assert done.returncode == 2 and done.stderr == f"lllm grade: error: cannot read {tmp_path / 'none.json'}: No such file or directory\n"
