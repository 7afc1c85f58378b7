"""Layer 4 · multi-agent debate: `Debate()(question)` — specialists propose and revise, a critic scores, a synthesis answers.

Read `runtimes/native/tactic.py` and `runtimes/native/agent.py` first; `lllm/predictors/standins/debate.py`
holds the rule-based stand-in brains the demos use. The whole debate, as a Tactic on the native runtime:

    proposals = [s.propose(question) for s in specialists]                     round 0
    repeat `rounds` times:                                                     (at least once)
        proposals = [s.revise(question, mine, others) for s in specialists]    each sees the others
    verdict   = critic.score(question, proposals)     strict format; unparsable -> reported, no answer
    synthesis = synthesizer.write(question, proposals, verdict)
    answer    = synthesis if it agrees with a best-scored proposal, else that best proposal

Specialists differ in brain, seed, temperature and memory (facts put into their system prompt).
Every specialist, the critic and the synthesizer is a native `Agent` with the `calc` and `lookup`
tools; a reply that breaks its prompt's contract gets a repair turn (capped), and a specialist that
still fails is shown as "no valid proposal" — it is never given a made-up answer.

The critic's verdict format — one line per proposal, every proposal exactly once:

    SCORE agent-0: 9/10 matches my check
    SCORE agent-1: 2/10 my check says 65

`N` is an integer 0..10 written as `N/10`; other lines are commentary. A SCORE line that does not
fit, a missing, unknown or repeated name is a ParseError (the critic gets a repair turn); if the
critic never answers in format, the verdict is reported as unparsable, with its raw reply, and the
debate gives no answer. Names are only ever read between `SCORE` and `:`, and scores only before
`/10`, so the "agent-0" that the original collection's critic read as a score (site/design.md, "Lessons") can
only ever be a name. Ties at the top score are shown; the fallback takes the first in order, and
says so.

Usage:

    >>> session = Debate()({"question": "What is 48 plus 17?"}, return_session=True)
    >>> result = session.delivery
    >>> [p.answer for p in result.rounds[0]], [p.answer for p in result.rounds[1]]
    (['65', '65', '67'], ['65', '65', '65'])
    >>> result.verdict.scores, result.answer
    ({'agent-0': 10, 'agent-1': 10, 'agent-2': 10}, '65')
    >>> print(session.report().splitlines()[0])
    debate: success, 8 agent call(s), 0 sub-tactic call(s), 12 model call(s), 10003 tokens
"""

from __future__ import annotations

import dataclasses
import re

from lllm.agents.calc import calc as evaluate
from lllm.agents.memory import LongTermMemory, format_memories
from lllm.agents.tools import FACTS, lookup as lookup_fact
from lllm.labs.scoring import answer_matches
from lllm.predictors.standins.debate import DebateRulePredictor
from lllm.runtimes.native import (AgentCallError, BaseParser, DefaultTagParser, ParseError, PredictorInvoker,
                                  Prompt, Runtime, Tactic, tool)

__all__ = ["Specialist", "Proposal", "Verdict", "DebateResult", "DebateTask", "Debate", "VerdictParser",
           "specialists", "decide", "VERDICT_FORMAT", "MAX_ROUNDS"]

MAX_ROUNDS = 5              # revision rounds; more only repeats a settled debate at a cost
MAX_NEW_TOKENS = 200        # one reply: a proposal, a tool call or a verdict fits


# ---- who debates ---------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Specialist:
    name: str
    brain: object = "rule"       # "rule" (the stand-in), a make_predictor spec, or a Predictor object
    seed: int = 0
    temperature: float = 0.0     # the rule stand-in is careless with chance temperature / 2
    memory: tuple = ()           # facts this specialist remembers (retrieved into its system prompt)
    style: str = ""


def specialists(brain="rule", seed: int = 0) -> tuple[Specialist, ...]:
    """The default panel: a careful checker, one who remembers the story, one who answers fast.

    `brain` is one brain for all, or a list: specialist i gets brain[i] (the last one repeats)."""
    brains = list(brain) if isinstance(brain, (list, tuple)) else [brain]
    pick = [brains[min(i, len(brains) - 1)] for i in range(3)]
    return (Specialist("agent-0", pick[0], seed, 0.0, (), "You are careful: you check with a tool."),
            Specialist("agent-1", pick[1], seed + 1, 0.8, tuple(FACTS.values()), "You trust your memory."),
            Specialist("agent-2", pick[2], seed + 2, 1.6, (), "You answer fast."))


# ---- the prompts, and the critic's verdict parser ----------------------------------------------

