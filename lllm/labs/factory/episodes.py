"""Layer 4 · the synthetic data factory: `run_factory(n, predictor) -> FactoryRun` of verified trajectories.

Read `tasks.py` (the task families and the held-out rule), `lllm/agents/react.py` and `lllm/predictors/standins/react.py`
first. The factory turns a predictor that can act into training data for a model that cannot yet,
and never keeps a wrong answer. The default actor is the *teacher*: for each task it writes the
steps of the task's own plan (`teacher(task)`: "Thought: look up tom, then + 5 / Action: lookup[tom]", then
"Thought: compute 11 + 5 / Action: calc[11 + 5]", then the answer right under the observation it
copies). Any predictor works instead — the rule predictor solves the plainer arithmetic, lookup and
no-tool families, and whatever it gets wrong is rejected:

    for each new task (goal + oracle):
        trajectory = run_react(goal, predictor)             # act (teacher(task) by default)
        critique   = critic(trajectory)                      # SCORE / KEEP / REASON, parsed
        verdict    = verify(trajectory, task)                # the tool result and the oracle
        keep it only if the critique parsed, says KEEP, scores >= min_score, and verify passed

Duplicate goals are skipped before they run. The kept training episodes become `corpus.txt`:
each episode from its `Question:` line to a blank line, every character kept (the prompt header
that precedes each one is `prompt.txt`). Validation and test episodes come from held-out tasks,
so no held-out goal or number combination is ever in the corpus.

Usage:

    >>> run = run_factory(20, seed=1, held_out=0)
    >>> len(run.kept) + run.counts["duplicate"] == 20, run.counts["wrong"]
    (True, 0)
    >>> print(run.kept[0].text().splitlines()[0][:9])
    Question:
"""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from lllm.agents.calc import calc
from lllm.labs.factory.tasks import Task, make_suite, make_task
from lllm.agents.react import FAILED, PROMPT_HEADER, Trajectory, run_react
from lllm.agents.tools import DEFAULT_TOOLS, Tool, lookup
from lllm.labs.scoring import answer_matches

__all__ = ["teacher", "CRITIQUE_PROMPT", "Critique", "parse_critique", "rule_critique", "PredictorCritic",
           "verify", "Episode", "run_episode", "FactoryRun", "run_factory",
           "prompt_header", "agent_mask", "load_corpus", "corrupt"]

MAX_STEPS = 4


# ---- the teacher: a task's plan, demonstrated --------------------------------------------------

# --8<-- [start:teacher]
def teacher(task: Task):
    """A predictor that demonstrates `task`'s plan: one Thought/Action per planned call, then the
    answer under the last observation it copies; "Thought: repeat w" for a no-tool task."""
    calls = task.calls

    def reply(prompt: str, max_new_tokens: int | None = None) -> str:
        done = prompt[prompt.rfind("Question:"):].count("\nObservation:")
        if not calls:
            text = f"Thought: repeat {task.answer}\nFinal Answer: {task.answer}"
        elif done < len(calls):
            tool, args = calls[done]
            text = f"Thought: {'compute' if tool == 'calc' else 'look up'} {args}{_then(calls[done + 1:])}\nAction: {tool}[{args}]"
        else:
            text = "Final Answer: " + prompt.rstrip("\n").rsplit("\nObservation: ", 1)[-1]
        return text if max_new_tokens is None else text[:max_new_tokens]
    return reply
# --8<-- [end:teacher]


def _then(rest) -> str:
    """The rest of a two-step plan, said in the first thought: ", then + 16" before a lookup whose
    number the calculation takes, so the operation and its operand are written down in one canonical
    form before the long observation comes between the question and the calculation."""
    found = re.match(r"^\S+ ([-+*]) (\S+)$", rest[0][1]) if rest and rest[0][0] == "calc" else None
    return f", then {found.group(1)} {found.group(2)}" if found else ""


# ---- the self-critique: a documented text format and its parser ---------------------------------

