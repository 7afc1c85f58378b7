"""Layer 4 · the reliability lab: `run_lab(predictor) -> LabReport` — how often does the agent really succeed?

Read `lllm/agents/react.py` and `lllm/predictors/standins/react.py` first. "It seemed to work" becomes a number: the lab runs the
ReAct agent on a fixed suite of goals and credits a case only when all three hold:

    right tool     the expected tool was actually called (recorded by wrapping the tools)
    right args     one such call's argument contains the expected text (spaces ignored)
    right answer   the run ended with a Final Answer that matches the task: its last number
                   equals the expected number, or it contains the expected words

An echoed prompt, a tool call without an answer, or an answer without the tool scores nothing
(the original collection scored its echoed instructions as 100%; site/design.md, "Lessons").
A final answer that rests on no observation (`lllm/agents/grounding.py`: no tool answered, or it
only repeats words of the goal) is counted in a column of its own, "ungrounded", and never passes.

Tools are recorded by handing `run_react` wrapped *copies*; the original Tool records are frozen
and never patched, so nothing needs restoring, even when the agent raises.

Usage:

    >>> from lllm.predictors import RulePredictor
    >>> report = run_lab(RulePredictor(), [c for c in SUITE if c.category == "arithmetic"])
    >>> report.passed, len(report.results)
    (8, 8)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Sequence

from lllm.agents.react import grounding, run_react
from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.labs.scoring import answer_matches, squash

__all__ = ["TestCase", "CaseResult", "LabReport", "SUITE", "CATEGORIES", "evaluate_case",
           "run_lab"]


@dataclass(frozen=True)
class TestCase:
    """A goal, the tool call it needs, and the answer that counts as solving it."""

    __test__ = False  # not a pytest test class, despite the name

    goal: str
    expected_tool: str
    expected_arg_contains: str
    category: str
    expected_answer: str


# --8<-- [start:suite]
def _cases(category: str, tool: str, rows: list[tuple[str, str, str]]) -> list[TestCase]:
    return [TestCase(goal, tool, arg, category, answer) for goal, arg, answer in rows]


SUITE = (
    _cases("direct", "calc", [("calc[12 * 7]", "12*7", "84"), ("calc[144 / 12]", "144/12", "12"),
                              ("calc[2 ** 10]", "2**10", "1024"), ("calc[(3 + 4) * 5]", "(3+4)*5", "35"),
                              ("calc[1000 - 1]", "1000-1", "999")])
    + _cases("direct", "lookup", [("lookup[pip]", "pip", "cat"), ("lookup[bram]", "bram", "goat"),
                                  ("lookup[clock]", "clock", "gold")])
    + _cases("arithmetic", "calc", [
        ("What is 17 * 23?", "17*23", "391"), ("What is 45 + 55?", "45+55", "100"),
        ("What is 1000 - 357?", "1000-357", "643"), ("Compute 144 / 12.", "144/12", "12"),
        ("What is (3 + 4) * 5?", "(3+4)*5", "35"), ("What is 2 ** 8?", "2**8", "256"),
        ("Calculate 99 * 99", "99*99", "9801"), ("How much is 7 * 8 + 6?", "7*8+6", "62")])
    + _cases("arithmetic-words", "calc", [
        ("What is 6 times 7?", "6*7", "42"), ("What is 15 plus 27?", "15+27", "42"),
        ("What is 100 minus 58?", "100-58", "42"), ("What is 81 divided by 9?", "81/9", "9"),
        ("What is the product of 12 and 12?", "12*12", "144"),
        ("What is the sum of 250 and 250?", "250+250", "500")])
    + _cases("lookup", "lookup", [
        ("Who is Pip?", "pip", "cat"), ("How old is Tom?", "tom", "11"),
        ("Where does Lina live?", "lina", "Hill Road"), ("Who is Owen?", "owen", "miller"),
        ("What is Bram?", "bram", "goat"), ("What colour is the mill wheel?", "mill", "blue"),
        ("When does the bakery open?", "bakery", "6:30"), ("Who is Dot?", "dot", "dog")])
    + _cases("word-problem", "calc", [
        ("Mira bakes 12 loaves a day. How many loaves does she bake in 5 days?", "12", "60"),
        ("Lina has 5 hens and each lays 2 eggs. How many eggs is that?", "5", "10"),
        ("Tom buys 4 loaves at 2 coins each. How many coins does he pay?", "4", "8"),
        ("There are 7 white ducks and 9 brown ducks. How many ducks?", "7", "16")])
)
CATEGORIES = tuple(dict.fromkeys(c.category for c in SUITE))   # in suite order; the page lists them too
# --8<-- [end:suite]


# ---- scoring one case --------------------------------------------------------------------------

@dataclass
class CaseResult:
    case: TestCase
    answer: str | None
    tool_calls: list[tuple[str, str]]
    right_tool: bool
    right_args: bool
    right_answer: bool
    steps: int
    stop_reason: str
    error: str | None = None
    ungrounded: bool = False          # a final answer resting on no observation (grounding.py)

    @property
    def success(self) -> bool:
        return self.right_tool and self.right_args and self.right_answer and not self.ungrounded


def _recording(tools: Sequence[Tool], calls: list) -> list[Tool]:
    """Copies of `tools` whose functions note (name, args) before running the original."""
    def wrap(tool: Tool):
        def fn(args: str) -> str:
            calls.append((tool.name, args))
            return tool.fn(args)
        return Tool(tool.name, tool.description, fn)
    return [wrap(tool) for tool in tools]


# --8<-- [start:evaluate-case]
def evaluate_case(case: TestCase, predictor, tools: Sequence[Tool] = DEFAULT_TOOLS,
                  max_steps: int = 4) -> CaseResult:
    """Run one case silently and score it; the agent's own errors are recorded, not raised."""
    calls: list[tuple[str, str]] = []
    try:
        trajectory = run_react(case.goal, predictor, _recording(tools, calls), max_steps=max_steps,
                               return_trajectory=True)
    except Exception as error:
        return CaseResult(case, None, calls, False, False, False, 0, "error", f"{type(error).__name__}: {error}")
    used = [args for name, args in calls if name == case.expected_tool]
    return CaseResult(case, trajectory.answer, calls, right_tool=bool(used),
                      right_args=any(squash(case.expected_arg_contains) in squash(a) for a in used),
                      right_answer=answer_matches(trajectory.answer, case.expected_answer),
                      steps=len(trajectory.steps), stop_reason=trajectory.stop_reason,
                      ungrounded=bool(grounding(trajectory)))
