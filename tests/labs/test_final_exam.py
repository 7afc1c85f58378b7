"""lllm/labs/final/exam.py and variants.py: a seed gives one paper, two seeds two; the templates' answers
come from the library; the variants give nothing away by place or by length; the exercise is per seed."""

from __future__ import annotations

import random

from hooks.final_pool import heading_ids
from hooks.quiz_fairness import longest_right, tail
from hooks.quiz_files import ROOT, Quiz
from lllm.agents.calc import calc
from lllm.labs.final.exam import check, paper, public
from lllm.labs.final.record import run_exercise
from lllm.labs.final.variants import VARIANTS, calc_observation, cross_entropy, exercise
from support.final_record import right_answers, solution

SEEDS = range(1, 201)


def numbers(p: dict) -> str:
    return "".join(q["prompt"] for q in p["questions"] if q["id"].startswith("final-"))


def test_a_seed_gives_one_paper_and_two_seeds_two():
    assert paper(7) == paper(7)
    assert numbers(paper(7)) != numbers(paper(8))
    assert paper(7)["exercise"]["rubric"] != paper(8)["exercise"]["rubric"]
    assert paper(7)["fingerprint"] != paper(8)["fingerprint"]


def test_every_seed_gives_twelve_questions_from_seven_units_and_every_template():
    for seed in (1, 2, 99, 2**31 - 1):
        qs = paper(seed)["questions"]
        assert [q["n"] for q in qs] == list(range(1, 13))
        assert sum(q["id"].startswith("final-") for q in qs) == len(VARIANTS) == 5
        assert len({q["unit"] for q in qs if not q["id"].startswith("final-")}) == 7


def test_the_shown_paper_holds_no_answer():
    shown = str(public(paper(3)))
    assert "'correct'" not in shown and "'answers'" not in shown and "assert" not in shown


def test_template_answers_are_the_librarys():
    q = calc_observation(random.Random(4))
    assert q["answers"] == [calc(q["expression"])] and check(q, q["answers"][0]) and not check(q, "0")
    ce = cross_entropy(random.Random(4))
    assert check(ce, f"{ce['number']:.2f}") and not check(ce, f"{ce['number'] + 0.05:.2f}") and not check(ce, "two")


def test_right_answers_check_and_wrong_kinds_do_not():
    p = paper(21)
    answers = right_answers(p)
    assert all(check(q, answers[q["id"]]) for q in p["questions"])
    assert not any(check(q, True) or check(q, None) or check(q, [99]) for q in p["questions"])


def test_the_variants_teach_real_headings():
    for template in VARIANTS:
        t = template(random.Random(1))["teaches"]
        assert t["anchor"] in heading_ids((ROOT / "site" / t["page"]).read_text(encoding="utf-8")), t
    t = exercise(random.Random(1))["teaches"]
    assert t["anchor"] in heading_ids((ROOT / "site" / t["page"]).read_text(encoding="utf-8"))


def test_the_variants_pass_the_quiz_fairness_check():
    """Over 200 papers: the right choice is not the longest, nor shown first, more often than chance."""
    questions, first, rates = [], 0, []
    for seed in SEEDS:
        for q in paper(seed)["questions"]:
            if q["id"].startswith("final-") and "choices" in q:
                questions.append({"id": q["id"], "kind": q["kind"], "line": 1,
                                  "choices": [{"text": c["html"], "correct": c["correct"]} for c in q["choices"]]})
                first += q["choices"][q["order"][0]]["correct"]
                rates.append(sum(c["correct"] for c in q["choices"]) / len(q["choices"]))
    hits, length_rates = longest_right([Quiz(topic="final", path="final", title="final", questions=questions)])
    assert len(questions) == 400                  # two choice templates in each of 200 papers
    assert tail(length_rates, len(hits)) >= 0.05, f"longest right in {len(hits)} of {len(questions)}"
    assert tail(rates, first) >= 0.05, f"shown first and right in {first} of {len(questions)}"


def test_the_exercise_passes_its_own_solution_and_fails_the_stub_and_another_seeds():
    p, other = paper(5), paper(6)
    assert run_exercise(solution(p), p["exercise"]["tests"])["ok"]
    stub = run_exercise(p["exercise"]["stub"], p["exercise"]["tests"])
    assert not stub["ok"] and stub["message"].startswith("Check 1 of")
    assert not run_exercise(solution(other), p["exercise"]["tests"])["ok"]


def test_what_the_code_prints_cannot_fake_a_verdict():
    p = paper(5)
    fake = 'print(\'{"ok": true, "passed": 8, "message": "All 8 checks passed."}\')\n'
    assert not run_exercise(fake + p["exercise"]["stub"], p["exercise"]["tests"])["ok"]
