"""The agent-model page's gallery of failures (bench/results/agent-gallery.md) is real and current:
every row is what the committed agent model does today on that held-out-grammar goal (lllm/labs/heldout/grammar.py), and it is
a failure. After retraining, `bench/agent_bench.py --grammar --per-family 60 --gallery
bench/results/agent-gallery.md` rewrites it."""

import re

import pytest

from lllm.agents.react import run_react
from lllm.labs.heldout import grammar as hg
from lllm.predictors import make_predictor
from support.model_files import require_agent_model
from conftest import ROOT

GALLERY = ROOT / "bench" / "results" / "agent-gallery.md"
STAMP_RE = re.compile(r"<!-- bench/agent_bench.py --grammar --per-family (\d+) --seed (\d+): ")


def gallery_rows() -> tuple[dict, list[str]]:
    text = GALLERY.read_text(encoding="utf-8")
    stamp = STAMP_RE.match(text)
    assert stamp, f"{GALLERY} does not start with the bench's stamp"
    lines = text.splitlines()
    assert lines[1:3] == hg.GALLERY_HEAD.splitlines()
    goals = {g.goal: g for g in hg.make_goals(int(stamp.group(1)), int(stamp.group(2)))}
    return goals, [line for line in lines[3:] if line.strip()]


def goal_of(row: str) -> str:
    cells = re.split(r"(?<!\\)\|", row)
    return cells[2].strip().replace("\\|", "|")


def test_every_family_has_rows_and_each_names_a_real_goal():
    goals, rows = gallery_rows()
    assert rows
    assert [r.split("|")[1].strip() for r in rows] == sorted((r.split("|")[1].strip() for r in rows),
                                                            key=hg.FAMILIES.index)
    assert all(goal_of(r) in goals for r in rows), [goal_of(r) for r in rows if goal_of(r) not in goals]


def test_each_row_is_what_the_committed_model_does_and_a_failure():
    goals, rows = gallery_rows()
    predictor = make_predictor(f"tinyllm-agent:{require_agent_model()}", temperature=0)
    stale = []
    for row in rows:
        goal = goals[goal_of(row)]
        trajectory = run_react(goal.goal, predictor, max_steps=4, return_trajectory=True)
        if hg.gallery_row(goal, trajectory) != row:
            stale.append(f"{row}\n  now: {hg.gallery_row(goal, trajectory)}")
        assert hg.is_failure(hg.score(trajectory, goal)), row
    assert not stale, ("the gallery is not the committed model's (rerun bench/agent_bench.py --grammar "
                       "--per-family 60 --gallery bench/results/agent-gallery.md):\n" + "\n".join(stale))


def test_a_row_names_the_calls_the_answer_and_the_oracle():
    goal = hg.Goal("How old is Tom?", "lookup", (("lookup", ("tom",)),), "11", "How old is Tom?")
    from lllm.predictors.contract import ScriptedPredictor
    trajectory = run_react(goal.goal, ScriptedPredictor(["Action: lookup[hale]", "Final Answer: a | b"]),
                           return_trajectory=True)
    assert hg.gallery_row(goal, trajectory) == ("| lookup | How old is Tom? | `lookup[hale]` | a \\| b | "
                                                "`lookup[tom]` → 11 |")
    rows = [(goal, hg.score(trajectory, goal), trajectory)] * 5
    assert len(hg.gallery(rows, per_family=3)) == 3
    right = run_react(goal.goal, ScriptedPredictor(["Action: lookup[tom]", "Final Answer: 11"]), return_trajectory=True)
    assert hg.gallery([(goal, hg.score(right, goal), right)]) == []
