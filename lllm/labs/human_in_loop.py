"""Layer 4 · human-in-the-loop oversight: `OversightSession(goal, predictor)`, paused before every tool runs.

Read `react.py` first. The engine is the ReAct loop cut open at one point: after the model
proposes a step and *before* a tool runs or an answer is accepted. It knows nothing about its
front end — it has a step API, so the terminal asks with `input()` and the page shows buttons:

    session = OversightSession(goal, predictor, mode="approve")
    while (proposal := session.next()) is not None:      # runs until a human decision is needed
        session.decide("approve")                          # or edit / inject / skip / quit
    print(session.summary())

Actions on a proposed tool call (A) or final answer (F):

    approve          A: run the tool as proposed          F: accept the answer, the run ends
    edit TEXT        A: run TEXT (`tool[args]`) instead    F: accept TEXT as the answer
    inject TEXT      A: do not run the tool; TEXT is its observation    F: not allowed
    skip             A: do not run it; the model is told it was skipped F: reject the answer
    quit             end the run now, without an answer
    help             list these actions; nothing changes

Modes: "approve" asks about every proposal; "low-confidence" asks only when `confidence()` is
below the threshold; "review" runs without asking and lets the human flag steps afterwards
(`review(step, verdict, reason)`). Every decision is an Intervention record (time, step, action,
reason, before, after); `to_json()` exports the session.

Usage:

    >>> from lllm.predictors import RulePredictor
    >>> session = OversightSession("What is 6 times 7?", RulePredictor(), clock=lambda: 0.0)
    >>> session.next().describe()
    'calc[6 * 7]'
    >>> session.decide("edit", "calc[6 * 8]", reason="test an edit")
    >>> session.next().describe(), session.decide("approve"), session.answer
    ('Final Answer: 48', None, '48')
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

from lllm.agents.react import FORCED_RE, Outcome, Step, act, build_prompt, think
from lllm.agents.tools import DEFAULT_TOOLS, Tool

__all__ = ["MODES", "ACTIONS", "HELP", "Intervention", "PendingStep", "confidence", "OversightSession"]

MODES = ("approve", "low-confidence", "review")
ACTIONS = ("approve", "edit", "inject", "skip", "quit", "help")
HELP = """approve        run the tool (or accept the answer) as proposed
edit TEXT      run TEXT, written tool[args], instead (or accept TEXT as the answer)
inject TEXT    do not run the tool; use TEXT as its observation (tool calls only)
skip           do not run the tool (or reject the answer); the model is told
quit           end the run now, without an answer
help           show this list"""
SKIPPED = "skipped by the human overseer"
REJECTED = "the human overseer rejected this answer"


# ---- records -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Intervention:
    time: float
    step: int
    action: str
    reason: str
    before: str
    after: str


@dataclass(frozen=True)
class PendingStep:
    """What the model wants to do next, waiting for a decision."""

    step: int
    thought: str | None
    action: tuple[str, str] | None
    final: str | None
    confidence: float
    raw: str

    def describe(self) -> str:
        return f"{self.action[0]}[{self.action[1]}]" if self.action else f"Final Answer: {self.final}"


# ---- the confidence heuristic ------------------------------------------------------------------

# --8<-- [start:confidence]
def confidence(step: Step, goal: str, history: Sequence[Step], tool_names: Sequence[str]) -> float:
    """A documented guess at how safe a proposal is, from 1.0 down to 0.0:
    an unknown tool -> 0; the same call already made in this run -> -0.5; calc arguments with
    a number that is in neither the goal nor an observation -> -0.5; a final answer right after
    a tool error -> -0.5."""
    seen_text = goal + " " + " ".join(s.observation or "" for s in history)
    score = 1.0
    if step.action:
        name, args = step.action
        if name not in tool_names:
            return 0.0
        if any(s.action == step.action for s in history):
            score -= 0.5
        if name == "calc" and not set(re.findall(r"\d+", args)) <= set(re.findall(r"\d+", seen_text)):
            score -= 0.5
    elif history and history[-1].outcome in (Outcome.UNKNOWN_TOOL, Outcome.TOOL_ERROR):
        score -= 0.5
    return max(0.0, score)
# --8<-- [end:confidence]


# ---- the engine --------------------------------------------------------------------------------

@dataclass
class OversightSession:
    goal: str
    predictor: Callable
    tools: Sequence[Tool] = DEFAULT_TOOLS
    mode: str = "approve"
    max_steps: int = 5
    threshold: float = 0.75            # low-confidence mode asks below this
    clock: Callable[[], float] = time.time
    steps: list[Step] = field(default_factory=list)
    interventions: list[Intervention] = field(default_factory=list)
    answer: str | None = None
    stop_reason: str = ""
    pending: PendingStep | None = None

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if not self.goal.strip():
            raise ValueError("goal is empty: ask the agent a question")

    @property
    def done(self) -> bool:
        return bool(self.stop_reason)

    # --8<-- [start:next]
    def next(self) -> PendingStep | None:
        """Run until a proposal needs a human (return it) or the run ends (return None)."""
        while self.pending is None and not self.done:
            if len(self.steps) >= self.max_steps:
                self.stop_reason = "max steps"
                break
            proposal = self._propose()
            if proposal is None:
                continue                                  # malformed output: repaired, ask again
            if self.mode == "approve" or (self.mode == "low-confidence"
                                          and proposal.confidence < self.threshold):
                self.pending = proposal
            else:
                self._apply(proposal, "approve", "", "", human=False)
        return self.pending
    # --8<-- [end:next]

    def _propose(self) -> PendingStep | None:
        """The model's next step as a PendingStep; a repair or a predictor failure is recorded as a
        step instead (the same step react.think makes in the ReAct loop), and None returned."""
        step = think(self.predictor, build_prompt(self.goal, self.tools, self.steps))
        if step.outcome in (Outcome.REPAIR, Outcome.PREDICTOR_ERROR):
            self.steps.append(step)
            if step.outcome is Outcome.PREDICTOR_ERROR:
                self.stop_reason = "predictor error"
            return None
        score = confidence(step, self.goal, self.steps, [t.name for t in self.tools])
        return PendingStep(len(self.steps) + 1, step.thought, step.action, step.final, score, step.raw)

    # --8<-- [start:decide]
    def decide(self, action: str, text: str = "", reason: str = "") -> None:
        """Apply a human decision to the pending proposal. ValueError if it does not fit."""
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; actions: {', '.join(ACTIONS)}")
        if action == "help":
            return None
        if self.pending is None:
            raise ValueError("nothing is waiting for a decision (call next() first)")
        if action in ("edit", "inject") and not text.strip():
            raise ValueError(f"{action} needs text")
        if action == "inject" and self.pending.action is None:
            raise ValueError("inject fits a tool call, not a final answer")
        if action == "edit" and self.pending.action and not FORCED_RE.fullmatch(text):
            raise ValueError(f"an edited tool call must be written tool[args], got {text!r}")
        proposal, self.pending = self.pending, None
        self._apply(proposal, action, text.strip(), reason)
    # --8<-- [end:decide]

    def _apply(self, p: PendingStep, action: str, text: str, reason: str, human: bool = True) -> None:
        step = Step(raw=p.raw, thought=p.thought)
        if action == "quit":
            self.stop_reason = "quit by the human"
            after = "run ended"
        elif p.action is not None:
            step.action = p.action
            if action == "edit":
                match = FORCED_RE.fullmatch(text)
                step.action = (match.group(1), match.group(2).strip())
            if action in ("approve", "edit"):
                step = act(step, self.tools)
            else:               # the human answered for the tool, or stopped it: nothing ran
                step.observation = text if action == "inject" else SKIPPED
                step.outcome = Outcome.ACTION if action == "inject" else Outcome.REPAIR
            after = f"{step.action[0]}[{step.action[1]}] -> {step.observation}"
            self.steps.append(step)
        elif action == "skip":
            step.observation, step.outcome = REJECTED, Outcome.REPAIR
            self.steps.append(step)
            after = "answer rejected"
        else:
            step.final, step.outcome = (text if action == "edit" else p.final), Outcome.FINAL
            self.steps.append(step)
            self.answer, self.stop_reason = step.final, "final answer"
            after = f"Final Answer: {step.final}"
        if human:                       # automatic approvals (review, confident steps) are not recorded
            self.interventions.append(Intervention(self.clock(), p.step, action, reason, p.describe(), after))

    def review(self, step: int, verdict: str, reason: str = "") -> None:
        """After a run, flag (or approve) one of its steps; recorded like any intervention."""
        if not self.done:
            raise ValueError("review comes after the run: call next() until it returns None")
        if not 1 <= step <= len(self.steps) or verdict not in ("approve", "flag"):
            raise ValueError(f"review needs a step 1..{len(self.steps)} and 'approve' or 'flag'")
        self.interventions.append(Intervention(self.clock(), step, verdict, reason,
                                               self.steps[step - 1].render(), self.steps[step - 1].render()))

    def summary(self) -> str:
        counts = {a: sum(1 for i in self.interventions if i.action == a) for a in ACTIONS + ("flag",)}
        made = ", ".join(f"{n} {a}" for a, n in counts.items() if n) or "none"
        return (f"goal: {self.goal}\nmode: {self.mode}; steps: {len(self.steps)}; "
                f"interventions: {made}\nanswer: {self.answer} ({self.stop_reason or 'running'})")

    def to_json(self) -> str:
        return json.dumps({"goal": self.goal, "mode": self.mode, "answer": self.answer,
                           "stop_reason": self.stop_reason, "steps": [asdict(s) for s in self.steps],
                           "interventions": [asdict(i) for i in self.interventions]}, indent=1)
