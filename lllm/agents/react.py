"""Layer 3 · the ReAct loop: `run_react(goal, predictor, tools) -> final answer or None`.

Read `lllm/predictors/contract.py` (the only way we talk to a model), `calc.py` and `tools.py` first.
ReAct (Reason + Act) alternates the model's text with real tool calls. The whole agent:

    trajectory = []
    repeat at most max_steps times:
        reply = predictor(build_prompt(goal, tools, trajectory))
        if reply has "Final Answer: X": return X
        if reply has "Action: tool[args]": trajectory += reply, "Observation: " + tool(args)

One step is one public function, `react_step` (= `think`, then `act` when the model named a
tool), and the loop, the typed workflow and human-in-the-loop all compose it. Every step records
what happened as a typed field, `step.outcome` (an Outcome: action, final answer, repair,
unknown tool, tool error, predictor error); consumers read that field, never the observation's
text. Everything the model causes becomes a visible, capped step, never a crash: an unknown
tool, a tool that fails, a reply with neither an action nor an answer (a repair observation asks
again), a predictor that raises or returns no text (the run stops, the reason recorded). Errors
in what *we* were given (an empty goal, max_steps < 1, two tools with one name) raise ValueError.

Grounding: a Final Answer that rests on no observation (no tool answered, or it only repeats words
of the goal) is flagged by `grounding(trajectory)` with typed reasons (`grounding.py` has the rule);
the terminal, `--json` and the pages label it "not grounded in any observation".

Forcing: when the goal itself is written as a tool call (`calc[12 * 7]`), the agent runs that
tool once, before asking the model, and labels the step `forced` in the trace. Only the model can
turn the observation into a Final Answer, so a lab still measures the model.

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> predictor = ScriptedPredictor(["Thought: compute 17 * 23\\nAction: calc[17 * 23]",
    ...                            "Thought: I have the result\\nFinal Answer: 391"])
    >>> run_react("What is 17 * 23?", predictor)
    '391'
    >>> print(predictor.prompts[1].split("Final Answer: the answer\\n")[1])
    Question: What is 17 * 23?
    Thought: compute 17 * 23
    Action: calc[17 * 23]
    Observation: 391
    <BLANKLINE>
"""

from __future__ import annotations

import enum
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Callable, Sequence

from lllm.agents.grounding import Ungrounded, label, ungrounded
from lllm.agents.tools import DEFAULT_TOOLS, Tool

__all__ = ["Outcome", "FAILED", "Step", "Trajectory", "build_prompt", "parse_action", "parse_final", "parse_step",
           "think", "act", "react_step", "run_react", "grounding", "trajectory_json", "terminal_text", "MAX_NEW_TOKENS", "MAX_OBSERVATION_CHARS",
           "REPAIR_OBSERVATION", "FORCED_RE"]

MAX_NEW_TOKENS = 128         # one step (a thought and an action) fits; a rambling model is cut off
MAX_OBSERVATION_CHARS = 200  # a tool cannot flood the prompt
PROMPT_TAIL_CHARS = 160      # how much of the prompt the verbose trace shows


# ---- records: what a step did, a step, a trajectory -------------------------------------------

# --8<-- [start:outcome]
class Outcome(str, enum.Enum):
    """What one step did. A str, so a trajectory's JSON says "tool error", not a number."""

    ACTION = "action"                    # a tool ran and answered
    FINAL = "final answer"               # the model answered; the run ends
    REPAIR = "repair"                    # neither an action nor an answer: the model is asked again
    UNKNOWN_TOOL = "unknown tool"        # the model named a tool that does not exist
    TOOL_ERROR = "tool error"            # the tool refused its argument or failed
    PREDICTOR_ERROR = "predictor error"  # the predictor raised or returned no text; the run ends


FAILED = frozenset({Outcome.REPAIR, Outcome.UNKNOWN_TOOL, Outcome.TOOL_ERROR, Outcome.PREDICTOR_ERROR})
# --8<-- [end:outcome]


