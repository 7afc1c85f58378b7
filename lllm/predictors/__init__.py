"""Layer 2 · the narrow waist: a predictor maps a prompt to the text that comes next.

Read `contract.py` first (the contract and the scripted predictor tests use), then `standins/`
(stand-in models that write by rules: `standins/react.py` writes ReAct steps), `http_predictor.py` (an OpenAI-compatible server)
and `specs.py` (the `--predictor SPEC` every agent command takes). TinyLLM's predictors live
with the model (`lllm.model.onnx_backend`) and the page (`lllm.web.browser`).

    >>> from lllm.predictors import make_predictor
    >>> make_predictor("rule")("Tools:\\ncalc: arithmetic\\nQuestion: What is 2 + 3?\\n")
    'Thought: compute 2 + 3\\nAction: calc[2 + 3]'
"""

from lllm.predictors.contract import Predictor, ScriptedPredictor, ScriptExhausted
from lllm.predictors.http_predictor import HttpPredictor
from lllm.predictors.standins.react import RulePredictor, echo, find_arithmetic
from lllm.predictors.specs import (DEFAULT_TINYLLM, DEFAULT_TINYLLM_AGENT, PREDICTOR_SPECS, TINYLLM_AGENT_STOP,
                                   TINYLLM_STOP, load_script, make_predictor, parse_script)

__all__ = ["Predictor", "ScriptedPredictor", "ScriptExhausted", "HttpPredictor", "RulePredictor", "echo",
           "find_arithmetic", "DEFAULT_TINYLLM", "DEFAULT_TINYLLM_AGENT", "PREDICTOR_SPECS", "TINYLLM_STOP",
           "TINYLLM_AGENT_STOP", "load_script", "make_predictor", "parse_script"]
