"""hooks/quiz_fairness.py and the order hooks/quiz.py emits: length and order of choices give nothing away.

A biased quiz file planted in a tmp dir fails the check (and a real `mkdocs build`) with a message
naming the file and the questions; the real quizzes/ pass; the exact tail probability matches a
brute-force count; the page's data lists choices in an order where the right one is first no
more often than chance allows.
"""

from __future__ import annotations

import doctest
import itertools
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hooks import quiz as hook  # noqa: E402
from hooks import quiz_fairness as fairness  # noqa: E402
from hooks import quiz_files  # noqa: E402


def question(qid: str, right: str, *wrong: str, kind: str = "single") -> str:
    choices = f"      - text: {right}\n        correct: true\n        why: Right.\n"
    choices += "".join(f"      - text: {w}\n        why: Not so.\n" for w in wrong)
    return (f"  - id: {qid}\n    kind: {kind}\n    prompt: Which?\n    source: lllm/predictors/contract.py:contract\n    teaches: \"#start\"\n"
            f"    choices:\n{choices}")


# Right answer longest in all four (three choices each): chance is 1/3 per question, p = (1/3)^4 = 0.012.
BIASED = "title: Biased\nquestions:\n" + "".join(
    question(f"b-{n}", "The completion only, with the prompt stripped off by the predictor itself",
             "The prompt", f"Nothing at all {n}") for n in range(4))
FAIR = "title: Fair\nquestions:\n" + "".join(
    question(f"f-{n}", "The completion only", "The prompt and the completion, echoed back together",
             f"Nothing at all {n}") for n in range(4))


def load(tmp_path: Path, files: dict[str, str]) -> dict:
    folder = tmp_path / "quizzes"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    quizzes, errors = quiz_files.load_all(folder, run_code=False)
    assert [str(e) for e in errors] == []
    return quizzes


# ---- the statistics -------------------------------------------------------------------------------------

def test_the_docstring_examples_run():
    assert doctest.testmod(fairness).failed == 0


def test_tail_matches_a_brute_force_count():
    rates = [0.25, 1 / 3, 0.5, 0.75, 0.2]
    for observed in range(len(rates) + 1):
        brute = 0.0
        for outcome in itertools.product([0, 1], repeat=len(rates)):
            if sum(outcome) >= observed:
                weight = 1.0
                for hit, p in zip(outcome, rates):
                    weight *= p if hit else 1 - p
                brute += weight
        assert abs(fairness.tail(rates, observed) - brute) < 1e-12


def test_longest_is_a_right_choice_strictly_longer_than_every_wrong_one():
    assert fairness.longest_is_right([{"text": "`abcdef`", "correct": True}, {"text": "abcde"}])
    assert not fairness.longest_is_right([{"text": "abc", "correct": True}, {"text": "xyz"}])    # a tie is no cue
    assert not fairness.longest_is_right([{"text": "**ab**", "correct": True}, {"text": "abc"}])  # markup is not length
    assert fairness.chance([{"text": "a", "correct": True}, {"text": "b", "correct": True}, {"text": "c"}]) == 2 / 3


# ---- the check ------------------------------------------------------------------------------------------

def test_a_biased_file_fails_naming_the_file_and_the_questions(tmp_path):
    errors = fairness.length_cue_errors(load(tmp_path, {"biased.yml": BIASED, "fair.yml": FAIR}))
    assert len(errors) == 1, errors
    message = str(errors[0])
    assert message.startswith(f"{tmp_path}/quizzes/biased.yml:3 [no id] the right answer is the longest choice "
                              "in 4 of 4 choice questions (chance alone gives 1.3; p = 0.0123 < 0.05): "
                              "b-0, b-1, b-2, b-3; lengthen or sharpen the wrong choices"), message


def test_a_fair_file_passes(tmp_path):
    assert fairness.length_cue_errors(load(tmp_path, {"fair.yml": FAIR})) == []


def test_a_bias_spread_over_small_files_fails_them_together(tmp_path):
    # Two questions a file, both longest-right: p = 1/9 per file (passes), but ten such files do not.
    files = {f"t{n}.yml": "title: T\nquestions:\n" + "".join(
        question(f"t{n}-{k}", "The completion only, prompt stripped", "The prompt", "Nothing") for k in range(2))
        for n in range(10)}
    errors = [str(e) for e in fairness.length_cue_errors(load(tmp_path, files))]
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{tmp_path}/quizzes/*.yml:1 [no id] all files together: the right answer is the "
                                "longest choice in 20 of 20 choice questions (chance alone gives 6.7;")
    assert f"{tmp_path}/quizzes/t0.yml (t0-0, t0-1)" in errors[0]


def test_the_real_quizzes_pass():
    quizzes, errors = quiz_files.load_all(run_code=False)
    assert [str(e) for e in errors] == []
    assert fairness.length_cue_errors(quizzes) == []
    hits, rates = fairness.longest_right(quizzes.values())
    print(f"\nright answer longest in {len(hits)} of {len(rates)} choice questions; chance {sum(rates):.1f}")
    assert len(rates) >= 70


def test_the_build_stops_on_a_biased_file(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n<!-- quiz: biased -->\n", encoding="utf-8")
    (tmp_path / "quizzes").mkdir()
    (tmp_path / "quizzes" / "biased.yml").write_text(BIASED, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent(f"""\
        site_name: Mini
        docs_dir: docs
        site_dir: out
        theme: {{name: material, font: false}}
        hooks: [{ROOT / 'hooks' / 'quiz.py'}]
        """), encoding="utf-8")
    env = {**os.environ, "LLLM_QUIZ_DIR": str(tmp_path / "quizzes"), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert re.search(r"biased\.yml:3 \[no id\] the right answer is the longest choice in 4 of 4 .*b-0, b-1, b-2, b-3",
                     result.stdout + result.stderr)


# ---- the order in the page's data ---------------------------------------------------------------------------

def test_the_page_data_lists_choices_with_their_keys_in_no_telling_order():
    quizzes, _ = quiz_files.load_all(run_code=False)
    first_right, rates = 0, []
    for quiz in quizzes.values():
        view = hook.quiz_view(quiz, "x/", {})
        for q, shown in zip(quiz.questions, view["questions"]):
            if q["kind"] not in ("single", "multiple"):
                continue
            keys = [c["key"] for c in shown["choices"]]
            assert sorted(keys) == list(range(len(q["choices"])))               # every choice, once, by key
            for c in shown["choices"]:
                assert c["correct"] == bool(q["choices"][c["key"]].get("correct"))
            first_right += shown["choices"][0]["correct"]
            rates.append(fairness.chance(q["choices"]))
    # every file lists the right answer first; the page's data may not: within chance at the 5 % level
    assert fairness.tail(rates, first_right) >= 0.05, f"right answer first in {first_right} of {len(rates)}"

