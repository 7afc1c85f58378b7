"""Layer 4 · the factory's before/after check: `evaluate(predictor, suite) -> SuiteReport`, no forcing.

Read `episodes.py` and `tasks.py` first. The held-out suite (`make_suite("test")`) holds
goals whose numbers (and, for the "new" groups, whose phrasings) never appear in training. Each
goal is run once through the ordinary ReAct loop — the goal is a question, never `tool[args]`,
so nothing is forced — and scored on four criteria:

    format   share of the model's steps that parsed as an Action or a Final Answer
    tool     it called the task's tool (for a no-tool question: it called none)
    args     one such call's argument is the task's (spaces and case ignored)
    answer   the Final Answer equals the oracle's (numbers compared as numbers)

`comparison_table({"story model": p1, "agent model": p2}, suite)` prints the table the factory page and
`bench/agent_bench.py` show, one row per (family, phrasing) group.

Usage:

    >>> from lllm.predictors import RulePredictor
    >>> from lllm.labs.factory.tasks import make_suite
    >>> suite = make_suite("test", per_group=2)
    >>> from lllm.labs.factory.episodes import teacher
    >>> evaluate(teacher, suite, per_task=True).mean("answer")   # each task's teacher (its own plan)
    1.0
    >>> rule = evaluate(RulePredictor(), suite)       # the rule brain: no rule for word problems
    >>> rule.mean("answer") < 1.0, rule.mean("answer", ("word problem", "seen"))
    (True, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from lllm.labs.factory.tasks import Task, make_suite
from lllm.agents.react import Trajectory, run_react
from lllm.labs.scoring import answer_matches, squash

__all__ = ["CRITERIA", "score", "SuiteReport", "evaluate", "comparison_table", "table_rows", "BEFORE_AFTER",
           "before_after_reports", "before_after_text"]

CRITERIA = ("format", "tool", "args", "answer")


# --8<-- [start:score]
def score(trajectory: Trajectory, task: Task) -> dict[str, float]:
    """The four criteria for one run (1.0 = right, 0.0 = wrong; format is a share)."""
    model_steps = trajectory.own_steps
    parsed = [s for s in model_steps if s.action or s.final is not None]
    calls = trajectory.tool_calls()
    if task.tool is None:
        tool = args = not calls and trajectory.answer is not None
    else:
        used = [a for name, a in calls if name == task.tool]
        tool, args = bool(used), any(squash(a) == squash(task.args) for a in used)
    answer = answer_matches(trajectory.answer, task.answer, exact=True)
    return {"format": len(parsed) / len(model_steps) if model_steps else 0.0,
            "tool": float(tool), "args": float(args), "answer": float(answer)}
# --8<-- [end:score]


@dataclass
class SuiteReport:
    name: str
    rows: list[tuple[Task, dict[str, float], Trajectory]] = field(default_factory=list)

    def mean(self, criterion: str, group: tuple[str, str] | None = None) -> float:
        values = [s[criterion] for t, s, _ in self.rows if group in (None, (t.family, t.phrasing))]
        return sum(values) / len(values) if values else 0.0

    def groups(self) -> list[tuple[str, str]]:
        return sorted({(t.family, t.phrasing) for t, _, _ in self.rows})


def evaluate(predictor, suite: Sequence[Task], name: str = "", max_steps: int = 4,
             per_task: bool = False) -> SuiteReport:
    """Run every task of the suite once through run_react and score it. With `per_task`,
    `predictor(task)` makes each task's predictor (`factory.teacher`)."""
    report = SuiteReport(name)
    for task in suite:
        trajectory = run_react(task.goal, predictor(task) if per_task else predictor, max_steps=max_steps,
                               return_trajectory=True)
        report.rows.append((task, score(trajectory, task), trajectory))
    return report


# --8<-- [start:compare]
def table_rows(reports: Sequence[SuiteReport]) -> list[dict]:
    """Per group, then overall: its label, its number of goals, each report's criteria in percent."""
    rows = []
    for group in reports[0].groups() + [None]:
        label = "all held-out goals" if group is None else f"{group[0]}, {group[1]}"
        n = sum(1 for t, _, _ in reports[0].rows if group in (None, (t.family, t.phrasing)))
        rows.append({"group": label, "n": n,
                     "scores": [{c: round(100 * r.mean(c, group), 1) for c in CRITERIA} for r in reports]})
    return rows


def comparison_table(reports: Sequence[SuiteReport]) -> str:
    """A text table: for each group and overall, each report's four criteria in percent."""
    head = f"{'group':30s} {'n':>4s}  " + "  ".join(
        f"{r.name[:23]:^23s}" for r in reports)
    sub = f"{'':30s} {'':>4s}  " + "  ".join(
        " ".join(f"{c[:5]:>5s}" for c in CRITERIA) for _ in reports)
    lines = [head, sub]
    for row in table_rows(reports):
        cells = "  ".join(" ".join(f"{s[c]:5.1f}" for c in CRITERIA) for s in row["scores"])
        lines.append(f"{row['group']:30s} {row['n']:4d}  {cells}")
    return "\n".join(lines)
# --8<-- [end:compare]


# ---- before and after: the story model and the agent-tuned model ---------------------------------

BEFORE_AFTER = (("story model", "tinyllm"), ("agent model", "tinyllm-agent"))


def before_after_reports(models: dict, per_group: int, seed: int = 0, progress=None) -> list:
    """Each of `models` ({name: predictor}, greedy) on the held-out test goals, no forcing."""
    suite = make_suite("test", per_group, seed)
    reports = []
    for name, predictor in models.items():
        if progress:
            progress(f"{name}: {len(suite)} held-out goals")
        reports.append(evaluate(predictor, suite, name))
    return reports


def before_after_text(reports: list) -> str:
    """The before/after table the terminal prints (and the lab page's demo shows)."""
    return (f"held-out test goals: {len(reports[0].rows)}, greedy, no forcing "
            "(format / tool / args / answer, %)\n" + comparison_table(reports))


if __name__ == "__main__":
    from lllm.predictors import RulePredictor, echo
    from lllm.labs.factory.tasks import make_suite

    suite = make_suite("test", per_group=5)
    print(comparison_table([evaluate(echo, suite, "echo (the old bug)"), evaluate(RulePredictor(), suite, "rule brain")]))
