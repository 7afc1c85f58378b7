"""Layer 4 · multi-agent debate: specialists propose and revise, a critic scores, a synthesis answers.

    panel.py      the debate itself, a Tactic on the native runtime (`Debate()(question)`)
    standins.py   the rule-based stand-in brains the demos use (`DebateRulePredictor`)

The names below load on first use: the stand-ins need only the standard library, the panel loads
the native runtime (and so pydantic) when `Debate` is first asked for.

    >>> from lllm.labs.debate import DebateRulePredictor
    >>> DebateRulePredictor("synthesizer", seed=0).role
    'synthesizer'
"""

_EXPORTS = {
    "lllm.labs.debate.panel": ["Debate", "DebateResult", "DebateTask", "Proposal", "Specialist", "Verdict",
                               "specialists"],
    "lllm.labs.debate.standins": ["DebateRulePredictor"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    """`lllm.labs.debate.X` for a public name: import its module now (PEP 562), then keep the value here."""
    if name not in _WHERE:
        raise AttributeError(f"module 'lllm.labs.debate' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value
