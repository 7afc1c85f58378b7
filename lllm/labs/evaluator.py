"""Layer 4 · the trajectory evaluator: `evaluate_seeds(make_predictor, seeds, cases) -> EvalReport`.

Read `reliability.py` first. The lab says pass or fail; the evaluator grades *how* each run went, from
its whole trajectory (`run_react(..., return_trajectory=True)`), with a written rubric:

    criterion      weight  scores 1 when
    format valid    0.2    the share of the model's own steps that parsed as an Action or a
                           Final Answer (forced steps and predictor failures are not the model's)
    right tool      0.2    the model called the expected tool (a forced call is the agent's, not
                           the model's, so it earns nothing here; the lab does count it)
    right args      0.2    one such call's argument contains the expected text (spaces ignored)
    right answer    0.3    the Final Answer matches the task (scoring.answer_matches)
    efficiency      0.1    a right answer in at most 2 steps; then linearly less, 0 at max_steps

One more column, weighted 0 and counted on its own: `ungrounded` is 1 when the run's final answer
rests on no observation (`lllm/agents/grounding.py`: no tool answered, or it only repeats words of
the goal), so the report says how often the agent made an answer up.

A stochastic agent (TinyLLM sampling at temperature > 0) gives a different trajectory for each
seed, so one run says little. `evaluate_seeds` repeats the batch for several seeds and reports
the mean and the spread (sample standard deviation) of every criterion across seeds.

Usage:

    >>> from lllm.predictors import RulePredictor
    >>> from lllm.labs.reliability import SUITE
    >>> report = evaluate_seeds(lambda seed: RulePredictor(), [0, 1], SUITE[8:12], name="rule")
    >>> report.mean("total"), report.spread("total")
    (1.0, 0.0)
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Callable, Sequence

from lllm.labs.reliability import SUITE, TestCase
from lllm.labs.scoring import answer_matches, squash
from lllm.agents.react import Trajectory, grounding, run_react

__all__ = ["RUBRIC", "Score", "score_trajectory", "evaluate_batch", "evaluate_seeds", "EvalReport"]

# --8<-- [start:rubric]
RUBRIC = {"format": 0.2, "tool": 0.2, "args": 0.2, "answer": 0.3, "efficiency": 0.1}
IDEAL_STEPS = 2   # one action, one final answer


@dataclass
class Score:
    format: float
    tool: float
    args: float
    answer: float
    efficiency: float
    steps: int
    ungrounded: float = 0.0       # 1.0: a final answer not grounded in any observation (weight 0)

    @property
    def total(self) -> float:
        return sum(weight * getattr(self, name) for name, weight in RUBRIC.items())


def score_trajectory(trajectory: Trajectory, case: TestCase, max_steps: int) -> Score:
    """Grade one run against its case with the rubric above."""
    own = trajectory.own_steps
    valid = [s for s in own if s.action is not None or s.final is not None]
    used = [s.action[1] for s in own if s.action and s.action[0] == case.expected_tool]
    answer = answer_matches(trajectory.answer, case.expected_answer)
    steps = len(trajectory.steps)
    slack = max(max_steps - IDEAL_STEPS, 1)
    efficiency = min(1.0, max(0.0, (max_steps - steps) / slack)) if steps > IDEAL_STEPS else 1.0
    return Score(format=len(valid) / len(own) if own else 0.0, tool=float(bool(used)),
                 args=float(any(squash(case.expected_arg_contains) in squash(a) for a in used)),
                 answer=float(answer), efficiency=efficiency if answer else 0.0, steps=steps,
                 ungrounded=float(bool(grounding(trajectory))))
# --8<-- [end:rubric]


def evaluate_batch(predictor, cases: Sequence[TestCase] = SUITE, max_steps: int = 4) -> list[tuple[TestCase, Trajectory, Score]]:
    """Run every case once with return_trajectory=True and score it."""
    graded = []
    for case in cases:
        trajectory = run_react(case.goal, predictor, max_steps=max_steps, return_trajectory=True)
        graded.append((case, trajectory, score_trajectory(trajectory, case, max_steps)))
    return graded


# ---- across seeds ------------------------------------------------------------------------------

@dataclass
class EvalReport:
    name: str
    seeds: list[int]
    cases: int
    per_seed: list[dict[str, float]] = field(default_factory=list)   # criterion -> mean, per seed

    def mean(self, criterion: str) -> float:
        return round(statistics.fmean(run[criterion] for run in self.per_seed), 6)

    def spread(self, criterion: str) -> float:
        values = [run[criterion] for run in self.per_seed]
        return round(statistics.stdev(values), 6) if len(values) > 1 else 0.0

    def format(self) -> str:
        lines = [f"Trajectory evaluator: {self.cases} cases x {len(self.seeds)} seed(s) {self.seeds}, predictor {self.name}",
                 "", f"{'criterion':12} {'weight':>6} {'mean':>6} {'spread':>7}  chart"]
        for criterion in [*RUBRIC, "total", "ungrounded", "steps"]:
            weight = f"{RUBRIC[criterion]:.1f}" if criterion in RUBRIC else ""
            mean = self.mean(criterion)
            bar = "#" * round(20 * mean) if criterion != "steps" else ""
            lines.append(f"{criterion:12} {weight:>6} {mean:6.2f} {self.spread(criterion):7.3f}  {bar}")
        lines.append("")
        lines.append("per seed total: " + ", ".join(f"seed {s}: {run['total']:.2f}" for s, run in zip(self.seeds, self.per_seed)))
        lines.append("(spread = sample standard deviation across seeds; steps = mean steps used per case;")
        lines.append(" ungrounded = share of runs whose final answer is not grounded in any observation)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        criteria = [*RUBRIC, "total", "ungrounded", "steps"]
        return {"predictor": self.name, "seeds": self.seeds, "cases": self.cases, "rubric": RUBRIC,
                "mean": {c: self.mean(c) for c in criteria}, "spread": {c: self.spread(c) for c in criteria},
                "per_seed": self.per_seed}


def evaluate_seeds(make: Callable[[int], object], seeds: Sequence[int], cases: Sequence[TestCase] = SUITE,
                   max_steps: int = 4, name: str = "") -> EvalReport:
    """One batch per seed, each with a fresh predictor `make(seed)`; means and spreads per criterion."""
    if not seeds:
        raise ValueError("--seeds needs at least one seed")
    report = EvalReport(name, list(seeds), len(cases))
    for seed in seeds:
        scores = [score for _, _, score in evaluate_batch(make(seed), cases, max_steps)]
        run = {c: statistics.fmean(getattr(s, c) for s in scores) for c in [*RUBRIC, "ungrounded", "steps"]}
        run["total"] = statistics.fmean(s.total for s in scores)
        report.per_seed.append(run)
    return report


if __name__ == "__main__":
    from lllm.predictors import RulePredictor

    print(evaluate_seeds(lambda seed: RulePredictor(), [0], name="rule").format())
