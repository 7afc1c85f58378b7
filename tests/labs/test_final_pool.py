"""lllm/labs/final/pool.json is what hooks/final_pool.py writes from course.yml and quizzes/ now."""

from __future__ import annotations

from hooks.final_pool import POOL_FILE, build_pool, heading_ids, pool_text
from hooks.quiz_files import ROOT


def test_the_pool_is_current():
    assert POOL_FILE.read_text(encoding="utf-8") == pool_text(build_pool()), \
        "lllm/labs/final/pool.json is out of date: run .venv/bin/python -m hooks.final_pool"


def test_every_unit_has_questions_and_every_question_a_real_heading():
    pool = build_pool()
    assert len(pool["units"]) == 12 and all(unit["questions"] for unit in pool["units"])
    for unit in pool["units"]:
        for q in unit["questions"]:
            t = q["teaches"]
            assert heading_ids((ROOT / "site" / t["page"]).read_text(encoding="utf-8"))[t["anchor"]] == t["title"]


def test_heading_ids_follow_mkdocs():
    assert heading_ids("# A\n## Self-consistency (CoT-SC)\n### `calc` and you { #calc }\n") == {
        "a": "A", "self-consistency-cot-sc": "Self-consistency (CoT-SC)", "calc": "calc and you"}
