"""Layer 3 · a second task where tools matter: multi-hop questions over Brookfield, with `lookup`.

Read `game24.py` first: this file is the same kind of thing for another task, so the frameworks
run on it unchanged. The questions are HotpotQA-shaped — each needs two or three facts, and the
fact that answers one hop names the topic of the next:

    question  "How many hens does the owner of Bram keep?"
    a step    "lookup[bram]"     -> observation "Bram is Lina's brown goat."
    a step    "lookup[lina]"     -> observation "Lina lives in ... She keeps 5 hens and 1 goat."
    answer    "Answer: 5"        scored by exact match (case and punctuation aside)

A lookup the tool cannot serve is an observation ("error: no fact about ..."), as in ReAct; a
reply that is neither a lookup nor an answer is an `invalid:` state. The gold answer is read
only by `verify`, and its message never repeats it (Reflexion's lessons see the message).

Usage:

    >>> env = BrookfieldQA()
    >>> s = env.reset(1)
    >>> s.puzzle
    'How many hens does the owner of Bram keep?'
    >>> s = env.step(Inference(action="lookup[bram]"), s)
    >>> s.current_state
    "Bram is Lina's brown goat."
    >>> env.verify(env.step(Inference(action="Answer: 5"), s))
    Verification(finished=True, correct=True, message="'5' is right")
"""

from __future__ import annotations

import os
import re

from lllm.agents.tools import FACTS, lookup
from lllm.reasoning.data import DATA_DIR, Data
from lllm.reasoning.tasks.game24 import Parser, reply_lines
from lllm.reasoning.records import Inference, State, Verification

__all__ = ["BrookfieldQA", "QAPrompter", "QAParser", "load_brookfield", "BROOKFIELD_CSV", "normalize"]

BROOKFIELD_CSV = os.path.join(DATA_DIR, "brookfield-qa.csv")
START = "(nothing looked up yet)"


def load_brookfield(path: str = BROOKFIELD_CSV) -> Data:
    data = Data(columns=["question", "answer", "hops"]).initialize(path)
    data.splits = {"test": list(range(len(data)))}
    return data


def normalize(answer: str) -> str:
    """'  Apple Street.' -> 'apple street' (exact match ignores case, spaces and end punctuation)."""
    return " ".join(answer.lower().strip().rstrip(".!").split())


# ---- prompts (each ends with the cue the parser reads after) -------------------------------------

# --8<-- [start:qa-prompts]
TOOL = f"""Answer the question about the town of Brookfield. To read a fact, write lookup[topic].
Topics: {", ".join(FACTS)}
Question: How old is the son of Owen?
Action: lookup[owen]
Observation: Owen is the miller, Tom's father. He lives at the mill by the river.
Action: lookup[tom]
Observation: Tom is 11 years old. He lives at the mill with his father, Owen.
Action: Answer: 11
"""

REACT_PROMPT = TOOL + "{lessons}Question: {question}\n{history}Thought:"
ACT_PROMPT = TOOL + "{lessons}Question: {question}\n{history}Next action:"
PROPOSE_PROMPT = TOOL + "Question: {question}\n{history}Possible next actions:"
VALUE_PROMPT = TOOL + "Question: {question}\n{history}Can this reach the answer? sure, likely or impossible.\nEvaluation:"
# Values: the same labels and numbers as Game of 24 (game24.VALUES), read by the same parser.
IO_PROMPT = "Answer the question about the town of Brookfield.\n{lessons}Question: {question}\nAnswer:"
COT_PROMPT = "Answer the question about the town of Brookfield. Think step by step.\n{lessons}Question: {question}\nSteps:"
REFLECT_PROMPT = """You answered a question about Brookfield and failed.
Question: {question}
Attempt:
{attempt}
Feedback: {feedback}
In one sentence, what should you avoid next time?
Lesson:"""
# --8<-- [end:qa-prompts]


