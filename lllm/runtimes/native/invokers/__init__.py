"""Layer 3 · invokers: the model behind an Agent, one call from a dialog to a reply.

    base.py      the contract and the local invokers: PredictorInvoker (any Predictor), ScriptedInvoker
    builtin.py   the invokers a config can name, and build_invoker(spec)
    http.py      an OpenAI-style chat endpoint over HTTP (CPython)

Usage:

    >>> from lllm.runtimes.native.invokers import ScriptedInvoker
    >>> type(ScriptedInvoker(["hi"])).__name__
    'ScriptedInvoker'
"""

from lllm.runtimes.native.invokers.base import Cost, InvokeResult, PredictorInvoker, ScriptedInvoker
from lllm.runtimes.native.invokers.builtin import BUILTIN_INVOKERS, build_invoker

__all__ = ["BUILTIN_INVOKERS", "Cost", "InvokeResult", "PredictorInvoker", "ScriptedInvoker", "build_invoker"]
