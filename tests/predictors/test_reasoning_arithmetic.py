"""Exact Game of 24 arithmetic and the solver (lllm/predictors/standins/game24_arithmetic.py), checked against brute force."""

import csv
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement

from lllm.predictors.standins.game24_arithmetic import (apply_step, check_answer, evaluate_expression, good_moves,
                                                    legal_moves, solvable, solve, success_probability)
from lllm.reasoning.tasks.game24 import GAME24_CSV, PUZZLE_COLUMN

SOLVER_CSV = GAME24_CSV.replace("game24-4nums.csv", "game24.csv")


@lru_cache(maxsize=None)
def all_values(numbers: tuple) -> frozenset:
    """An independent oracle: every value any bracketing of these numbers can take.

    It splits the numbers into two groups in every way and combines every value of one with
    every value of the other — a different search from the solver's "combine two numbers".
    """
    if len(numbers) == 1:
        return frozenset(numbers)
    out = set()
    for mask in range(1, 2 ** len(numbers) - 1):
        left = tuple(x for i, x in enumerate(numbers) if mask >> i & 1)
        right = tuple(x for i, x in enumerate(numbers) if not mask >> i & 1)
        for a in all_values(left):
            for b in all_values(right):
                out.update((a + b, a - b, a * b))
                if b != 0:
                    out.add(a / b)
    return frozenset(out)


def brute_force(numbers, target=Fraction(24)) -> bool:
    """Can some split into two groups, a from one and b from the other, give a op b == target?"""
    numbers = tuple(sorted(Fraction(n) for n in numbers))
    for mask in range(1, 2 ** len(numbers) - 1):
        left = tuple(x for i, x in enumerate(numbers) if mask >> i & 1)
        right = all_values(tuple(x for i, x in enumerate(numbers) if not mask >> i & 1))
        for a in all_values(left):
            wanted = {target - a, a - target} | ({target / a, a / target} if a != 0 else set())
            if wanted & right:
                return True
    return False


def test_docstring_examples():
    assert apply_step([4, 4, 6, 8], "4 + 8 = 12 (left: 4 6 12)") == ([4, 6, 12], "4 + 8 = 12 (left: 4 6 12)")
    assert apply_step([4, 4, 6, 8], "5 + 8 = 13 (left: 4 4 13)") == (None, "5 is not among the numbers left (4 4 6 8)")
    assert check_answer([4, 4, 6, 8], "(4 + 8) * (6 - 4) = 24") == (True, "(4 + 8) * (6 - 4) = 24")
    assert solve([4, 4, 6, 8]) == ["4 - 6 = -2 (left: -2 4 8)", "-2 + 8 = 6 (left: 4 6)", "4 * 6 = 24 (left: 24)"]


def test_solver_agrees_with_brute_force_on_every_puzzle():
    puzzles = list(combinations_with_replacement(range(1, 14), 4))
    assert len(puzzles) == 1820
    disagree = [p for p in puzzles if solvable(p) != brute_force(p)]
    assert disagree == []
    # The known count for four numbers over 1..13 (e.g. 4nums.com lists 1,362 solvable puzzles).
    assert sum(solvable(p) for p in puzzles) == 1362


def test_every_csv_row_is_solved_by_its_own_solution():
    with open(SOLVER_CSV, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1362
    for row in rows:
        numbers = [int(x) for x in row["puzzle"].split()]
        for step in row["solution"].split(" | "):
            numbers, message = apply_step(numbers, step)
            assert numbers is not None, (row, message)
        assert numbers == [24]
    probabilities = [float(r["success_probability"]) for r in rows]
    assert probabilities == sorted(probabilities, reverse=True)     # easiest first


def test_fractions_are_exact():
    assert check_answer([3, 3, 8, 8], "8 / (3 - 8 / 3) = 24") == (True, "8 / (3 - 8 / 3) = 24")
    left, step = apply_step([3, 3, 8, 8], "8 / 3")
    assert (left, step) == ([Fraction(8, 3), 3, 8], "8 / 3 = 8/3 (left: 8/3 3 8)")
    assert apply_step(left, "3 - 8/3 = 1/3 (left: 1/3 8)")[0] == [Fraction(1, 3), 8]


def test_step_errors_are_messages():
    assert apply_step([4, 6], "4 + 6 = 11 (left: 11)") == (None, "4 + 6 is 10, not 11")
    assert apply_step([4, 6], "4 + 6 = 10 (left: 9)") == (None, "after 4 + 6 the numbers left are 10, not 9")
    assert apply_step([4, 0], "4 / 0") == (None, "4 / 0 divides by zero")
    assert apply_step([4, 6], "four plus six") == (None, "'four plus six' is not of the form 'a op b = c (left: ...)'")
    assert apply_step([4, 4], "4 * 4")[0] == [16]
    assert apply_step([4, 6], "4 * 4")[1] == "4 is not among the numbers left (4 6)"


def test_answer_errors_are_messages():
    assert check_answer([4, 4, 6, 8], "4 * 6 = 24") == (False, "uses 4 6, but the puzzle is 4 4 6 8")
    assert check_answer([4, 4, 6, 8], "4 + 4 + 6 + 8 = 24") == (False, "4 + 4 + 6 + 8 = 22, not 24")
    assert check_answer([1, 2, 3, 4], "4 * 2 * 3 * 1 * 1") == (False, "uses 1 1 2 3 4, but the puzzle is 1 2 3 4")
    assert check_answer([2, 2, 3, 4], "4 / (2 - 2) * 3")[1] == "division by zero in '4 / (2 - 2) * 3'"
    assert check_answer([1, 2, 3, 4], "(1 + 2 = 24") == (False, "missing ')' in '(1 + 2'")
    assert check_answer([1, 2, 3, 4], "") == (False, "expected a number or '(' in ''")
    assert evaluate_expression("1 + 2 * 3") == (7, [1, 2, 3])


def test_moves_and_difficulty():
    assert legal_moves([2, 2]) == ["2 + 2 = 4 (left: 4)", "2 - 2 = 0 (left: 0)", "2 * 2 = 4 (left: 4)",
                                   "2 / 2 = 1 (left: 1)"]
    assert len(legal_moves([1, 2, 3, 4])) == 36
    assert good_moves([4, 6]) == ["4 * 6 = 24 (left: 24)"]
    assert success_probability([4, 6]) == Fraction(1, 6)
    assert success_probability([1, 1, 1, 1]) == 0


def test_the_benchmark_ranking_holds_the_same_puzzles_as_the_solver():
    with open(SOLVER_CSV, newline="") as f:
        ours = {row["puzzle"] for row in csv.DictReader(f)}
    with open(GAME24_CSV, newline="") as f:
        ranked = [row[PUZZLE_COLUMN] for row in csv.DictReader(f)]
    assert len(ranked) == 1362 and set(ranked) == ours
