"""Layer 4 · time travel at the seam: record every model and tool call a program makes, then re-run it with a call edited or another brain from a chosen call on.

Read `lllm/predictors/contract.py` (the seam) and `lllm/agents/tools.py` (a tool) first. A *program*
is any function `program(predictor, tools) -> answer` that talks to a model only through the
predictor and acts only through the tools: the ReAct loop, a reasoning framework, ten lines a
reader wrote. It needs no time-travel code of its own, because `run` stands in the seam:

- model call i (counted from 1) returns, first that applies: the edit for call i; the recorded
  text of call i, while i is before `swap_from` (so a branch keeps what came before it); otherwise
  what `brain_for(i)` writes for that prompt (a brain made fresh per call: replays are exact);
- tool call j runs the tool, unless the tool cannot run here (`unavailable`): then it returns what
  the recording says that tool returned for the same argument, and any other call gets an error
  naming the tool.

Every call becomes a `Call` (its kind, number, who answered, what it was asked, what it said, how
long it took), in the order made: the run's timeline. `first_difference(a, b)` is where two runs
part. `timeline(calls)` prints them.

Usage:

    >>> from lllm.agents.tools import DEFAULT_TOOLS
    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> def program(predictor, tools):                    # a reader's program: plan, then compute
    ...     plan = predictor("What should I compute for 6 times 7?")
    ...     return tools["calc"](plan.strip())
    >>> brain = lambda i: ScriptedPredictor(["6 * 7"])
    >>> first = run(program, brain, DEFAULT_TOOLS, brain_name="scripted")
    >>> first.answer, [c.said for c in first.calls]
    ('42', ['6 * 7', '42'])
    >>> second = run(program, brain, DEFAULT_TOOLS, edits={1: "6 * 8"}, recorded=first.calls)
    >>> second.answer, first_difference(first.calls, second.calls)
    ('48', 1)
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

from lllm.agents.tools import Tool
from lllm.timetravel.runfile import first_difference as parted

__all__ = ["Call", "Run", "Seam", "run", "first_difference", "timeline", "EDIT", "RECORDED"]

EDIT, RECORDED = "edit", "recorded"      # who answered a call that no brain wrote


@dataclass(frozen=True)
class Call:
    """One call through the seam: `kind` "model" or "tool", its number among calls of that kind."""

    kind: str
    number: int
    who: str                 # the brain's name, EDIT, RECORDED, or the tool's name
    asked: str               # the prompt, or the tool's argument text
    said: str                # the completion, or the tool's observation
    seconds: float = 0.0
    tool: str = ""           # the tool's name (tool calls)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Run:
    answer: object
    calls: list[Call]


class Tools(dict):
    """The program's tools by name, as plain functions, each call recorded (the seam's other half).
    The ReAct loop wants `Tool` records: `.as_tools()` gives them, the same recording functions inside."""

    def __init__(self, tools: Sequence[Tool]):
        super().__init__((tool.name, tool.fn) for tool in tools)
        self.tools = list(tools)

    def as_tools(self) -> list[Tool]:
        return self.tools


# --8<-- [start:run]
class Seam:
    """The predictor half of the seam: model call i (counted from `first`) is answered by `edits[i]`, else
    by `kept[i]` (a recorded text), else by `brain_for(i)`, a predictor made fresh for that call; each
    call is appended to `calls` as a `Call`. The native runtime's time travel puts it behind its agents."""

    def __init__(self, brain_for: Callable[[int], Callable], edits: dict | None = None, kept: dict | None = None,
                 first: int = 1, brain_name: str = "brain", calls: list | None = None, clock=time.perf_counter):
        self.brain_for, self.edits, self.kept, self.brain_name = brain_for, dict(edits or {}), dict(kept or {}), brain_name
        self.index, self.calls, self.clock = first - 1, calls if calls is not None else [], clock

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        self.index += 1
        number, begin = self.index, self.clock()
        if number in self.edits:
            who, said = EDIT, self.edits[number]
        elif number in self.kept:
            who, said = RECORDED, self.kept[number]
        else:
            who, said = self.brain_name, self.brain_for(number)(prompt, max_new_tokens)
        self.calls.append(Call("model", number, who, prompt, said, self.clock() - begin))
        return said


def run(program: Callable, brain_for: Callable[[int], Callable], tools: Sequence[Tool], *, brain_name: str = "brain",
        edits: dict[int, str] | None = None, recorded: Sequence[Call] = (), swap_from: int | None = None,
        unavailable: frozenset = frozenset(), clock=time.perf_counter) -> Run:
    """Run `program` with the seam recorded: calls edited, kept from `recorded`, or asked of the brain."""
    calls = []
    kept = {c.number: c.said for c in recorded if c.kind == "model"}
    replies = [(c.tool, c.asked, c.said) for c in recorded if c.kind == "tool" and c.tool in unavailable]
    last_kept = (swap_from - 1) if swap_from else max(kept, default=0)
    predictor = Seam(brain_for, edits, {n: said for n, said in kept.items() if n <= last_kept}, brain_name=brain_name,
                     calls=calls, clock=clock)

    def recorded_tool(tool: Tool) -> Callable[[str], str]:
        def call(argument: str) -> str:
            number, begin = sum(c.kind == "tool" for c in calls) + 1, clock()
            if tool.name in unavailable:
                found = next((r for r in replies if r[:2] == (tool.name, argument)), None)
                if found is None:
                    raise LookupError(f"{tool.name} cannot run here: it is only recorded, and not with this argument")
                replies.remove(found)
                who, said = RECORDED, found[2]
            else:
                who, said = tool.name, str(tool.fn(argument))
            calls.append(Call("tool", number, who, argument, said, clock() - begin, tool.name))
            return said
        return call

    seam = Tools([Tool(t.name, t.description, recorded_tool(t)) for t in tools])
    return Run(program(predictor, seam), calls)
# --8<-- [end:run]


# ---- comparing, and the timeline ------------------------------------------------------------------------

def first_difference(a: Sequence[Call], b: Sequence[Call]) -> int | None:
    """The first call (1-based, in the order made) where two runs differ in what was asked or said, or None."""
    return parted(list(a), list(b), lambda c: (c.kind, c.asked, c.said))


def timeline(calls: Sequence[Call]) -> str:
    """One line a call: its number, who answered, how many characters, how long it took."""
    lines = []
    for i, c in enumerate(calls, start=1):
        what = f"model call {c.number}" if c.kind == "model" else f"tool call {c.number} ({c.tool})"
        lines.append(f"  {i:>2}. {what:28s} {c.who:14s} {len(c.said):5d} chars {c.seconds * 1000:8.1f} ms")
    return "\n".join(lines)
