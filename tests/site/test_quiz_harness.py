"""site/assets/quiz/harness.py: the grader a code attempt runs in the page (and the build runs in CPython)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[2] / "site" / "assets" / "quiz" / "harness.py"
spec = importlib.util.spec_from_file_location("quiz_harness", HARNESS)
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)
TESTS = ['assert double(3) == 6, "double(3) should be 6"', "assert double(0) == 0"]


def test_a_right_answer_passes_every_test():
    assert harness.grade("def double(x):\n    return 2 * x\n", TESTS) == {
        "ok": True, "passed": 2, "total": 2, "message": "All 2 tests passed."}


def test_the_first_failing_test_gives_its_message():
    assert harness.grade("def double(x):\n    return x + 2\n", TESTS) == {
        "ok": False, "passed": 0, "total": 2, "message": "Test 1 of 2 failed: double(3) should be 6"}


def test_an_error_inside_a_test_is_named():
    result = harness.grade("def double(x):\n    return 2 * x if x else 1 // x\n", TESTS)
    assert result["passed"] == 1
    assert result["message"] == "Test 2 of 2 failed: ZeroDivisionError: integer division or modulo by zero"


def test_code_that_does_not_parse_says_where():
    assert harness.grade("def double(x:\n    return x\n", TESTS)["message"].startswith(
        "Your code does not parse: SyntaxError on line 1")


def test_code_that_raises_is_reported_not_propagated():
    assert harness.grade("raise SystemExit(3)", TESTS)["message"] == "Your code raised SystemExit: 3"


def test_each_grade_starts_from_a_fresh_namespace():
    harness.grade("def double(x):\n    return 2 * x\n", TESTS)
    assert harness.grade("pass", TESTS)["message"] == "Test 1 of 2 failed: NameError: name 'double' is not defined"