# --8<-- [start:prompts]
ANSWER_PARSER = DefaultTagParser(required_xml_tags=["answer"], xml_tags=["reason"])
SPECIALIST_SYSTEM = "You are {name}, one of several specialists answering one question together. {style}"
PROPOSE = Prompt(path="debate/propose", parser=ANSWER_PARSER, prompt=(
    "Question: {question}\nPropose an answer. You may call a tool first. "
    "Reply with <answer>...</answer> <reason>...</reason>."))
REVISE = Prompt(path="debate/revise", parser=ANSWER_PARSER, prompt=(
    "Round {round}. Question: {question}\nYour last answer: {mine}\nProposals from the others:\n{others}\n"
    "Keep or revise your answer. Reply with <answer>...</answer> <reason>...</reason>."))
CRITIC_SYSTEM = "You are the critic. You score every proposal strictly, one line each."
CRITIQUE = Prompt(path="debate/critique", prompt=(
    "Question: {question}\nProposals:\n{proposals}\n"
    "Score every proposal from 0 to 10, one line each, exactly: SCORE name: N/10 reason"))
SYNTHESIZER_SYSTEM = "You are the synthesizer. You write the final answer from the scored proposals."
SYNTHESIZE = Prompt(path="debate/synthesize", parser=ANSWER_PARSER, prompt=(
    "Question: {question}\nProposals:\n{proposals}\nThe critic's scores:\n{scores}\n"
    "Write the final answer. Reply with <answer>...</answer> <reason>...</reason>."))
# --8<-- [end:prompts]

# --8<-- [start:verdict]
VERDICT_FORMAT = "SCORE name: N/10 reason"
SCORE_LINE = re.compile(r"SCORE[ \t]+(?P<name>[^\s:]+)[ \t]*:[ \t]*(?P<score>\d{1,2})[ \t]*/[ \t]*10(?:[ \t]+(?P<reason>.*))?")


class VerdictParser(BaseParser):
    """Reads `SCORE name: N/10 reason` lines; every name in `names` exactly once, N in 0..10."""

    def __init__(self, names):
        self.names = list(names)

    def parse(self, content: str, **runtime_args) -> dict:
        scores, reasons = {}, {}
        for number, line in enumerate(content.splitlines(), 1):
            line = line.strip()
            if not line.startswith("SCORE"):
                continue                                             # commentary
            found = SCORE_LINE.fullmatch(line)
            if not found:
                raise ParseError(f"line {number} {line!r} does not read '{VERDICT_FORMAT}'")
            name, score = found["name"], int(found["score"])
            if name not in self.names:
                raise ParseError(f"line {number} scores {name!r}, which made no proposal (proposals: {', '.join(self.names)})")
            if name in scores:
                raise ParseError(f"line {number} scores {name} a second time")
            if score > 10:
                raise ParseError(f"line {number}: {score}/10 is not between 0/10 and 10/10")
            scores[name], reasons[name] = score, (found["reason"] or "").strip()
        missing = [name for name in self.names if name not in scores]
        if missing:
            raise ParseError(f"no SCORE line for {', '.join(missing)}; write one line per proposal: {VERDICT_FORMAT}")
        return {"raw": content, "scores": scores, "reasons": reasons}
# --8<-- [end:verdict]


# ---- the records ---------------------------------------------------------------------------------

@dataclasses.dataclass
class Proposal:
    agent: str
    round: int
    answer: str = ""
    reason: str = ""
    error: str = ""              # set when the agent gave no valid reply: never a made-up answer

    @property
    def ok(self) -> bool:
        return not self.error

    def show(self) -> str:
        return f"{self.agent}: {self.answer} | {self.reason}" if self.ok else f"{self.agent}: no valid proposal ({self.error})"


@dataclasses.dataclass
class Verdict:
    scores: dict                 # name -> 0..10, empty when unparsable
    reasons: dict
    error: str = ""              # the critic never answered in format: reported, never defaulted
    raw: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    def best(self) -> list[str]:
        """Every name with the top score (more than one is a tie), in proposal order."""
        top = max(self.scores.values(), default=None)
        return [name for name, score in self.scores.items() if score == top]

    def show(self) -> str:
        if not self.ok:
            return f"verdict unparsable: {self.error}\n  critic said: {self.raw!r}"
        lines = [f"{name}: {score}/10 {self.reasons[name]}".rstrip() for name, score in self.scores.items()]
        best = self.best()
        if len(best) > 1:
            lines.append(f"tie at {self.scores[best[0]]}/10: {', '.join(best)}")
        return "\n".join(lines)


@dataclasses.dataclass
class DebateTask:
    question: str
    rounds: int = 1


