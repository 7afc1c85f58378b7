"""Layer 3 · the invokers a config can name: `build_invoker(name, config) -> invoker`.

Read `invokers.py` and `http_invoker.py` first. `global.invoker = "scripted" | "predictor" |
"tinyllm" | "http"` picks one of these builders, and `invoker_config` is passed to it; a Runtime
(runtime.py) starts from this table and `register_invoker` adds to it.

Usage:

    >>> invoker = build_invoker("scripted", {"replies": ["hi"]})
    >>> sorted(BUILTIN_INVOKERS)
    ['http', 'predictor', 'scripted', 'tinyllm']
    >>> build_invoker("nope", {})
    Traceback (most recent call last):
    ...
    ValueError: invoker 'nope' is not registered (known: ['http', 'predictor', 'scripted', 'tinyllm'])
"""

from __future__ import annotations

from lllm.runtimes.native.http_invoker import HTTPInvoker
from lllm.runtimes.native.invokers import PredictorInvoker, ScriptedInvoker

__all__ = ["BUILTIN_INVOKERS", "build_invoker"]


# ---- builders by name ------------------------------------------------------------------------------

def _predictor(config: dict):
    if "predictor" in config:
        return PredictorInvoker(config["predictor"], config.get("max_new_tokens", 200))
    from lllm.predictors import make_predictor   # lazy: brains may load onnxruntime
    return PredictorInvoker(make_predictor(config.get("spec", "rule")), config.get("max_new_tokens", 200))


def _tinyllm(config: dict):
    from lllm.model.onnx_backend import from_onnx  # lazy: onnxruntime is optional
    options = {k: v for k, v in config.items() if k != "max_new_tokens"}
    return PredictorInvoker(from_onnx(**options), config.get("max_new_tokens", 200))


def _http(config: dict):
    return HTTPInvoker(**config)


BUILTIN_INVOKERS = {
    "scripted": lambda config: ScriptedInvoker(config.get("replies", ())),
    "predictor": _predictor,
    "tinyllm": _tinyllm,
    "http": _http,
}


def build_invoker(name: str | None, config: dict | None, registry: dict | None = None):
    """The invoker called `name`, built from `config` (the `invoker_config` section)."""
    registry = BUILTIN_INVOKERS if registry is None else registry
    if not name:
        raise ValueError(f"no invoker configured: set global.invoker (or an agent's invoker) to one of {sorted(registry)}")
    if name not in registry:
        raise ValueError(f"invoker {name!r} is not registered (known: {sorted(registry)})")
    return registry[name](dict(config or {}))