@dataclass
class Step:
    """One turn: what the model wrote (raw), what we parsed from it, what the tool said, and
    what happened (`outcome`; None only while a proposed action has not run yet)."""

    raw: str = ""
    thought: str | None = None
    action: tuple[str, str] | None = None     # (tool name, argument text)
    final: str | None = None
    observation: str | None = None
    forced: bool = False                      # the agent ran the goal's own tool call
    prompt_tail: str = ""
    outcome: Outcome | None = None

    def render(self) -> str:
        """The lines this step adds to the next prompt."""
        lines = [f"Thought: {self.thought}"] if self.thought else []
        if self.action:
            lines.append(f"Action: {self.action[0]}[{self.action[1]}]")
        if self.final is not None:
            lines.append(f"Final Answer: {self.final}")
        if self.observation is not None:
            lines.append(f"Observation: {self.observation}")
        return "\n".join(lines)


@dataclass
class Trajectory:
    """A whole run: the goal, its steps, the answer (or None) and why the loop stopped."""

    goal: str
    steps: list[Step] = field(default_factory=list)
    answer: str | None = None
    stop_reason: str = ""                     # "final answer", "max steps" or "predictor error"

    @property
    def own_steps(self) -> list[Step]:
        """The steps the model itself wrote: not the forced one, not a predictor failure."""
        return [s for s in self.steps if not s.forced and s.outcome is not Outcome.PREDICTOR_ERROR]

    def tool_calls(self) -> list[tuple[str, str]]:
        return [step.action for step in self.steps if step.action]

    def render(self) -> str:
        return "\n".join([f"Question: {self.goal}"] + [s.render() for s in self.steps if s.render()])

    def to_dict(self) -> dict:
        return asdict(self)


# ---- the prompt --------------------------------------------------------------------------------

# --8<-- [start:prompt]
PROMPT_HEADER = """Answer the question. You can use these tools:
{tools}
Write one step at a time, like this:
Thought: what to do next
Action: tool[input]
Then wait for the Observation. When you know the answer, write:
Final Answer: the answer
"""


def build_prompt(goal: str, tools: Sequence[Tool], trajectory: Sequence[Step],
                 extra_context: str | None = None) -> str:
    """Header, tool list, optional extra context (memory), the question, the steps so far."""
    parts = [PROMPT_HEADER.format(tools="\n".join(f"{t.name}: {t.description}" for t in tools))]
    if extra_context:
        parts.append(extra_context.rstrip("\n") + "\n")
    parts.append(f"Question: {' '.join(goal.split())}\n")
    parts.extend(step.render() + "\n" for step in trajectory if step.render())
    return "".join(parts)
# --8<-- [end:prompt]


# ---- parsing the model's reply (naive on purpose, and never raising) ----------------------------

# --8<-- [start:parse]
ACTION_RE = re.compile(r"Action:[ \t]*([A-Za-z_][\w-]*)[ \t]*\[([^\]\n]*)\]")
FINAL_RE = re.compile(r"Final Answer:[ \t]*(\S[^\n]*)")
THOUGHT_RE = re.compile(r"Thought:[ \t]*(\S[^\n]*)")


def parse_action(text: str) -> tuple[str, str] | None:
    """The first `Action: name[args]` as (name, args), or None."""
    match = ACTION_RE.search(text)
    return (match.group(1), match.group(2).strip()) if match else None


def parse_final(text: str) -> str | None:
    """The rest of the line after the first `Final Answer:`, or None."""
    match = FINAL_RE.search(text)
    return match.group(1).strip() if match else None


def parse_step(raw: str) -> Step:
    """A Step from the model's reply. An observation the model wrote itself is cut off; if the
    reply has both an action and a final answer, the one written first counts."""
    text = raw.split("Observation:")[0]
    thought = THOUGHT_RE.search(text)
    step = Step(raw=raw, thought=thought.group(1).strip()[:120] if thought else None)
    action, final = ACTION_RE.search(text), FINAL_RE.search(text)
    if final and not (action and action.start() < final.start()):
        step.final = parse_final(text)
    elif action:
        step.action = parse_action(text)
    return step
