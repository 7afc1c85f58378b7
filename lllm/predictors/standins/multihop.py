"""Layer 2 · the multi-hop stand-in: `SimulatedReader`, a rule-following reader of the Brookfield questions that errs.

Read `lllm/reasoning/tasks/multihop.py` and `game24.py` (beside this file) first. Like the Game-of-24 stand-in it is a
Predictor that reads only the prompt — the topics its lookup tool lists (`Topics: ...`), the last
"Question:" and the Action/Observation lines after it — and never the gold answer. It knows no
fact about Brookfield: it can answer only from what it has looked up, which is what makes the
tool matter (IO and CoT, with no tool, cannot answer).

    the answer it looks for   a pattern set by the question's opening words: "How old" -> "<n>
                              years old", "How many hens" -> "<n> hens", "What colour is the
                              wheel" -> a colour word in a sentence about the wheel, "On which
                              street" -> "on <Name> Street", "When does" -> "at <h:mm>"
    a step                    with prob. 1 - error_rate: "Answer: X" if an observation holds X,
                              else lookup[the first topic named in the question or an
                              observation, not yet looked up]; otherwise a random topic, or
                              (half of those mistakes) an answer guessed from the numbers seen
    propose                   up to four distinct steps, each drawn as above
    evaluate                  "sure" if an answer is in sight (or given and in sight), "likely"
                              if a topic is left to follow, else "impossible"; with prob.
                              value_noise a random label
    reflect                   "Do not answer X." for a wrong answer X; that answer is then
                              never given again

Usage:

    >>> from lllm.model.sampling import Mulberry32
    >>> from lllm.reasoning.tasks.multihop import BrookfieldQA
    >>> env = BrookfieldQA()
    >>> reader = SimulatedReader(error_rate=0.0, rng=Mulberry32(1))
    >>> reader(env.prompter.act(env.reset(1)))
    ' lookup[bram]'
"""

from __future__ import annotations

import re

from lllm.model.sampling import Mulberry32
from lllm.predictors.standins.erring import ErringStandIn
from lllm.predictors.standins.react import topics_in

__all__ = ["SimulatedReader", "answer_in"]

COLOURS = ("blue", "brown", "gold", "green", "grey", "white", "red", "black")
DO_NOT = "Do not answer "
DONT_KNOW = "I do not know"


def answer_in(question: str, observations: list[str]) -> str | None:
    """The answer the question asks for, if an observation holds it (latest observation first)."""
    q = question.lower()
    noun = (re.match(r"(?:how many|what colou?r is the) (\w+)", q) or [None, None])[1]
    for text in reversed(observations):
        if q.startswith("how old") and (m := re.search(r"(\d+) years old", text)):
            return m.group(1)
        if q.startswith("how many") and noun and (m := re.search(rf"(\d+) {noun}", text)):
            return m.group(1)
        if q.startswith(("what colour", "what color")) and noun:
            for sentence in text.split("."):
                if noun in sentence.lower() and (colours := [c for c in COLOURS if c in sentence.lower().split()]):
                    return colours[0]
        if q.startswith("on which") and (m := re.search(r"on ([A-Z]\w* (?:Street|Road|Lane))", text)):
            return m.group(1)
        if q.startswith("when") and (m := re.search(r"at (\d+:\d+)", text)):
            return m.group(1)
    return None


class SimulatedReader(ErringStandIn):
    def __init__(self, error_rate: float = 0.3, rng: Mulberry32 | None = None, value_noise: float | None = None,
                 n_proposals: int = 4):
        super().__init__(error_rate, rng, value_noise, n_proposals)

    # ---- the Predictor contract ---------------------------------------------------------------------

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        lines = prompt.rstrip().splitlines()
        cue = lines[-1].strip() if lines else ""
        if cue == "Lesson:":
            reply = self._reflect(lines)
        else:
            start = max((i for i, l in enumerate(lines) if l.startswith("Question:")), default=None)
            if start is None:
                reply = " I cannot find the question."
            else:
                reply = self._answer_cue(cue, lines, start, topics_in(prompt))
        return reply if max_new_tokens is None else reply[:max_new_tokens]

    def _answer_cue(self, cue: str, lines: list[str], start: int, topics: list[str]) -> str:
        question = lines[start][len("Question:"):].strip()
        after = lines[start + 1:]
        observations = [l[len("Observation:"):].strip() for l in after if l.startswith("Observation:")]
        looked = {m.group(1) for l in after for m in [re.search(r"lookup\[(.*?)\]", l)] if m}
        given = next((l.split("Answer:", 1)[1].strip() for l in after if "Answer:" in l), None)
        banned = {l[len("Lesson: " + DO_NOT):].rstrip(".") for l in lines if l.startswith("Lesson: " + DO_NOT)}
        if cue in ("Answer:", "Steps:"):
            return f" {DONT_KNOW}."                          # no tool: it knows no fact
        if cue.startswith("Evaluation:"):
            return " " + self._evaluate(question, observations, looked, given, topics)
        if cue == "Possible next actions:":
            steps = self._proposals(lambda: self._step(question, observations, looked, banned, topics))
            return "\n" + "\n".join(steps)
        step = self._step(question, observations, looked, banned, topics)
        return f" I need {step}.\nAction: {step}" if cue == "Thought:" else " " + step

    # ---- the rules -----------------------------------------------------------------------------------

    @staticmethod
    def _next_topic(question: str, observations: list[str], looked: set[str], topics: list[str]) -> str | None:
        for text in [question] + observations:
            for word in re.findall(r"[a-z]+", text.lower()):
                if word in topics and word not in looked:
                    return word
        return None

    def _step(self, question, observations, looked, banned, topics) -> str:
        found = answer_in(question, observations)
        found = None if found in banned else found
        topic = self._next_topic(question, observations, looked, topics)
        if not self._chance(self.error_rate) and (found or topic):
            return f"Answer: {found}" if found else f"lookup[{topic}]"
        numbers = sorted({n for o in observations for n in re.findall(r"\d+", o)} - banned)
        if numbers and self._chance(0.5):
            return f"Answer: {self._pick(numbers)}"
        return f"lookup[{self._pick(topics)}]" if topics else f"Answer: {DONT_KNOW}"    # no tool listed

    def _evaluate(self, question, observations, looked, given, topics) -> str:
        if self._chance(self.value_noise):
            return self._pick(["sure", "likely", "impossible"])
        found = answer_in(question, observations)
        if given is not None:
            return "sure" if found and given == found else "impossible"
        if found:
            return "sure"
        return "likely" if self._next_topic(question, observations, looked, topics) else "impossible"

    def _reflect(self, lines: list[str]) -> str:
        answers = [l.split("Answer:", 1)[1].strip() for l in lines if l.startswith("Answer:")]
        return f" {DO_NOT}{answers[-1]}." if answers else " Look up every name the facts mention."
