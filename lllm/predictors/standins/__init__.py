"""Layer 2 · stand-in models: rule-following programs that play a model's part, not LLMs.

    react.py              the ReAct stand-in `RulePredictor` (`--predictor rule`), and `echo`, the broken one
    debate.py             the debate's roles: specialist, critic, synthesizer (`DebateRulePredictor`)
    game24.py             plays Game of 24 with the exact solver, and errs at a set rate (`SimulatedModel`)
    game24_arithmetic.py  Game of 24 arithmetic, exactly: steps, answers and the solver both sides use
    multihop.py           answers the multi-hop questions only from what it looked up (`SimulatedReader`)
    erring.py             what those two share: error rates, checked, and a seeded die (`ErringStandIn`)

Each is a Predictor like any other (prompt in, completion out) that reads only its prompt, so
agents, debates and reasoning frameworks can be run, tested and compared without a trained
model; every page and table that uses one says so.

Why they live here, in layer 2, and not beside the agent, debate or task each stands in for: a
stand-in is a model, and the narrow waist is where models sit, so one home serves `--predictor
rule` (which `specs.py`, layer 2, resolves) as well as the reasoning lab (layer 3) and the debate
(layer 4), and the layer rule holds for all of them. What a stand-in needs comes from its prompt
or from below: the topics it may look up are the ones its prompt's lookup tool lists
(`topics_in`), the debate's careless guesses take their arithmetic from the caller (the panel
passes the calc tool), and Game of 24's exact arithmetic moved down beside the player, where the
task (`lllm/reasoning/tasks/game24.py`) imports it to check a step.

The names load on first use:

    >>> from lllm.predictors.standins import SimulatedReader, topics_in
    >>> topics_in("Topics: mira, tom")
    ['mira', 'tom']
"""

from lllm.lazy import exported_names, lazy_exports

_EXPORTS = {
    "lllm.predictors.standins.react": ["RulePredictor", "echo", "find_arithmetic", "topics_in"],
    "lllm.predictors.standins.debate": ["DebateRulePredictor"],
    "lllm.predictors.standins.game24": ["SimulatedModel"],
    "lllm.predictors.standins.multihop": ["SimulatedReader", "answer_in"],
}
__all__ = exported_names(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)     # lllm/lazy.py