# --8<-- [end:parse]


# ---- one step: think, then act ----------------------------------------------------------------

def quiet(who: str, text: str) -> None:
    """The tracer that says nothing (see `run_react(verbose=True)` for the one that prints)."""


# --8<-- [start:step]
def think(predictor, prompt: str, max_new_tokens: int | None = MAX_NEW_TOKENS, say=quiet) -> Step:
    """Ask the predictor for one step and parse it. A proposed action has not run yet (outcome
    None); a reply with neither an action nor an answer is a REPAIR step; a predictor that raises
    or returns something other than text is a PREDICTOR_ERROR step, its message capped."""
    say("AGENT", f"prompt tail: {prompt[-PROMPT_TAIL_CHARS:]!r}")
    try:
        raw = predictor(prompt, max_new_tokens)
        problem = None if isinstance(raw, str) else f"returned {type(raw).__name__}, not text"
    except Exception as error:  # the model (or its server) failed: record it, never crash
        problem = f"{type(error).__name__}: {error}"
    if problem:
        say("AGENT", f"predictor failed: {problem}")
        return Step(observation=_cap(f"predictor error: {problem}"), outcome=Outcome.PREDICTOR_ERROR)
    say("MODEL", repr(raw))
    step = replace(parse_step(raw), prompt_tail=prompt[-PROMPT_TAIL_CHARS:])
    if step.final is not None:
        return replace(step, outcome=Outcome.FINAL)
    if step.action is None:
        say("AGENT", f"no action or final answer; observation: {REPAIR_OBSERVATION}")
        return replace(step, observation=REPAIR_OBSERVATION, outcome=Outcome.REPAIR)
    return step


def act(step: Step, tools: Sequence[Tool], say=quiet) -> Step:
    """Run the step's action: the step with its observation and outcome (ACTION, UNKNOWN_TOOL
    or TOOL_ERROR). The observation is one line of at most MAX_OBSERVATION_CHARS characters."""
    name, args = step.action
    by_name = {t.name: t for t in tools}
    if name not in by_name:
        observation, outcome = f"error: unknown tool {name!r}; tools are: {', '.join(by_name)}", Outcome.UNKNOWN_TOOL
    else:
        try:
            observation, outcome = str(by_name[name].fn(args)), Outcome.ACTION
        except (ValueError, LookupError) as error:
            observation, outcome = f"error: {error}", Outcome.TOOL_ERROR
        except Exception as error:  # a broken tool is still the run's business, not a crash
            observation, outcome = f"error: {type(error).__name__}: {error}", Outcome.TOOL_ERROR
    observation = _cap(observation)
    say("AGENT", f"action: {name}[{args}] -> observation: {observation}")
    return replace(step, observation=observation, outcome=outcome)


def react_step(goal: str, predictor, tools: Sequence[Tool], steps: Sequence[Step],
               extra_context: str | None = None, max_new_tokens: int | None = MAX_NEW_TOKENS, say=quiet) -> Step:
    """One whole ReAct step: build the prompt from the steps so far, think, and act if asked to."""
    step = think(predictor, build_prompt(goal, tools, steps, extra_context), max_new_tokens, say)
    return act(step, tools, say) if step.outcome is None else step
# --8<-- [end:step]


# ---- the loop ----------------------------------------------------------------------------------