# --8<-- [start:critique]
CRITIQUE_PROMPT = """Critique the agent run below. Reply with exactly three lines:
SCORE: a number from 0 to 1
KEEP: yes or no
REASON: one sentence
{trajectory}
"""
CRITIQUE_RE = re.compile(r"SCORE:[ \t]*([01](?:\.\d+)?|\.\d+)[ \t]*\n"
                         r"KEEP:[ \t]*(yes|no)[ \t]*\n"
                         r"REASON:[ \t]*(\S[^\n]*)", re.I)


@dataclass(frozen=True)
class Critique:
    score: float
    keep: bool
    reason: str


def parse_critique(text: str) -> Critique | None:
    """The first SCORE / KEEP / REASON block in `text`, or None (never a default score)."""
    match = CRITIQUE_RE.search(text or "")
    if not match or float(match.group(1)) > 1:
        return None
    return Critique(float(match.group(1)), match.group(2).lower() == "yes", match.group(3).strip())


def rule_critique(trajectory: Trajectory, task: Task) -> str:
    """The default critic, a written heuristic (it cannot see the oracle; `verify` does):
    start at 1.0; -0.5 without a final answer; -0.3 for each repair or tool-error observation;
    -0.2 for each step beyond the ideal (one per planned tool call, plus the answer); -0.2 when the first thought
    does not restate the action's argument. KEEP when the score is at least 0.5."""
    score, notes = 1.0, []
    if trajectory.answer is None:
        score, notes = score - 0.5, notes + ["no final answer"]
    errors = [s for s in trajectory.steps if s.outcome in FAILED]
    if errors:
        score, notes = score - 0.3 * len(errors), notes + [f"{len(errors)} failed step(s)"]
    extra = len(trajectory.steps) - (len(task.calls) + 1)
    if extra > 0:
        score, notes = score - 0.2 * extra, notes + [f"{extra} extra step(s)"]
    first = trajectory.steps[0] if trajectory.steps else None
    if first and first.action and first.action[1] not in (first.thought or ""):
        score, notes = score - 0.2, notes + ["the thought does not restate the argument"]
    score = max(0.0, round(score, 2))
    reason = "; ".join(notes) or "clean run: the shortest path to an answer"
    return f"SCORE: {score}\nKEEP: {'yes' if score >= 0.5 else 'no'}\nREASON: {reason}"
# --8<-- [end:critique]


class PredictorCritic:
    """Self-critique by a model: show it the run with CRITIQUE_PROMPT, return its raw reply."""

    def __init__(self, predictor):
        self.predictor = predictor

    def __call__(self, trajectory: Trajectory, task: Task) -> str:
        try:
            return self.predictor(CRITIQUE_PROMPT.format(trajectory=trajectory.render()), 120)
        except Exception as error:     # a failing critic is a rejected episode, not a crash
            return f"critic error: {type(error).__name__}: {error}"


# ---- verification against the task oracle -------------------------------------------------------

# --8<-- [start:verify]
def verify(trajectory: Trajectory, task: Task) -> str | None:
    """None when the run is right, else why not. Right means: the final answer equals the
    oracle's, the plan's tools were called in order, the last tool call is the task's tool, and
    running it again gives the answer."""
    calls = trajectory.tool_calls()
    if trajectory.answer is None:
        return "no final answer"
    names = iter(name for name, _ in calls)
    if len(task.calls) > 1 and not all(want in names for want, _ in task.calls):
        return "did not call " + ", then ".join(name for name, _ in task.calls)
    if task.tool is None:
        if calls:
            return f"called {calls[0][0]} for a question that needs no tool"
    elif not calls:
        return f"answered without calling {task.tool}"
    else:
        name, args = calls[-1]
        if name != task.tool:
            return f"called {name}, the task needs {task.tool}"
        try:
            result = calc(args) if name == "calc" else lookup(args)
        except (ValueError, LookupError) as error:
            return f"the tool call {name}[{args}] fails: {error}"
        if not answer_matches(result, task.answer, exact=True):
            return f"{name}[{args}] gives {result!r}, the oracle says {task.answer!r}"
    if not answer_matches(trajectory.answer, task.answer, exact=True):
        return f"final answer {trajectory.answer!r}, the oracle says {task.answer!r}"
    return None
