"""Layer 2 · the Game-of-24 stand-in: `SimulatedModel`, a solver-backed player that errs at a set rate.

Read `game24_arithmetic.py` (beside this file) and `lllm/reasoning/tasks/game24.py` (the task) first. TinyLLM was trained on children's stories and cannot do Game of 24 (try
it: `python -m lllm reason --model tinyllm`). To compare frameworks without a real LLM we use a
*stand-in*, and we say so everywhere it is used. It is a Predictor like any other — prompt in,
completion out — and it reads only the prompt: the cue on the last line says which operation
is asked, the last "Input:" line says which numbers. It knows the exact solver, and it has two
separate knobs: `error_rate`, the chance of a mistake every time it takes a reasoning step, and
`value_noise`, the chance that a value judgment is a random label (by default the same as
`error_rate`). At value_noise 0 its judgments are perfect, which no LLM's are: that is why search
scores near 100% on the stand-in, and why the lab sweeps `value_noise` to show how each search
degrades as its evaluator gets worse.

    a step      with prob. 1 - e a step that keeps 24 reachable (if one exists); otherwise a
                random legal step, or (half of those mistakes) an arithmetic slip ("4 + 8 = 13")
    io / cot    three such steps in its head, then "Answer: <expression> = 24" — it always
                claims 24, right or not (so one answer succeeds with about (1 - e)^3)
    propose     up to eight distinct steps, each drawn as above (24 draws at most), so a good
                step is rarely missing — sampling several thoughts is what search buys
    evaluate    "sure" if 24 is still reachable, else "impossible"; with prob. value_noise a
                random label (sure, likely or impossible, equally often)
    reflect     "Avoid starting with <the failed attempt's first step>."; a step named in a
                lesson of the prompt is never chosen again

Randomness comes from the Mulberry32 generator passed in, so a seed gives the same run in
the terminal and in the page.

Usage:

    >>> from lllm.model.sampling import Mulberry32
    >>> model = SimulatedModel(error_rate=0.0, rng=Mulberry32(1))
    >>> model("...\\nInput: 4 6 12\\nEvaluation:")
    ' sure'
    >>> model("...\\nInput: 1 1 1\\nEvaluation:")
    ' impossible'
"""

from __future__ import annotations

from fractions import Fraction

from lllm.model.sampling import Mulberry32
from lllm.predictors.standins.erring import ErringStandIn
from lllm.predictors.standins.game24_arithmetic import fmt, fmt_numbers, good_moves, legal_moves, parse_numbers, solvable

__all__ = ["SimulatedModel"]

AVOID = "- Avoid starting with "


class SimulatedModel(ErringStandIn):
    def __init__(self, error_rate: float = 0.3, rng: Mulberry32 | None = None, n_proposals: int = 8,
                 value_noise: float | None = None):
        super().__init__(error_rate, rng, value_noise, n_proposals)

    # ---- the Predictor contract ---------------------------------------------------------------------

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        lines = prompt.rstrip().splitlines()
        cue = lines[-1].strip() if lines else ""
        inputs = [l[len("Input:"):] for l in lines if l.startswith("Input:")]
        avoid = {l[len(AVOID):].rstrip(".") for l in lines if l.startswith(AVOID)}
        try:
            numbers = parse_numbers(inputs[-1]) if inputs else []
        except ValueError:
            numbers = []
        if cue == "Lesson:":
            reply = self._reflect(lines)
        elif not numbers:
            reply = " I cannot read the numbers."
        elif cue == "Evaluation:":
            reply = " " + self._evaluate(numbers)
        elif cue == "Possible next steps:":
            reply = "\n" + "\n".join(self._proposals(lambda: self._step(numbers)))
        elif cue == "Next step:":
            reply = " " + self._step(numbers, avoid)
        elif cue == "Thought:":
            step = self._step(numbers, avoid)
            reply = f" I will combine {step.split(' =')[0]}.\nAction: {step}"
        elif cue in ("Answer:", "Steps:"):
            steps, expression = self._chain(numbers, avoid)
            reply = f" {expression} = 24" if cue == "Answer:" else "\n" + "\n".join(steps + [f"Answer: {expression} = 24"])
        else:
            reply = " I do not know what is asked."
        return reply if max_new_tokens is None else reply[:max_new_tokens]

    # ---- one reasoning step, right or wrong ---------------------------------------------------------

    def _good(self, numbers, moves: list[str]) -> list[str]:
        good = set(good_moves(numbers))
        return [m for m in moves if m in good]

    def _slip(self, step: str) -> str:
        """The same step with its result off by one (the environment will catch it)."""
        head, rest = step.split(" = ", 1)
        value = Fraction(rest.split(" ")[0])
        left = parse_numbers(rest.split("(left: ")[1].rstrip(")"))
        left.remove(value)
        return f"{head} = {fmt(value + 1)} (left: {fmt_numbers(left + [value + 1])})"

    def _step(self, numbers, avoid=frozenset()) -> str:
        moves = [m for m in legal_moves(numbers) if m not in avoid] or legal_moves(numbers)
        good = self._good(numbers, moves)
        if good and not self._chance(self.error_rate):
            return self._pick(good)
        step = self._pick(moves)
        return self._slip(step) if self._chance(0.5) else step

    def _chain(self, numbers, avoid) -> tuple[list[str], str]:
        """Up to three steps, tracking each number's expression; the answer always claims 24."""
        held = [(x, fmt(x)) for x in numbers]                      # (value it believes, expression)
        steps = []
        while len(held) > 1:
            step = self._step([v for v, _ in held], avoid)
            a, op, b = step.split(" ")[:3]
            ea = self._take(held, Fraction(a))
            eb = self._take(held, Fraction(b))
            claimed = Fraction(step.split(" = ")[1].split(" ")[0])
            held.append((claimed, f"({ea} {op} {eb})"))
            steps.append(step)
        expression = held[0][1]
        return steps, expression[1:-1] if expression.startswith("(") else expression

    @staticmethod
    def _take(held: list, value: Fraction) -> str:
        i = next(i for i, (v, _) in enumerate(held) if v == value)
        return held.pop(i)[1]

    # ---- the other operations ------------------------------------------------------------------------

    def _evaluate(self, numbers) -> str:
        reachable = numbers == [24] if len(numbers) == 1 else solvable(numbers)
        if self._chance(self.value_noise):
            return self._pick(["sure", "likely", "impossible"])
        return "sure" if reachable else "impossible"

    def _reflect(self, lines: list[str]) -> str:
        if "Attempt:" in lines:
            first = lines[lines.index("Attempt:") + 1].strip()
            if not first.startswith(("Answer:", "(no steps)")):
                return f" Avoid starting with {first}."
        return " Avoid giving the same answer again."
