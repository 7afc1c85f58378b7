"""Build helper · quiz fairness: a quiz file fails when its right answers are the longest choice more often than chance.

Read hooks/quiz_files.py (how quiz files are read and checked) first; hooks/quiz.py runs this check
with the others when the site builds. Test-takers learn fast that the longest, most careful choice
is usually the right one; if it is, a quiz measures reading of lengths, not understanding. The
page already shuffles the order of choices per learner (site/assets/quiz/order.mjs), so length is
the cue left to check.

Under the null hypothesis (length carries no cue) the longest choice of a question with n choices,
k of them right, is a right one with probability k/n. The number of questions of a file whose longest
choice is right is then a sum of such coin flips (a Poisson-binomial count); the file fails when
the chance of seeing at least as many is below ALPHA (a one-sided exact test, no approximation):

    >>> round(tail([0.25, 0.25, 0.25], 3), 4)      # three 4-choice questions, all longest-right
    0.0156
    >>> visible("Returns `None` &amp; *stops*")
    'Returns None & stops'

Length is the text a learner sees (Markdown rendered, tags dropped), as the page shows it. The
cue is a right choice longer than every wrong one; a tie for longest gives nothing away.
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import markdown

from hooks.quiz_files import Quiz, QuizError

ALPHA = 0.05    # the significance level: a fair file fails this check about once in twenty files at most


def visible(text: str) -> str:
    """What the page shows of a choice: Markdown rendered inline, tags dropped, spacing collapsed."""
    rendered = markdown.markdown(str(text), extensions=["attr_list"])
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", rendered)).split())


def longest_is_right(choices: list[dict]) -> bool:
    """Is a right choice longer than every wrong one (what a learner who picks the longest would get)?"""
    right = [len(visible(c["text"])) for c in choices if c.get("correct") is True]
    wrong = [len(visible(c["text"])) for c in choices if c.get("correct") is not True]
    return bool(right) and max(right) > max(wrong, default=-1)


def chance(choices: list[dict]) -> float:
    """The probability that the longest of these choices is a right one when length carries no cue."""
    return sum(c.get("correct") is True for c in choices) / len(choices)


def tail(rates: list[float], observed: int) -> float:
    """P(X >= observed) for X the number of successes of independent trials with these rates."""
    dist = [1.0]                                       # dist[j] = P(j successes so far)
    for p in rates:
        dist = [(dist[j] if j < len(dist) else 0.0) * (1 - p) + (dist[j - 1] * p if j else 0.0)
                for j in range(len(dist) + 1)]
    return sum(dist[observed:])


def choice_questions(quiz) -> list[dict]:
    return [q for q in quiz.questions if q.get("kind") in ("single", "multiple")
            and isinstance(q.get("choices"), list) and len(q["choices"]) >= 2
            and all(isinstance(c, dict) and isinstance(c.get("text"), str) for c in q["choices"])]


def longest_right(quizzes) -> tuple[list, list[float]]:
    """([(quiz, question) whose longest choice is right], [chance of that, per choice question])."""
    hits, rates = [], []
    for quiz in quizzes:
        for q in choice_questions(quiz):
            rates.append(chance(q["choices"]))
            if longest_is_right(q["choices"]):
                hits.append((quiz, q))
    return hits, rates


def _problem(hits: list, rates: list[float], alpha: float, named: str) -> str | None:
    p = tail(rates, len(hits))
    if not rates or p >= alpha:
        return None
    return (f"the right answer is the longest choice in {len(hits)} of {len(rates)} choice questions "
            f"(chance alone gives {sum(rates):.1f}; p = {p:.4f} < {alpha}): {named}; lengthen or sharpen "
            f"the wrong choices, or tighten the right one, so that length gives nothing away")


def length_cue_errors(quizzes: dict[str, Quiz], alpha: float = ALPHA) -> list[QuizError]:
    """An error per quiz file whose right answers are longest beyond chance; and, when no single file
    fails, one for all files together (a bias spread thinly over small files is still a cue)."""
    errors = []
    for quiz in quizzes.values():
        hits, rates = longest_right([quiz])
        problem = _problem(hits, rates, alpha, ", ".join(str(q.get("id")) for _, q in hits))
        if problem:
            errors.append(QuizError(quiz.path, hits[0][1].line, None, problem))
    hits, rates = longest_right(quizzes.values())
    by_file = {}
    for quiz, q in hits:
        by_file.setdefault(quiz.path, []).append(str(q.get("id")))
    problem = _problem(hits, rates, alpha, "; ".join(f"{path} ({', '.join(ids)})" for path, ids in by_file.items()))
    if problem and not errors:
        folder = Path(next(iter(quizzes.values())).path).parent.as_posix()
        errors.append(QuizError(f"{folder}/*.yml", 1, None, "all files together: " + problem))
    return errors