# --8<-- [end:verify]


# ---- an episode --------------------------------------------------------------------------------

@dataclass
class Episode:
    """One task run once: the trajectory, the critique (raw and parsed), and the verdict."""

    task: Task
    trajectory: Trajectory
    critique_text: str
    critique: Critique | None
    rejected: str | None = None       # why it was not kept; None = kept

    def text(self) -> str:
        """The training text: from the Question line to the blank line after the Final Answer."""
        return self.trajectory.render() + "\n\n"

    def to_dict(self) -> dict:
        return {"task": self.task.to_dict(), "text": self.text(), "critique": self.critique_text,
                "rejected": self.rejected, "steps": len(self.trajectory.steps)}


def run_episode(task: Task, predictor=None, critic: Callable = rule_critique,
                tools: Sequence[Tool] = DEFAULT_TOOLS, min_score: float = 0.5) -> Episode:
    """Act (`predictor`, or the task's teacher), critique, verify. The verdict names the first
    reason to reject, or None."""
    trajectory = run_react(task.goal, predictor or teacher(task), tools, max_steps=MAX_STEPS, return_trajectory=True)
    text = critic(trajectory, task)
    critique = parse_critique(text)
    episode = Episode(task, trajectory, text, critique)
    if critique is None:
        episode.rejected = "critique not in SCORE / KEEP / REASON format"
    else:
        wrong = verify(trajectory, task)
        if wrong:
            episode.rejected = "wrong: " + wrong
        elif not critique.keep or critique.score < min_score:
            episode.rejected = f"critic: score {critique.score} ({critique.reason})"
    return episode


# ---- a factory run -----------------------------------------------------------------------------

# --8<-- [start:run-factory]
@dataclass
class FactoryRun:
    kept: list[Episode] = field(default_factory=list)
    rejected: list[Episode] = field(default_factory=list)
    held_out: dict[str, list[Episode]] = field(default_factory=dict)   # split -> kept episodes
    counts: dict[str, int] = field(default_factory=lambda: {"duplicate": 0, "wrong": 0,
                                                            "critic": 0, "unparsable critique": 0})

    def summary(self) -> str:
        tried = len(self.kept) + len(self.rejected)
        lines = [f"kept {len(self.kept)} of {tried} training episodes "
                 f"({self.counts['duplicate']} duplicate goals skipped before running)"]
        lines += [f"  rejected, {why}: {n}" for why, n in self.counts.items() if why != "duplicate"]
        lines += [f"held-out {split}: {len(eps)} verified episodes" for split, eps in self.held_out.items()]
        return "\n".join(lines)


def run_factory(n: int, predictor=None, *, seed: int = 0, critic: Callable = rule_critique,
                min_score: float = 0.5, held_out: int = 10) -> FactoryRun:
    """Try `n` training tasks (duplicates skipped) and `held_out` goals per held-out group, acted
    by `predictor` (None: each task's teacher)."""
    run, rng, goals = FactoryRun(), random.Random(seed), set()
    for _ in range(n):
        task = make_task(rng, "train")
        if task.goal in goals:
            run.counts["duplicate"] += 1
            continue
        goals.add(task.goal)
        episode = run_episode(task, predictor, critic, min_score=min_score)
        (run.kept if episode.rejected is None else run.rejected).append(episode)
        if episode.rejected:
            why = episode.rejected.split(":")[0]
            run.counts["unparsable critique" if why.startswith("critique") else why] += 1
    for split in ("validation", "test") if held_out else ():
        episodes = [run_episode(t, predictor, critic, min_score=min_score)
                    for t in make_suite(split, held_out, seed)]
        run.held_out[split] = [e for e in episodes if e.rejected is None]
    return run
# --8<-- [end:run-factory]


# ---- the corpus and its training mask ----------------------------------------------------------

