"""Layer 4 · scoring, in one place: `answer_matches(answer, expected) -> bool` and `squash(text)`.

Read `reliability.py` and `factory/episodes.py` next: they, the evaluator, the factory's before/after check and the
debate all compare answers here, so one rule holds everywhere. (A trajectory's own steps — the
ones the model wrote, not the forced one and not a predictor failure — are
`Trajectory.own_steps`, next to the record in `lllm/agents/react.py`.)

Two strengths of match, one rule for each kind of answer:

    numbers   compared as numbers (391 == 391.0), never as text
    text      compared squashed: case, spaces and a final period ignored
    exact     the whole answer is the expected one (training data, the debate's agreement)
    lenient   (the default) a number is the answer's last number ("17 * 23 = 391" credits 391);
              text is found inside the answer ("Pip is Mira's grey cat." credits "grey cat")

Usage:

    >>> answer_matches("17 * 23 = 391", "391"), answer_matches("17 * 23 = 391", "391", exact=True)
    (True, False)
    >>> answer_matches("391.0", "391", exact=True), answer_matches("Grey cat.", "grey cat", exact=True)
    (True, True)
    >>> answer_matches(None, "391")
    False
"""

from __future__ import annotations

import re

__all__ = ["squash", "as_number", "answer_matches"]

NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")
TOLERANCE = 1e-6


# --8<-- [start:answer_matches]
def squash(text: str) -> str:
    """`text` lower-cased, without spaces or a final period: how text answers are compared."""
    return "".join(text.lower().split()).rstrip(".")


def as_number(text: str) -> float | None:
    """`text` as a number when the whole of it is one (commas between digits allowed), else None."""
    cleaned = text.strip().rstrip(".").replace(",", "")
    return float(cleaned) if NUMBER_RE.fullmatch(cleaned) else None


def answer_matches(answer: str | None, expected: str, *, exact: bool = False) -> bool:
    """Does `answer` give `expected`? Numbers as numbers, text squashed; `exact` wants the whole
    answer, otherwise the answer's last number (or, for text, the expected words within it)."""
    if answer is None:
        return False
    wanted = as_number(expected)
    if wanted is not None:
        found = as_number(answer) if exact else next(
            (float(n) for n in reversed(NUMBER_RE.findall(answer.replace(",", "")))), None)
        return found is not None and abs(found - wanted) < TOLERANCE
    return squash(answer) == squash(expected) if exact else squash(expected) in squash(answer)
# --8<-- [end:answer_matches]