@dataclasses.dataclass
class DebateResult:
    question: str
    rounds: list                 # rounds[r] = one Proposal per specialist; round 0 proposes
    verdict: Verdict | None
    synthesis: Proposal | None
    answer: str | None           # None: no decision (no proposal, or an unparsable verdict)
    decided_by: str
    trees: dict = dataclasses.field(default_factory=dict)   # agent -> its dialog's fork tree, as text

    def show(self) -> str:
        parts = [show_round(r, self.rounds[r], self.rounds[r - 1] if r else None) for r in range(len(self.rounds))]
        return "\n".join(parts + [show_ending(self)])


def show_proposals(proposals) -> str:
    return "\n".join(f"- {p.agent}: {p.answer} | {p.reason}" for p in proposals if p.ok) or "- (none)"


def show_round(number: int, proposals, previous=None) -> str:
    title = "proposals" if number == 0 else "each saw the others' proposals and revised"
    lines = [f"--- round {number}: {title}"]
    for p in proposals:
        before = next((q for q in previous or () if q.agent == p.agent), None)
        changed = before is not None and before.ok and p.ok and not answer_matches(before.answer, p.answer, exact=True)
        lines.append(p.show() + ("   (changed)" if changed else ""))
    return "\n".join(lines)


def show_ending(result: DebateResult) -> str:
    lines = ["--- critic", result.verdict.show() if result.verdict else "(not asked: no valid proposal)"]
    if result.synthesis is not None:
        lines += ["--- synthesis", result.synthesis.show()]
    answer = "none" if result.answer is None else result.answer
    return "\n".join(lines + [f"--- answer: {answer}", f"decided by: {result.decided_by}"])


# ---- deciding: validate the synthesis, else fall back to the best proposal --------------------

# --8<-- [start:decide]
def decide(final, verdict: Verdict | None, synthesis: Proposal | None) -> tuple[str | None, str]:
    """(answer, how it was decided). No scores means no answer: a verdict is never defaulted."""
    if not final:
        return None, "nobody: no specialist gave a valid proposal"
    if verdict is None or not verdict.ok:
        return None, "nobody: the critic's verdict could not be parsed (see above)"
    best = verdict.best()
    top = [p for p in final if p.agent in best]
    if synthesis is not None and synthesis.ok and any(answer_matches(synthesis.answer, p.answer, exact=True) for p in top):
        return synthesis.answer, "the synthesis, validated: it agrees with the best-scored proposal"
    why = (f"the synthesis {synthesis.answer!r} agrees with no best-scored proposal" if synthesis is not None
           and synthesis.ok else "the synthesis gave no valid answer")
    tie = f"; tie between {', '.join(best)}, the first in order taken" if len(best) > 1 else ""
    return top[0].answer, f"fallback to the best proposal ({top[0].agent}, {verdict.scores[top[0].agent]}/10): {why}{tie}"
# --8<-- [end:decide]


# ---- the tools every debater may call ------------------------------------------------------------

@tool(description="Evaluate arithmetic with + - * / ** and parentheses")
def calc(expression: str) -> str:
    return evaluate(expression)


@tool(description="A fact about the town of Brookfield. Topics: " + ", ".join(FACTS))
def lookup(topic: str) -> str:
    return lookup_fact(topic)


def _brain_invoker(config: dict) -> PredictorInvoker:
    """The `debate` invoker: `brain` is "rule" (a DebateRulePredictor for `role`), a spec, or a Predictor."""
    brain, seed, temperature = config.get("brain", "rule"), config.get("seed", 0), config.get("temperature", 0.0)
    if callable(brain):
        return PredictorInvoker(brain, MAX_NEW_TOKENS)
    if brain == "rule":
        return PredictorInvoker(DebateRulePredictor(config["role"], seed, temperature, evaluate), MAX_NEW_TOKENS)
    from lllm.predictors import make_predictor      # lazy: TinyLLM needs onnxruntime
    return PredictorInvoker(make_predictor(brain, temperature=temperature, seed=seed), MAX_NEW_TOKENS)