def prompt_header(tools: Sequence[Tool] = DEFAULT_TOOLS) -> str:
    """What precedes every `Question:` line in a prompt (react.build_prompt's header)."""
    return PROMPT_HEADER.format(tools="\n".join(f"{t.name}: {t.description}" for t in tools))


AGENT_LINE_RE = re.compile(r"^(?:Thought|Action|Final Answer):[^\n]*\n|^Observation:|^\n", re.M)


def agent_mask(text: str) -> list[int]:
    """1 for each character the agent itself writes (its Thought / Action / Final Answer lines,
    the `Observation:` marker it stops at, the closing blank line), 0 for the question and the
    tools' observations, which the prompt supplies.

    >>> text = "Question: 2+2?\\nAction: calc[2+2]\\nObservation: 4\\n"
    >>> "".join(c for c, m in zip(text, agent_mask(text)) if m)
    'Action: calc[2+2]\\nObservation:'
    """
    mask = [0] * len(text)
    for match in AGENT_LINE_RE.finditer(text):
        mask[match.start():match.end()] = [1] * (match.end() - match.start())
    return mask


def load_corpus(path: str) -> list[str]:
    """The episodes of a corpus.txt; ValueError naming the file when it is empty or malformed."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    except OSError as error:
        raise ValueError(f"{path}: cannot read the corpus ({error.strerror})") from None
    texts = [t + "\n\n" for t in raw.split("\n\n") if t.strip()]
    if not texts:
        raise ValueError(f"{path}: the corpus is empty (did the factory keep any episode?)")
    for i, text in enumerate(texts, 1):
        if not text.startswith("Question: ") or "\nFinal Answer: " not in text:
            raise ValueError(f"{path}: episode {i} is not a trajectory (it must start with "
                             f"'Question: ' and contain a 'Final Answer: ' line): {text[:60]!r}")
    return texts


def corrupt(episode: Episode, rng: random.Random) -> str | None:
    """A plausible wrong version of a kept arithmetic episode (one operand digit changed), for
    chosen / rejected pairs; None for other families."""
    task = episode.task
    if task.family != "arithmetic":
        return None
    digits = [i for i, c in enumerate(task.args) if c.isdigit()]
    i = rng.choice(digits)
    bad = task.args[:i] + str((int(task.args[i]) + rng.randrange(1, 10)) % 10) + task.args[i + 1:]
    result = calc(bad)
    return (f"Question: {task.goal}\nThought: compute {bad}\nAction: calc[{bad}]\n"
            f"Observation: {result}\nFinal Answer: {result}\n\n")


# ---- files -------------------------------------------------------------------------------------

def write_run(run: FactoryRun, out: str, pairs: bool = False, seed: int = 0) -> list[str]:
    """Write the run into folder `out`; return the file names written."""
    os.makedirs(out, exist_ok=True)

    def jsonl(name, records):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        return name

    written = [jsonl("train.jsonl", [e.to_dict() for e in run.kept]),
               jsonl("rejected.jsonl", [e.to_dict() for e in run.rejected])]
    written += [jsonl(f"{split}.jsonl", [e.to_dict() for e in eps]) for split, eps in run.held_out.items()]
    with open(os.path.join(out, "corpus.txt"), "w", encoding="utf-8") as f:
        f.write("".join(e.text() for e in run.kept))
    with open(os.path.join(out, "prompt.txt"), "w", encoding="utf-8") as f:
        f.write(prompt_header())
    written += ["corpus.txt", "prompt.txt"]
    if pairs:
        rng = random.Random(seed)
        rows = [{"goal": e.task.goal, "chosen": e.text(), "rejected": bad}
                for e in run.kept if (bad := corrupt(e, rng)) and bad != e.text()]
        written.append(jsonl("pairs.jsonl", rows))
    return written


if __name__ == "__main__":
    demo = run_factory(30, seed=0, held_out=2)
    print(demo.summary())
    print(demo.kept[0].critique_text)
    print(demo.kept[0].text())
