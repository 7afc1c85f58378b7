"""Layer 3 · the Game of 24 task: its data, prompts, parser and environment.

Read `records.py`, `data.py` and `lllm/predictors/standins/game24_arithmetic.py` first. This is the only environment in
`lllm.reasoning` that knows what Game of 24 is. The agent asks the environment's Prompter for a
prompt, sends it to the model, and hands the reply to the environment's Parser; the environment
turns the parsed Inference into the next State and verifies states exactly (Fractions).

    puzzle  "4 4 6 8"                       use each number once, with + - * /, to make 24
    a step  "4 + 8 = 12 (left: 4 6 12)"     two numbers become one
    answer  "Answer: (4 + 8) * (6 - 4) = 24"

The puzzles are the standard set: `lllm/reasoning/data/game24-4nums.csv`, the 1,362 puzzles from 4nums.com
ranked by human solving time, as the Tree of Thoughts benchmark uses them (source and columns
in `data/SOURCES.txt`). Splits are fixed: test = rows 900-999 (ranks 901-1,000, the split the
Tree of Thoughts paper and its successors report), validation = 1000-1099, train = the other
1,162 rows.

Usage:

    >>> env = Game24()
    >>> s = env.reset(0)
    >>> s.puzzle
    '1 1 4 6'
    >>> t = env.step(Inference(action="4 * 6 = 24 (left: 1 1 24)"), s)
    >>> env.verify(t)
    Verification(finished=False, correct=False, message='3 numbers left: 1 1 24')
    >>> env.verify(env.step(Inference(action="Answer: (1 * 1) * 4 * 6 = 24"), s)).correct
    True
"""

from __future__ import annotations

import os
import re
from fractions import Fraction

from lllm.predictors.standins.game24_arithmetic import apply_step, check_answer, fmt_numbers, parse_numbers
from lllm.reasoning.data import DATA_DIR, Data
from lllm.reasoning.records import Inference, State, Verification

__all__ = ["Game24", "Prompter", "Parser", "load_game24", "reply_lines", "GAME24_CSV", "PUZZLE_COLUMN", "SPLITS", "VALUES"]

GAME24_CSV = os.path.join(DATA_DIR, "game24-4nums.csv")
PUZZLE_COLUMN = "Puzzles"
SPLITS = {"train": list(range(0, 900)) + list(range(1100, 1362)),
          "test": range(900, 1000), "validation": range(1000, 1100)}


def load_game24(path: str = GAME24_CSV) -> Data:
    return Data(splits=SPLITS, columns=["Rank", PUZZLE_COLUMN]).initialize(path)


# ---- prompts (each ends with the cue its parser reads after) ----------------------------------

# --8<-- [start:prompts]
IO_PROMPT = """Use the numbers and + - * / to obtain 24. Use each number exactly once.
Input: 4 4 6 8
Answer: (4 + 8) * (6 - 4) = 24
{lessons}Input: {input}
Answer:"""

COT_PROMPT = """Use the numbers and + - * / to obtain 24. Each step combines two numbers.
Input: 4 4 6 8
Steps:
4 + 8 = 12 (left: 4 6 12)
6 - 4 = 2 (left: 2 12)
2 * 12 = 24 (left: 24)
Answer: (4 + 8) * (6 - 4) = 24
{lessons}Input: {input}
Steps:"""

ACT_PROMPT = """Combine two of the numbers to get closer to 24. Write one step.
Input: 4 4 6 8
Next step: 4 + 8 = 12 (left: 4 6 12)
{lessons}Input: {input}
Next step:"""

PROPOSE_PROMPT = """List possible next steps, one per line.
Input: 2 8 8 14
Possible next steps:
2 + 8 = 10 (left: 8 10 14)
8 / 2 = 4 (left: 4 8 14)
14 - 8 = 6 (left: 2 6 8)
Input: {input}
Possible next steps:"""

REACT_PROMPT = """Reach 24 from the numbers. Think, then act: an action is one step.
Input: 4 4 6 8
Thought: 2 * 12 = 24, and 4 + 8 = 12.
Action: 4 + 8 = 12 (left: 4 6 12)
Observation: left 4 6 12
{history}{lessons}Input: {input}
Thought:"""

REFLECT_PROMPT = """You tried to obtain 24 from {puzzle} and failed.
Attempt:
{attempt}
Feedback: {feedback}
In one sentence, what should you avoid next time?
Lesson:"""

VALUE_PROMPT = """Can these numbers reach 24? Answer sure, likely or impossible.
Input: 10 14
Evaluation: 10 + 14 = 24. sure
Input: 1 3 3
Evaluation: 1 * 3 * 3 = 9, (1 + 3) * 3 = 12. impossible
Input: {input}
Evaluation:"""

VALUES = {"sure": 20.0, "likely": 1.0, "impossible": 0.001}
# --8<-- [end:prompts]