class QAPrompter:
    @staticmethod
    def _lessons(state: State) -> str:
        return "".join(f"Lesson: {r}\n" for r in state.reflexions)

    @staticmethod
    def _history(state: State) -> str:
        lines = []
        for step in state.steps:
            action, _, observation = step.partition(" -> ")
            lines.append(f"Action: {action}\n" + (f"Observation: {observation}\n" if observation else ""))
        return "".join(lines)

    def _fill(self, template: str, state: State) -> str:
        return template.format(question=state.puzzle, history=self._history(state), lessons=self._lessons(state))

    def react(self, state): return self._fill(REACT_PROMPT, state)
    def act(self, state): return self._fill(ACT_PROMPT, state)
    def propose(self, state): return self._fill(PROPOSE_PROMPT, state)
    def evaluate(self, state): return self._fill(VALUE_PROMPT, state)
    def io(self, state): return self._fill(IO_PROMPT, state)
    def cot(self, state): return self._fill(COT_PROMPT, state)

    def reflect(self, state: State, verification: Verification) -> str:
        attempt = "\n".join(state.steps) or "(no steps)"
        return REFLECT_PROMPT.format(question=state.puzzle, attempt=attempt, feedback=verification.message)


# ---- parsing replies -----------------------------------------------------------------------------

def _action(line: str) -> str:
    return line[len("Action:"):].strip() if line.startswith("Action:") else line


class QAParser(Parser):
    """Game of 24's parser for lessons and values (sure / likely / impossible); its own for actions."""

    def act(self, reply: str, state: State) -> Inference:
        lines = [_action(l) for l in reply_lines(reply)]
        return Inference(action=next((l for l in lines if l.startswith(("lookup[", "Answer:"))), lines[0] if lines else ""))

    def react(self, reply: str, state: State) -> Inference:
        lines = reply_lines(reply)
        thought = " ".join(l for l in lines if not l.startswith(("Action:", "Observation:"))) or None
        action = next((_action(l) for l in lines if l.startswith("Action:")), "")
        return Inference(action=action, thought=thought)

    def propose(self, reply: str, state: State) -> list[Inference]:
        return [Inference(action=_action(l)) for l in reply_lines(reply)]

    def io(self, reply: str, state: State) -> Inference:
        lines = reply_lines(reply)
        answer = lines[-1] if lines else ""
        return Inference(action="Answer: " + answer.removeprefix("Answer:").strip())

    def cot(self, reply: str, state: State) -> Inference:
        return self.io(reply, state)



# ---- the environment -----------------------------------------------------------------------------

class BrookfieldQA:
    """Questions about Brookfield: a lookup adds an observation, an answer ends the episode."""

    def __init__(self, data: Data | None = None):
        self.data = data if data is not None else load_brookfield()
        self.prompter = QAPrompter()
        self.parser = QAParser()
        self.gold = {row["question"]: row["answer"] for row in self.data.rows}

    def reset(self, puzzle_idx: int, randomness: int = 0) -> State:
        return State(puzzle=self.data.read(puzzle_idx)["question"], current_state=START, randomness=randomness)

    # --8<-- [start:qa-step]
    def get_next_state(self, inference: Inference, state: State) -> State:
        action = (inference.action or "").strip()
        if self.verify(state).finished:
            return state                                   # nothing follows an answer or a broken step
        if action.startswith("Answer:"):
            return state.step(action, "answered")
        match = re.fullmatch(r"lookup\[(.*)\]", action)
        if not match:
            return state.step(action or "(empty reply)", "invalid: expected lookup[topic] or Answer: ...")
        try:
            observation = lookup(match.group(1))
        except LookupError as error:
            observation = f"error: {error}"                # the model's mistake is an observation
        return state.step(f"{action} -> {observation}", observation)
    # --8<-- [end:qa-step]

    step = get_next_state

    def get_value(self, state: State) -> float | None:
        return 0.0 if state.current_state.startswith("invalid") else None

    def verify(self, state: State) -> Verification:
        if state.current_state.startswith("invalid"):
            return Verification(True, False, state.current_state)
        if state.steps and state.steps[-1].startswith("Answer:"):
            answer = state.steps[-1][len("Answer:"):].strip()
            right = normalize(answer) == normalize(self.gold.get(state.puzzle, ""))
            return Verification(True, right, f"{answer!r} is {'right' if right else 'not the answer'}")
        return Verification(False, False, f"{len(state.steps)} lookup(s), no answer yet")