def _escaped(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


# ---- the tactic ------------------------------------------------------------------------------------

class Debate(Tactic):
    """Specialists propose and revise, a critic scores strictly, a validated synthesis answers."""

    name = "debate"
    input_type = DebateTask

    def __init__(self, panel=None, critic="rule", *, say=None, max_repairs: int = 1):
        """`panel`: Specialists (default `specialists()`); `critic`: the brain of the critic and the
        synthesizer ("rule", a spec, or one Predictor both share: a script holds the critic's replies,
        then the synthesizer's); `say(text)` is called as each round ends (print, to watch)."""
        self.panel = tuple(panel or specialists())
        names = [s.name for s in self.panel]
        if len(names) < 2 or len(set(names)) != len(names) or {"critic", "synthesizer"} & set(names) or "" in names:
            raise ValueError(f"a debate needs two or more specialists with distinct names other than "
                             f"'critic' and 'synthesizer', got {names}")
        self.agent_group = names + ["critic", "synthesizer"]
        self.say = say or (lambda text: None)
        runtime = Runtime()
        runtime.register_invoker("debate", _brain_invoker)

        def agent(name, system, brain):
            return {"name": name, "system_prompt": system, "invoker": "debate", "invoker_config": brain,
                    "tools": [calc, lookup], "max_exception_retry": max_repairs, "max_interrupt_steps": 2}
        configs = [agent(s.name, _escaped(SPECIALIST_SYSTEM.format(name=s.name, style=s.style)) + "\n{memory}",
                         {"role": "specialist", "brain": s.brain, "seed": s.seed, "temperature": s.temperature})
                   for s in self.panel]
        configs += [agent("critic", CRITIC_SYSTEM, {"role": "critic", "brain": critic}),
                    agent("synthesizer", SYNTHESIZER_SYSTEM, {"role": "synthesizer", "brain": critic})]
        super().__init__({"agent_configs": configs}, runtime)

    # --8<-- [start:call]
    def call(self, task: DebateTask) -> DebateResult:
        question, rounds = _checked(task)
        history = [self._round(0, question, None)]
        for number in range(1, rounds + 1):                          # each sees the others, revises
            history.append(self._round(number, question, history[-1]))
        final = [p for p in history[-1] if p.ok]
        verdict = self._score(question, final) if final else None
        synthesis = self._synthesize(question, final, verdict) if verdict and verdict.ok else None
        answer, decided_by = decide(final, verdict, synthesis)
        trees = {name: agent.dialog().tree_overview() for name, agent in self.agents.items() if agent.dialogs}
        result = DebateResult(question, history, verdict, synthesis, answer, decided_by, trees)
        self.say(show_ending(result))
        return result
    # --8<-- [end:call]

    def _round(self, number: int, question: str, previous) -> list[Proposal]:
        proposals = []
        for s in self.panel:
            agent = self.agents[s.name]
            if previous is None:
                memory = format_memories([], LongTermMemory(s.memory).retrieve(question, k=2))
                agent.open("debate", {"memory": memory})
                agent.receive_prompt(PROPOSE, {"question": question})
            else:
                mine = next(p for p in previous if p.agent == s.name)
                others = [p for p in previous if p.agent != s.name]
                agent.receive_prompt(REVISE, {"round": number, "question": question, "others": show_proposals(others),
                                              "mine": f"{mine.answer} | {mine.reason}" if mine.ok else "(none) | no valid proposal"})
            proposals.append(self._ask(agent, s.name, number))
        self.say(show_round(number, proposals, previous))
        return proposals

    def _ask(self, agent, name: str, number: int) -> Proposal:
        try:
            reply = agent.respond()
        except AgentCallError as exc:
            error, raw = str(exc).rpartition("last error: ")[2], _last_reply(exc.session)
            return Proposal(name, number, error=f"{error}; it wrote {raw[:60]!r}")
        tags = reply.parsed["xml_tags"]
        return Proposal(name, number, tags["answer"][0], (tags["reason"] or [""])[0])

    def _score(self, question: str, final) -> Verdict:
        critic = self.agents["critic"]
        critic.open("verdict")
        critic.receive_prompt(CRITIQUE.extend(path=CRITIQUE.path, parser=VerdictParser([p.agent for p in final])),
                              {"question": question, "proposals": show_proposals(final)})
        try:
            reply = critic.respond()
        except AgentCallError as exc:
            return Verdict({}, {}, error=str(exc).rpartition("last error: ")[2], raw=_last_reply(exc.session))
        return Verdict(reply.parsed["scores"], reply.parsed["reasons"], raw=reply.content)

    def _synthesize(self, question: str, final, verdict: Verdict) -> Proposal:
        agent = self.agents["synthesizer"]
        agent.open("synthesis")
        scores = "\n".join(f"- {name}: {score}/10" for name, score in verdict.scores.items())
        agent.receive_prompt(SYNTHESIZE, {"question": question, "proposals": show_proposals(final), "scores": scores})
        return self._ask(agent, "synthesizer", -1)


def _last_reply(session) -> str:
    return next((step.reply for step in reversed(session.steps) if step.kind == "reply"), "")


def _checked(task: DebateTask) -> tuple[str, int]:
    if not task.question.strip():
        raise ValueError("the question is empty: give the debate something to answer")
    if not 1 <= task.rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be between 1 and {MAX_ROUNDS} (at least one round of revision), got {task.rounds}")
    return " ".join(task.question.split()), task.rounds


if __name__ == "__main__":
    print(Debate(say=print)({"question": "What is 48 plus 17?"}).answer)
