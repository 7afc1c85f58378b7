"""Layer 4 · the course final: `paper(seed)` -> the same questions for the same seed, and `check(q, answer)`.

Read `variants.py` (the templates) and `pool.json` (the units' quizzes, written by
hooks/final_pool.py) first; `record.py` grades a whole record with these. One `random.Random(seed)`
draws everything, in a fixed order: POOL_DRAWS units (one pool question each), every template of
`VARIANTS`, the shuffled order of each choice question, the exercise. So the page's Python and
`python -m lllm grade` build the same paper from a seed, and the paper's `fingerprint` (a hash of
what the learner was shown) names it in a record.

Answers are as the record keeps them: a choice by its key (its place in the question's list, not on
the screen), a multiple choice as a list of keys, a short answer as text (normalised as the quizzes'
are; a number within the question's tolerance).

Usage:

    >>> p = paper(7)
    >>> len(p["questions"]), p["questions"][0]["n"], len(p["fingerprint"])
    (12, 1, 16)
    >>> paper(7)["fingerprint"] == p["fingerprint"] != paper(8)["fingerprint"]
    True
    >>> check({"kind": "short", "answers": ["391"]}, " 391. ")
    True
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import random
from pathlib import Path

from lllm.labs.final.variants import UNITS, VARIANTS, exercise

__all__ = ["POOL_DRAWS", "PASS_FRACTION", "SEED_MAX", "SITE_VERSION", "load_pool", "paper", "public", "check",
           "normalise"]

POOL_DRAWS = 7           # units drawn, one pool question each; with the five templates, 12 questions
PASS_FRACTION = 0.8      # the course's bar for a quiz, here for the final's questions
SEED_MAX = 2**31 - 1
POOL_FILE = Path(__file__).with_name("pool.json")
_POOL = None


def load_pool() -> dict:
    global _POOL
    if _POOL is None:
        _POOL = json.loads(POOL_FILE.read_text(encoding="utf-8"))
    return _POOL


def _digest(data) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _package_version() -> str:
    try:
        return importlib.metadata.version("lllm-learn")
    except importlib.metadata.PackageNotFoundError:     # a checkout run without installing it
        return "unreleased"


# The version a record names: the package's, and the pool it drew from (a changed quiz changes it).
SITE_VERSION = f"{_package_version()}+{_digest(load_pool())[:8]}"


# ---- drawing a paper ---------------------------------------------------------------------------------

def paper(seed: int) -> dict:
    """The final for this seed: {seed, questions (answers included), exercise, fingerprint}."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 1 <= seed <= SEED_MAX:
        raise ValueError(f"the seed must be a whole number from 1 to {SEED_MAX}, not {seed!r}")
    rng = random.Random(seed)
    units = rng.sample(load_pool()["units"], POOL_DRAWS)
    questions = [dict(rng.choice(unit["questions"]), unit=unit["title"]) for unit in units]
    questions += [(q := template(rng)) | {"unit": UNITS[q["teaches"]["page"]]} for template in VARIANTS]
    rng.shuffle(questions)
    for n, q in enumerate(questions, 1):
        q["n"] = n
        if "choices" in q:
            q["order"] = rng.sample(range(len(q["choices"])), len(q["choices"]))
    out = {"seed": seed, "questions": questions, "exercise": exercise(rng)}
    out["fingerprint"] = _digest(public(out))
    return out


def public(p: dict) -> dict:
    """What the learner is shown: the paper without its answers or the exercise's checks."""
    shown = [{k: v for k, v in q.items() if k not in ("answers", "number", "tolerance", "expression")}
             for q in p["questions"]]
    for q in shown:
        if "choices" in q:
            q["choices"] = [{"html": c["html"]} for c in q["choices"]]
    ex = {k: v for k, v in p["exercise"].items() if k != "tests"}
    return {"seed": p["seed"], "questions": shown, "exercise": ex, **({"fingerprint": p["fingerprint"]}
                                                                        if "fingerprint" in p else {})}


# ---- checking one answer -----------------------------------------------------------------------------

def normalise(answer: str) -> str:
    """Short answers: case, spacing, surrounding quotes and final .!? ignored (hooks/quiz_files.py's rule)."""
    text = " ".join(str(answer).split()).lower()
    text = text.rstrip(".!?").strip("'\"`").rstrip(".!?")
    return text.strip()


def check(q: dict, answer) -> bool:
    """Is `answer` (as a record keeps it) right for question `q`? A malformed answer is simply wrong."""
    if q["kind"] == "single":
        return isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(q["choices"]) \
            and q["choices"][answer]["correct"]
    if q["kind"] == "multiple":
        keys = answer if isinstance(answer, list) else []
        right = {i for i, c in enumerate(q["choices"]) if c["correct"]}
        return all(isinstance(k, int) and not isinstance(k, bool) for k in keys) and set(keys) == right
    if not isinstance(answer, str):
        return False
    if "number" in q:
        try:
            return abs(float(normalise(answer)) - q["number"]) <= q["tolerance"]
        except ValueError:
            return False
    return normalise(answer) in q["answers"]
