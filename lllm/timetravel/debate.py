"""Layer 4 · time travel for the debate: `travel_debate(spec) -> record`, every turn of the debate a step.

Read `panel.py` (the debate) and `lllm/timetravel/steps.py` (the engine) first. The steps, in the
order the debate takes them: each specialist's turn in round 0 (its proposal), then in every
revision round, then the critic's verdict and the synthesis. Edit a turn — a specialist's answer
and reason, the critic's SCORE lines, the synthesis — and the debate runs on from there: the
others read the edited proposal in the next round, the critic scores what is left, the answer is
decided again. The edited reply goes through the same parsers as a model's (a verdict out of
format gets its repair turn), so an edit is "what if the model had said this".

`Debate` is run unchanged. Each debater's brain is a `Turns` object: it knows which step a reply
belongs to (the debate asks its agents in a fixed order) and, for each turn, asks a stand-in made
fresh for that step (`DebateRulePredictor` seeded with `step_seed(seed, step)`), or answers with
the edit. So a replay is exact; the stand-ins' chance draws are per turn, where `lllm debate`
carries one stream per specialist, so a careless specialist may slip in other places there.

Usage:

    >>> spec = {"version": 2, "demo": "debate", "inputs": {"question": "What is 48 plus 17?"},
    ...         "edits": [{"parent": 1, "step": 1, "answer": "60", "reason": "a guess"}]}
    >>> record = travel_debate(spec)
    >>> [s["fields"].get("answer") for s in record["branches"][1]["steps"][:6]]
    ['60', '65', '67', '65', '65', '65']
    >>> [b["answer"] for b in record["branches"]]
    ['65', '65']
"""

from __future__ import annotations

import re

from lllm.agents.calc import calc
from lllm.predictors.standins.debate import DebateRulePredictor
from lllm.timetravel.steps import steps_trace, travel_steps
from lllm.timetravel.react import step_seed
from lllm.timetravel.stepspec import check_stepped_spec

__all__ = ["starts_turn", "Turns", "travel_debate", "debate_trace_text"]

USER_TURN = re.compile(r"^User: ", re.M)


def starts_turn(prompt: str) -> bool:
    """True when the prompt ends with one of the debate's own requests (a proposal, a revision, a
    verdict, a synthesis), not with a tool's observation or a repair request."""
    last = USER_TURN.split(prompt)[-1]
    return last.startswith(("Question:", "Round ")) and last.count("\nAssistant:") == 1


class Turns:
    """One debater's brain: turn t is step `first + t * stride`; its replies come from `make(step)`,
    or, for an edited step, the first reply is `reply(fields)`."""

    def __init__(self, first: int, stride: int, make, overrides: dict, reply, seen: dict):
        self.first, self.stride, self.make, self.overrides, self.reply = first, stride, make, overrides, reply
        self.seen, self.turn, self.brain, self.step = seen, -1, None, None       # seen: step -> (prompt, replies)

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        fresh = starts_turn(prompt)
        if fresh:
            self.turn += 1
            self.step = self.first + self.turn * self.stride
            self.brain, self.seen[self.step] = self.make(self.step), (prompt, [])
        edited = fresh and self.step in self.overrides
        text = self.reply(self.overrides[self.step]) if edited else self.brain(prompt, max_new_tokens)
        self.seen[self.step][1].append(text)
        return text


def _answer(fields: dict) -> str:
    return f"<answer>{fields['answer']}</answer> <reason>{fields['reason']}</reason>"


def _steps(result, seen: dict) -> list[dict]:
    """The debate's turns in order, each with the prompt it started from and every reply of the turn."""
    steps = []
    for r, proposals in enumerate(result.rounds):
        for p in proposals:
            steps.append({"kind": "proposal" if r == 0 else "revision", "title": f"{p.agent}, round {r}",
                          "fields": {"answer": p.answer, "reason": p.reason}, "editable": ["answer", "reason"],
                          "context": {"error": p.error} if p.error else {}})
    if result.verdict is not None:
        steps.append({"kind": "verdict", "title": "critic", "fields": {"verdict": result.verdict.raw},
                      "editable": ["verdict"], "context": {"scores": result.verdict.show()}})
    if result.synthesis is not None:
        s = result.synthesis
        steps.append({"kind": "synthesis", "title": "synthesizer", "fields": {"answer": s.answer, "reason": s.reason},
                      "editable": ["answer", "reason"], "context": {"error": s.error} if s.error else {}})
    prompts = {n: prompt for n, (prompt, _) in seen.items()}
    replies = {n: "\n---\n".join(texts) for n, (_, texts) in seen.items()}
    return [step | {"context": step["context"] | {"replies this turn": replies.get(n, "")}, "prompt": prompts.get(n)}
            for n, step in enumerate(steps, start=1)]


def simulate(inputs: dict, overrides: dict, where: str = "inputs") -> dict:
    """One branch: the debate, each turn asked of a fresh stand-in, the edited turns answered by the edit."""
    # loaded here, not above: the panel needs the native runtime (pydantic), which the other demos'
    # pages do not load, and they all import this module through the table of demos
    from lllm.labs.debate.panel import SYNTHESIZER_SYSTEM, Debate, Specialist, specialists
    panel, seen = specialists(seed=inputs["seed"]), {}
    n, judged = len(panel), (inputs["rounds"] + 1) * len(panel) + 1          # the critic's step; the synthesis is next
    brains = [Turns(i + 1, n, lambda step, s=s: DebateRulePredictor("specialist", step_seed(s.seed, step), s.temperature, calc),
                    overrides, _answer, seen) for i, s in enumerate(panel)]
    critic = Turns(judged, 1, lambda step: DebateRulePredictor("critic", step_seed(inputs["seed"], step)),
                   overrides, lambda fields: fields["verdict"], seen)
    synthesizer = Turns(judged + 1, 1, lambda step: DebateRulePredictor("synthesizer", step_seed(inputs["seed"], step)),
                        overrides, _answer, seen)
    judge = lambda prompt, max_new_tokens=None: (  # noqa: E731  (critic and synthesizer share one brain)
        synthesizer if prompt.startswith("System: " + SYNTHESIZER_SYSTEM) else critic)(prompt, max_new_tokens)
    team = [Specialist(s.name, brain, s.seed, s.temperature, s.memory, s.style) for s, brain in zip(panel, brains)]
    result = Debate(team, judge)({"question": inputs["question"], "rounds": inputs["rounds"]})
    return {"steps": _steps(result, seen), "answer": result.answer, "stop_reason": result.decided_by}


def travel_debate(spec: dict, models: dict | None = None, known: dict | None = None) -> dict:
    """The record of a debate spec: branch 1 and one recomputed branch per edit."""
    inputs, edits = check_stepped_spec(spec, "debate")
    return travel_steps("debate", inputs, edits, simulate)


def debate_trace_text(record: dict) -> str:
    """The debate as text, as the page shows it and `python -m lllm replay` prints it."""
    i = record["inputs"]
    return steps_trace(record, [f"debate: {i['question']}",
                                f"brain {i['brain']} (stand-ins), {i['rounds']} revision round(s), seed {i['seed']}"])


if __name__ == "__main__":
    print(debate_trace_text(travel_debate({"version": 2, "demo": "debate", "inputs": {"question": "What is 48 plus 17?"},
                                           "edits": [{"parent": 1, "step": 7, "verdict": "SCORE agent-0: 2/10\n"
                                                      "SCORE agent-1: 9/10\nSCORE agent-2: 3/10"}]})), end="")
