"""calc: a safe arithmetic evaluator — right answers, clear refusals, never runs code."""

import time

import pytest
from hypothesis import given, settings, strategies as st

from lllm.agents.calc import CalcError, calc, parse


@pytest.mark.parametrize("text, expected", [
    ("17 * 23", "391"),
    ("2 + 3 * 4", "14"),
    ("(2 + 3) * 4", "20"),
    ("144 / 12", "12"),
    ("7 / 2", "3.5"),
    ("7 // 2", "3"),
    ("7 % 4", "3"),
    ("2 ** 10", "1024"),
    ("2 ^ 10", "1024"),
    ("2 ** 3 ** 2", "512"),
    ("-2 ** 2", "-4"),
    ("-(3 - 5)", "2"),
    ("1 / 3", "0.3333333333"),
    ("0.1 + 0.2", "0.3"),
    ("2 ** -2", "0.25"),
])
def test_arithmetic(text, expected):
    assert calc(text) == expected


@pytest.mark.parametrize("text, message", [
    ("", "empty expression"),
    ("10 / 0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("0 ** -1", "division by zero"),
    ("1 +", "expression ends too early"),
    ("(1 + 2", "missing ')'"),
    ("1 2", "unexpected '2' after a complete expression"),
    ("1.2.3", "malformed number '1.2.3'"),
    ("x + 1", "unexpected character 'x' at position 0"),
    ("(-8) ** 0.5", "result is not a real number"),
])
def test_errors_are_clear(text, message):
    with pytest.raises(CalcError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        calc(text)


@pytest.mark.parametrize("text", [
    "__import__('os').system('echo hacked')",
    "open('/etc/passwd')",
    "(1).__class__",
    "[1, 2]",
    "lambda: 1",
    "1 if 1 else 2",
    "2 and 3",
])
def test_code_is_refused(text):
    with pytest.raises(CalcError, match="unexpected"):
        calc(text)


@pytest.mark.parametrize("text, message", [
    ("9 ** 9 ** 9", "too large"),
    ("10 ** 100000", "too large"),
    ("1.5 ** 100000", "too large"),
    ("2.0 ** 4000", "too large"),
    ("(" * 50 + "1" + ")" * 50, "nested too deeply"),
    ("-" * 150 + "1", "nested too deeply"),
    ("1 + " * 100 + "1", "too long"),
])
def test_hostile_input_is_refused_quickly(text, message):
    start = time.perf_counter()
    with pytest.raises(CalcError, match=message):
        calc(text)
    assert time.perf_counter() - start < 0.1


def test_parse_builds_a_tree():
    assert parse("1 + 2 * 3") == ("+", 1, ("*", 2, 3))
    assert parse("-(4)") == ("neg", 4)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=250))
def test_any_text_gives_a_result_or_a_calc_error(text):
    try:
        result = calc(text)
    except CalcError:
        return
    assert isinstance(result, str) and result


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789+-*/%^(). ", max_size=60))
def test_arithmetic_soup_is_bounded(text):
    start = time.perf_counter()
    try:
        calc(text)
    except CalcError:
        pass
    assert time.perf_counter() - start < 0.5


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6), st.sampled_from("+-*"))
def test_agrees_with_python_on_integers(a, b, op):
    expected = {"+": a + b, "-": a - b, "*": a * b}[op]
    assert calc(f"({a}) {op} ({b})") == str(expected)
