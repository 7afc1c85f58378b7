"""The course final's records for tests: a learner who knows every answer, and the edits a cheat would make.

`right_answers(paper)` is what a learner who knows the course ticks and types; `solution(paper)` the
exercise's code for that paper's rubric; `record(seed, ...)` a whole record, as the page writes it.
"""

from __future__ import annotations

from lllm.labs.final.exam import SITE_VERSION, paper
from lllm.labs.final.record import SCHEMA, VERSION


def right_answers(p: dict) -> dict:
    out = {}
    for q in p["questions"]:
        if q["kind"] == "single":
            out[q["id"]] = next(i for i, c in enumerate(q["choices"]) if c["correct"])
        elif q["kind"] == "multiple":
            out[q["id"]] = [i for i, c in enumerate(q["choices"]) if c["correct"]]
        elif "number" in q:
            out[q["id"]] = f"{q['number']:.2f}"
        else:
            out[q["id"]] = q["answers"][0]
    return out


def wrong_answer(q: dict):
    if q["kind"] == "single":
        return next(i for i, c in enumerate(q["choices"]) if not c["correct"])
    if q["kind"] == "multiple":
        return []
    return "not the answer"


def solution(p: dict) -> str:
    return (f"RUBRIC = {p['exercise']['rubric']!r}\n\n\ndef total(scores):\n"
            "    return sum(weight * scores.get(name, 0.0) for name, weight in RUBRIC.items())\n")


def record(seed: int, name: str = "Ada Lovelace", wrong: int = 0, code: str | None = None) -> dict:
    """A record of this seed's paper: every answer right but the first `wrong` ones, and `code`
    (default: the paper's solution)."""
    p = paper(seed)
    answers = right_answers(p)
    for q in p["questions"][:wrong]:
        answers[q["id"]] = wrong_answer(q)
    return {"schema": SCHEMA, "version": VERSION, "name": name, "seed": seed, "site_version": SITE_VERSION,
            "fingerprint": p["fingerprint"], "seconds": 754, "answers": answers,
            "code": solution(p) if code is None else code, "finished": "2026-12-07T18:00:00Z"}
