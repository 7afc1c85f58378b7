"""Layer 4 · multi-agent debate: specialists propose and revise, a critic scores, a synthesis answers.

    panel.py      the debate itself, a Tactic on the native runtime (`Debate()(question)`)
    (its rule-based stand-in brains, `DebateRulePredictor`, are models: `lllm/predictors/standins/debate.py`)

The names below load on first use: the stand-ins need only the standard library, the panel loads
the native runtime (and so pydantic) when `Debate` is first asked for.

    >>> from lllm.labs.debate import DebateRulePredictor
    >>> DebateRulePredictor("synthesizer", seed=0).role
    'synthesizer'
"""

from lllm.lazy import exported_names, lazy_exports

_EXPORTS = {
    "lllm.labs.debate.panel": ["Debate", "DebateResult", "DebateTask", "Proposal", "Specialist", "Verdict",
                               "specialists"],
    "lllm.predictors.standins.debate": ["DebateRulePredictor"],
}
__all__ = exported_names(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)     # lllm/lazy.py