# --8<-- [start:run-react]
def run_react(goal: str, predictor, tools: Sequence[Tool] = DEFAULT_TOOLS, max_steps: int = 5,
              verbose: bool = False, extra_context: str | None = None,
              return_trajectory: bool = False, max_new_tokens: int | None = MAX_NEW_TOKENS):
    """Think, act, observe until a Final Answer or max_steps steps. Returns the answer (None if
    there was none), or the whole Trajectory when return_trajectory is true."""
    trajectory = Trajectory(goal=_check(goal, tools, max_steps))
    say = _tracer(verbose)
    say("AGENT", f"goal: {goal}")
    forced = _forced_step(goal, tools, say)
    if forced:
        trajectory.steps.append(forced)
    while len(trajectory.steps) < max_steps and not trajectory.stop_reason:
        step = react_step(goal, predictor, tools, trajectory.steps, extra_context, max_new_tokens, say)
        trajectory.steps.append(step)                                  # think, act, observe
        if step.outcome is Outcome.FINAL:                               # stop: an answer
            trajectory.answer, trajectory.stop_reason = step.final, "final answer"
        elif step.outcome is Outcome.PREDICTOR_ERROR:                   # stop: no model to ask
            trajectory.stop_reason = "predictor error"
    trajectory.stop_reason = trajectory.stop_reason or "max steps"
    say("AGENT", f"final answer: {trajectory.answer}" if trajectory.answer is not None
        else f"stopped without an answer ({trajectory.stop_reason})")
    return trajectory if return_trajectory else trajectory.answer
# --8<-- [end:run-react]


# ---- after the loop: is the answer grounded, and what the terminal shows --------------------------

def grounding(trajectory: Trajectory, tools_available: bool = True) -> tuple[Ungrounded, ...]:
    """Why the run's final answer is not grounded in any observation (() when it is): the rule of
    `grounding.py`, fed by the typed outcomes — what ACTION steps (forced ones too) observed."""
    seen = [step.observation for step in trajectory.steps if step.outcome is Outcome.ACTION]
    return ungrounded(trajectory.goal, trajectory.answer, seen, tools_available)


def trajectory_json(trajectory: Trajectory) -> dict:
    """What `react --json` prints and the pages draw: `to_dict()` plus "ungrounded", the reasons."""
    return trajectory.to_dict() | {"ungrounded": [reason.value for reason in grounding(trajectory)]}


def terminal_text(trajectory: Trajectory) -> str:
    """What `python -m lllm react GOAL` prints (without --verbose): the trajectory, then why it
    stopped when there is no answer, or the label when the answer rests on no observation. The
    page shows exactly this text."""
    flag = label(grounding(trajectory))
    end = f"(no final answer: {trajectory.stop_reason})\n" if trajectory.answer is None else f"({flag})\n" if flag else ""
    return trajectory.render() + "\n" + end


# ---- the loop's helpers ------------------------------------------------------------------------

REPAIR_OBSERVATION = "no Action or Final Answer found. Write 'Action: tool[input]' or 'Final Answer: ...'"
FORCED_RE = re.compile(r"\s*([A-Za-z_][\w-]*)\[([^\]\n]*)\]\s*")


def _cap(observation: str) -> str:
    return " ".join(observation.split())[:MAX_OBSERVATION_CHARS]


def _check(goal, tools: Sequence[Tool], max_steps) -> str:
    if not isinstance(goal, str) or not goal.strip():
        raise ValueError("goal is empty: ask the agent a question")
    if not isinstance(max_steps, int) or max_steps < 1:
        raise ValueError(f"max_steps must be an integer >= 1, got {max_steps!r}")
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        raise ValueError(f"two tools share a name: {names}")
    return goal


def _tracer(verbose: bool) -> Callable[[str, str], None]:
    """`say(who, text)` prints `[WHO] text` when verbose, else does nothing."""
    return (lambda who, text: print(f"[{who}] {text}")) if verbose else quiet


def _forced_step(goal: str, tools: Sequence[Tool], say) -> Step | None:
    """If the goal is written as `tool[args]` for a known tool, run it once, before the model."""
    match = FORCED_RE.fullmatch(goal)
    if not match or match.group(1) not in {t.name for t in tools}:
        return None
    action = (match.group(1), match.group(2).strip())
    say("AGENT", f"forced: the goal is written as {action[0]}[...], so the agent runs it before asking the model")
    return act(Step(action=action, forced=True), tools, say)


if __name__ == "__main__":
    from lllm.predictors import RulePredictor

    run_react("What is 17 * 23?", RulePredictor(), verbose=True)