# --8<-- [end:evaluate-case]


# ---- the report --------------------------------------------------------------------------------

@dataclass
class LabReport:
    predictor: str
    results: list[CaseResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(r.success for r in self.results)

    @property
    def success_rate(self) -> float:
        return self.passed / len(self.results) if self.results else 0.0

    def by_category(self) -> dict[str, dict[str, int]]:
        """Per category: cases, passed, how many had the right tool / args / answer, and how many
        answers rested on no observation (ungrounded)."""
        table: dict[str, dict[str, int]] = {}
        for r in self.results:
            row = table.setdefault(r.case.category, dict.fromkeys(["total", "passed", "tool", "args", "answer", "ungrounded"], 0))
            for key, hit in [("total", True), ("passed", r.success), ("tool", r.right_tool),
                             ("args", r.right_args), ("answer", r.right_answer), ("ungrounded", r.ungrounded)]:
                row[key] += hit
        return table

    def format(self) -> str:
        lines = [f"Reliability lab: {len(self.results)} cases, predictor {self.predictor}",
                 f"overall: {self.passed}/{len(self.results)} passed ({100 * self.success_rate:.1f}%)", "",
                 f"{'category':18} {'tool':>5} {'args':>5} {'answer':>6} {'ungrounded':>10} {'passed':>7} {'success':>8}"]
        for category, row in self.by_category().items():
            lines.append(f"{category:18} {row['tool']:5d} {row['args']:5d} {row['answer']:6d} {row['ungrounded']:10d} "
                         f"{row['passed']:4d}/{row['total']:<2d} {100 * row['passed'] / row['total']:7.1f}%")
        lines.append("(a case passes only with the right tool, the right args and the right final answer)")
        lines.append("(ungrounded: a final answer not grounded in any observation; it never passes)")
        failures = [r for r in self.results if not r.success]
        if failures:
            lines += ["", f"failures ({len(failures)}):"]
            for r in failures:
                calls = ", ".join(f"{n}[{a}]" for n, a in r.tool_calls) or "no tool"
                why = r.error or f"called {calls}; answer {_short(r.answer)} ({r.stop_reason})"
                why += ", not grounded in any observation" if r.ungrounded else ""
                lines.append(f"- [{r.case.category}] {r.case.goal!r}: wanted {r.case.expected_tool}"
                             f"[..{r.case.expected_arg_contains}..] -> {r.case.expected_answer!r}; {why}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"predictor": self.predictor, "passed": self.passed, "total": len(self.results),
                "success_rate": self.success_rate,
                "by_category": self.by_category(),
                "results": [dict(asdict(r), success=r.success) for r in self.results]}


def _short(answer: str | None) -> str:
    return "none" if answer is None else repr(answer if len(answer) <= 40 else answer[:37] + "...")


def run_lab(predictor, cases: Sequence[TestCase] = SUITE, max_steps: int = 4, name: str = "",
            progress=None) -> LabReport:
    """Evaluate every case in order with the same predictor; `progress(text)`, if given, hears
    about each case before it runs (the page shows it)."""
    results = []
    for number, case in enumerate(cases, 1):
        if progress:
            progress(f"case {number}/{len(cases)}: {case.goal}")
        results.append(evaluate_case(case, predictor, max_steps=max_steps))
    return LabReport(name or repr(predictor), results)


if __name__ == "__main__":
    from lllm.predictors import RulePredictor

    print(run_lab(RulePredictor(), name="rule").format())
