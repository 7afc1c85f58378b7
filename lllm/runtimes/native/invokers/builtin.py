"""Layer 3 · the invokers a config can name: `build_invoker(name, config) -> invoker`.

Read `base.py` and `http.py` first. `global.invoker = "scripted" | "predictor" |
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

from lllm.runtimes.native.invokers.http import HTTPInvoker
from lllm.runtimes.native.invokers.base import PredictorInvoker, ScriptedInvoker

__all__ = ["BUILTIN_INVOKERS", "build_invoker"]


# ---- builders by name ------------------------------------------------------------------------------

def _predictor(config: dict):
    """`{"spec": "tinyllm", "temperature": 0.7, "seed": 3}`: make_predictor's names, so "tinyllm" is
    onnxruntime's TinyLLM in CPython and the page's in the page; or a ready `"predictor"` object."""
    if "predictor" in config:
        return PredictorInvoker(config["predictor"], config.get("max_new_tokens", 200))
    from lllm.predictors import make_predictor   # lazy: brains may load onnxruntime
    predictor = make_predictor(config.get("spec", "rule"), temperature=config.get("temperature"), seed=config.get("seed"))
    return PredictorInvoker(predictor, config.get("max_new_tokens", 200))


def _tinyllm(config: dict):
    """from_onnx's options (`path`, `temperature`, `seed`, ...); in the page, its TinyLLM (no `path`)."""
    from lllm.predictors.specs import platform_model
    options = {k: v for k, v in config.items() if k != "max_new_tokens"}
    page = platform_model("tinyllm")
    if page is not None:
        predictor = page(**{k: v for k, v in options.items() if k != "path"})
    else:
        from lllm.model.onnx_backend import from_onnx  # lazy: onnxruntime is optional
        predictor = from_onnx(**options)
    return PredictorInvoker(predictor, config.get("max_new_tokens", 200))


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