class Prompter:
    """Builds each operation's prompt from a state (the Agent never formats a prompt itself)."""

    @staticmethod
    def _lessons(state: State) -> str:
        if not state.reflexions:
            return ""
        return "Lessons from earlier attempts:\n" + "".join(f"- {r}\n" for r in state.reflexions)

    def io(self, state: State) -> str:
        return IO_PROMPT.format(input=state.current_state, lessons=self._lessons(state))

    def cot(self, state: State) -> str:
        return COT_PROMPT.format(input=state.current_state, lessons=self._lessons(state))

    def act(self, state: State) -> str:
        return ACT_PROMPT.format(input=state.current_state, lessons=self._lessons(state))

    def propose(self, state: State) -> str:
        return PROPOSE_PROMPT.format(input=state.current_state)

    def react(self, state: State) -> str:
        history = "".join(f"Action: {s}\nObservation: left {s.split('(left: ')[-1].rstrip(')')}\n" for s in state.steps)
        return REACT_PROMPT.format(input=state.current_state, history=history, lessons=self._lessons(state))

    def reflect(self, state: State, verification: Verification) -> str:
        attempt = "\n".join(state.steps) or "(no steps)"
        return REFLECT_PROMPT.format(puzzle=state.puzzle, attempt=attempt, feedback=verification.message)

    def evaluate(self, state: State) -> str:
        return VALUE_PROMPT.format(input=state.current_state)


# ---- parsing replies (a reply that makes no sense becomes a step the environment rejects) -----

def reply_lines(reply: str) -> list[str]:
    """The reply's non-blank lines, stripped."""
    return [line.strip() for line in reply.strip().splitlines() if line.strip()]


class Parser:
    def io(self, reply: str, state: State) -> Inference:
        lines = reply_lines(reply)
        answer = next((l for l in lines if l.startswith("Answer:")), lines[0] if lines else "")
        answer = answer[len("Answer:"):].strip() if answer.startswith("Answer:") else answer
        return Inference(action=f"Answer: {answer}")

    def cot(self, reply: str, state: State) -> Inference:
        lines = reply_lines(reply)
        answer = next((l for l in lines if l.startswith("Answer:")), "Answer: " + (lines[-1] if lines else ""))
        thought = "\n".join(l for l in lines if not l.startswith("Answer:"))
        return Inference(action=answer, thought=thought or None)

    def act(self, reply: str, state: State) -> Inference:
        lines = reply_lines(reply)
        return Inference(action=lines[0] if lines else "")

    def propose(self, reply: str, state: State) -> list[Inference]:
        return [Inference(action=line) for line in reply_lines(reply)]

    def react(self, reply: str, state: State) -> Inference:
        lines = reply_lines(reply)
        action = next((l[len("Action:"):].strip() for l in lines if l.startswith("Action:")), "")
        thought = " ".join(l for l in lines if not l.startswith(("Action:", "Observation:")))
        return Inference(action=action, thought=thought.removeprefix("Thought:").strip() or None)

    def reflect(self, reply: str, state: State) -> Inference:
        lines = reply_lines(reply)
        return Inference(reflexion=lines[0] if lines else None)

    def evaluate(self, reply: str, state: State) -> Inference:
        words = re.findall(r"[a-z]+", reply.lower())
        label = next((w for w in reversed(words) if w in VALUES), None)
        return Inference(value=VALUES[label] if label else None)


# ---- the environment ----------------------------------------------------------------------------

class Game24:
    """Game of 24: reset to a puzzle, apply a parsed step or answer, value and verify states."""

    def __init__(self, data: Data | None = None):
        self.data = data if data is not None else load_game24()
        self.prompter = Prompter()
        self.parser = Parser()

    def reset(self, puzzle_idx: int, randomness: int = 0) -> State:
        puzzle = self.data.read(puzzle_idx)[PUZZLE_COLUMN]
        return State(puzzle=puzzle, current_state=puzzle, randomness=randomness)

    # --8<-- [start:next-state]
    def get_next_state(self, inference: Inference, state: State) -> State:
        action = (inference.action or "").strip()
        if action.startswith("Answer:"):                    # a whole answer (after its worked steps)
            ok, message = check_answer(parse_numbers(state.puzzle), action[len("Answer:"):])
            for line in (inference.thought or "").splitlines():
                state = state.step(line, state.current_state)
            return state.step(action, "24" if ok else f"invalid: {message}")
        if state.current_state.startswith("invalid"):
            return state                                   # nothing follows a broken step
        left, written = apply_step(parse_numbers(state.current_state), action)
        if left is None:
            return state.step(action or "(empty reply)", f"invalid: {written}")
        return state.step(written, fmt_numbers(left))
    # --8<-- [end:next-state]

    step = get_next_state

    def get_value(self, state: State) -> float | None:
        """A free heuristic: a broken state or a single wrong number is worth nothing; else unknown."""
        if state.current_state.startswith("invalid"):
            return 0.0
        left = state.current_state.split()
        if len(left) == 1:
            return VALUES["sure"] if Fraction(left[0]) == 24 else 0.0
        return None

    # --8<-- [start:verify]
    def verify(self, state: State) -> Verification:
        if state.steps and state.steps[-1].startswith("Answer:"):
            ok, message = check_answer(parse_numbers(state.puzzle), state.steps[-1][len("Answer:"):])
            return Verification(True, ok, message)
        numbers = parse_numbers(state.puzzle)
        for i, step in enumerate(state.steps, 1):          # replay: trust nothing but the steps
            numbers, message = apply_step(numbers, step)
            if numbers is None:
                return Verification(True, False, f"step {i}: {message}")
        if len(numbers) == 1:
            if numbers[0] == 24:
                return Verification(True, True, f"reached 24 in {len(state.steps)} steps")
            return Verification(True, False, f"reached {fmt_numbers(numbers)}, not 24")
        return Verification(False, False, f"{len(numbers)} numbers left: {fmt_numbers(numbers)}")
    # --8<-- [end:verify]
