"""Layer 4 · the typed workflow: `run_typed(goal, predictor) -> TypedTrajectory`, a state machine around ReAct.

Read `react.py` first. The ReAct loop keeps its trajectory as loose text; here every step has a
kind, every step record is frozen, and a transition table says which kind may follow which. The
table is enforced *while the agent runs*: each new step goes through `TypedTrajectory.append`,
which returns a new trajectory or raises IllegalTransition — so a bug in the loop (say, two
observations in a row) stops the run at once instead of producing a plausible-looking trace.

    GOAL -> THOUGHT | ACTION | FINAL | ERROR        ACTION -> OBSERVATION (only)
    THOUGHT -> ACTION | FINAL | ERROR               OBSERVATION, ERROR -> THOUGHT | ACTION | FINAL | ERROR
    FINAL -> nothing (the run is complete)

Each turn is one `react.react_step`, the same step the ReAct loop takes, turned into typed steps
by its outcome. Malformed model output (neither an action nor a final answer) becomes an explicit
ERROR step, and the next prompt carries the same repair observation the ReAct loop uses; a
predictor that fails is one ERROR step and ends the run, as it ends the loop.

Usage:

    >>> from lllm.predictors import RulePredictor
    >>> run = run_typed("What is 6 times 7?", RulePredictor())
    >>> [step.kind.name for step in run.steps], run.completed, run.answer
    (['GOAL', 'THOUGHT', 'ACTION', 'OBSERVATION', 'FINAL'], True, '42')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence

from lllm.agents.react import REPAIR_OBSERVATION, Outcome, Step, react_step
from lllm.agents.tools import DEFAULT_TOOLS, Tool

__all__ = ["StepKind", "TypedStep", "TRANSITIONS", "IllegalTransition", "TypedTrajectory", "react_steps", "typed_steps",
           "run_typed"]


# ---- kinds, records and the transition table ---------------------------------------------------

# --8<-- [start:types]
class StepKind(enum.Enum):
    GOAL = "goal"
    THOUGHT = "thought"
    ACTION = "action"
    OBSERVATION = "observation"
    FINAL = "final"
    ERROR = "error"


K = StepKind
TRANSITIONS: dict[StepKind | None, frozenset[StepKind]] = {
    None: frozenset({K.GOAL}),                                   # a run starts with its goal
    K.GOAL: frozenset({K.THOUGHT, K.ACTION, K.FINAL, K.ERROR}),
    K.THOUGHT: frozenset({K.ACTION, K.FINAL, K.ERROR}),
    K.ACTION: frozenset({K.OBSERVATION}),                        # a tool call always gets its answer
    K.OBSERVATION: frozenset({K.THOUGHT, K.ACTION, K.FINAL, K.ERROR}),
    K.ERROR: frozenset({K.THOUGHT, K.ACTION, K.FINAL, K.ERROR}),
    K.FINAL: frozenset(),                                        # nothing follows the answer
}


@dataclass(frozen=True)
class TypedStep:
    kind: StepKind
    text: str                        # the thought, the answer, the observation, the bad output
    tool: str | None = None          # ACTION only
    args: str | None = None          # ACTION only

    def __post_init__(self):
        if (self.kind is K.ACTION) != (self.tool is not None):
            raise ValueError(f"a {self.kind.name} step {'needs a' if self.kind is K.ACTION else 'takes no'} tool")

    def show(self) -> str:
        return f"{self.tool}[{self.args}]" if self.kind is K.ACTION else self.text


class IllegalTransition(ValueError):
    """A step whose kind may not follow the previous step's kind."""


@dataclass(frozen=True)
class TypedTrajectory:
    steps: tuple[TypedStep, ...] = ()

    def append(self, step: TypedStep) -> "TypedTrajectory":
        """A new trajectory with `step` added; IllegalTransition if the table forbids it."""
        last = self.steps[-1].kind if self.steps else None
        if step.kind not in TRANSITIONS[last]:
            allowed = ", ".join(sorted(k.name for k in TRANSITIONS[last])) or "nothing"
            raise IllegalTransition(f"step {len(self.steps) + 1}: {step.kind.name} cannot follow "
                                    f"{last.name if last else 'the start'} (allowed: {allowed})")
        return TypedTrajectory(self.steps + (step,))

    @classmethod
    def validate(cls, steps: Sequence[TypedStep]) -> "TypedTrajectory":
        trajectory = cls()
        for step in steps:
            trajectory = trajectory.append(step)
        return trajectory

    @property
    def completed(self) -> bool:
        return bool(self.steps) and self.steps[-1].kind is K.FINAL

    @property
    def answer(self) -> str | None:
        return self.steps[-1].text if self.completed else None

    def render(self) -> str:
        return "\n".join(f"{n:2d}. {s.kind.name:<11s} {s.show()}" for n, s in enumerate(self.steps, 1))
# --8<-- [end:types]


# ---- the run: the ReAct loop, one typed step at a time -----------------------------------------

def react_steps(typed: TypedTrajectory) -> list[Step]:
    """The ReAct steps that `build_prompt` renders, rebuilt from the typed ones."""
    steps: list[Step] = []
    for s in typed.steps[1:]:
        if s.kind is K.THOUGHT:
            steps.append(Step(thought=s.text))
        elif s.kind is K.ACTION:
            if not steps or steps[-1].action or steps[-1].observation is not None:
                steps.append(Step())
            steps[-1].action = (s.tool, s.args)
        elif s.kind is K.OBSERVATION:
            steps[-1].observation = s.text
        elif s.kind is K.ERROR:
            steps.append(Step(observation=REPAIR_OBSERVATION))
    return steps


def typed_steps(step: Step) -> list[TypedStep]:
    """The typed steps one ReAct step makes, by its outcome: a thought if any, then the final
    answer, or the action and its observation, or an ERROR step (repair or predictor error)."""
    out = [TypedStep(K.THOUGHT, step.thought)] if step.thought else []
    if step.outcome is Outcome.FINAL:
        return out + [TypedStep(K.FINAL, step.final)]
    if step.outcome is Outcome.REPAIR:
        return out + [TypedStep(K.ERROR, f"malformed output: {step.raw[:80]!r}")]
    if step.outcome is Outcome.PREDICTOR_ERROR:
        return out + [TypedStep(K.ERROR, step.observation)]
    return out + [TypedStep(K.ACTION, "", tool=step.action[0], args=step.action[1]),
                  TypedStep(K.OBSERVATION, step.observation)]


# --8<-- [start:run-typed]
def run_typed(goal: str, predictor, tools: Sequence[Tool] = DEFAULT_TOOLS,
              max_turns: int = 5) -> TypedTrajectory:
    """Ask the model at most `max_turns` times; every step is checked against TRANSITIONS."""
    if not goal.strip():
        raise ValueError("goal is empty: ask the agent a question")
    run = TypedTrajectory().append(TypedStep(K.GOAL, goal))
    for _ in range(max_turns):
        step = react_step(goal, predictor, tools, react_steps(run))
        for typed in typed_steps(step):
            run = run.append(typed)
        if step.outcome in (Outcome.FINAL, Outcome.PREDICTOR_ERROR):
            break
    return run
# --8<-- [end:run-typed]


if __name__ == "__main__":
    from lllm.predictors import RulePredictor

    print(run_typed("What is 17 * 23?", RulePredictor()).render())
