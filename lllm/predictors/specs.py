"""Layer 2 · choosing a predictor by name: `make_predictor(spec) -> Predictor`, the `--predictor` flag.

Read `contract.py` and `standins/react.py` first. Every agent command takes `--predictor SPEC`:

    tinyllm[:PATH]   the story model, TinyLLM, on onnxruntime (CPython; default build/model/tinyllm.onnx)
    tinyllm-agent[:PATH]  TinyLLM trained on the factory's trajectories (`make agent-model`;
                     default build/model/tinyllm-agent.onnx), greedy unless --temperature is given
    tinygpt[:PATH]   TinyGPT, TinyLLM's attention twin (a transformer with a key/value cache; default
                     build/model/tinygpt.onnx), the same sampler and seed as TinyLLM
    rule             RulePredictor: a hand-written stand-in that writes correct ReAct steps
    echo             returns the prompt itself: the original collection's bug, kept as a predictor
                     so you can watch the lab refuse to credit it
    scripted:FILE    replays replies from FILE (a JSON list, or text with replies between '---' lines)
    http:URL         an OpenAI-compatible server, e.g. http:http://127.0.0.1:8080 (http_predictor.py)

In the page, `tinyllm` and `tinyllm-agent` are the browser predictors (`lllm.web.browser`): the
page adapter passes them in as `models`, or registers them once for the platform
(`use_platform_models`, which a code cell's runner does), so the same resolution and the same
code serve both platforms. So is `tinyllm-yours`, the model a reader trained on the page
/tinyllm/train/: it exists only in that browser, and anywhere else naming it is one sentence.
A bad spec or a bad file raises ValueError naming `--predictor`.

Usage:

    >>> make_predictor("rule")
    RulePredictor()
    >>> make_predictor("nonsense")
    Traceback (most recent call last):
    ...
    ValueError: --predictor 'nonsense' is not one of: tinyllm[:PATH], rule, echo, scripted:FILE, http:URL, tinyllm-agent[:PATH] or tinygpt[:PATH]
"""

from __future__ import annotations

import json
import re

from lllm.predictors.contract import ScriptedPredictor
from lllm.predictors.standins.react import RulePredictor, echo

__all__ = ["PREDICTOR_SPECS", "DEFAULT_TINYLLM", "DEFAULT_TINYLLM_AGENT", "TINYLLM_STOP", "TINYLLM_AGENT_STOP", "TAB_MODEL",
           "parse_script", "load_script", "make_predictor"]


# ---- resolving --predictor ---------------------------------------------------------------------

PREDICTOR_SPECS = "tinyllm[:PATH], rule, echo, scripted:FILE, http:URL, tinyllm-agent[:PATH] or tinygpt[:PATH]"
DEFAULT_TINYLLM = "build/model/tinyllm.onnx"
DEFAULT_TINYLLM_AGENT = "build/model/tinyllm-agent.onnx"


def parse_script(text: str) -> list[str]:
    """The replies in `text`: one per block, blocks separated by `---` lines (empty blocks dropped)."""
    replies = [r.strip("\n") for r in re.split(r"^---[ \t]*$", text or "", flags=re.M)]
    return [r for r in replies if r.strip()]


def load_script(path: str) -> list[str]:
    """Replies for a ScriptedPredictor: a JSON list of strings, or text split on '---' lines."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise ValueError(f"--predictor scripted: cannot read {path}: {error.strerror}") from None
    if path.endswith(".json"):
        try:
            replies = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"--predictor scripted: {path} is not valid JSON ({error.msg}, line {error.lineno})") from None
        if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
            raise ValueError(f"--predictor scripted: {path} must hold a JSON list of strings")
        replies = [r for r in replies if r.strip()]
    else:
        replies = parse_script(text)
    if not replies:
        raise ValueError(f"--predictor scripted: {path} has no replies")
    return replies


# --8<-- [start:make_predictor]
TINYLLM_STOP = ("Observation:",)                  # the story model may not write an observation itself
TINYLLM_AGENT_STOP = ("Observation:", "\n\n")     # the agent model also ends a final answer with a blank line


def _tinyllm(path: str | None, options: dict, models: dict | None):
    """TinyLLM (the page's when `models` has one, else onnxruntime), stopping at an Observation."""
    if models and "tinyllm" in models:
        return models["tinyllm"](stop=TINYLLM_STOP, **options)
    from lllm.model.onnx_backend import from_onnx    # CPython + onnxruntime only, so imported late
    try:
        return from_onnx(path or DEFAULT_TINYLLM, stop=TINYLLM_STOP, **options)
    except ValueError as error:                 # ModelError: missing, damaged or mismatched files
        raise ValueError(f"--predictor tinyllm: {error}") from None


def _tinyllm_agent(path: str | None, options: dict, models: dict | None):
    """The agent-tuned TinyLLM, greedy unless told otherwise."""
    options = {"temperature": 0.0, **options}
    if models and "tinyllm-agent" in models:
        return models["tinyllm-agent"](stop=TINYLLM_AGENT_STOP, **options)
    from lllm.model.onnx_backend import from_onnx
    try:
        return from_onnx(path or DEFAULT_TINYLLM_AGENT, stop=TINYLLM_AGENT_STOP, **options)
    except ValueError as error:
        raise ValueError(f"--predictor tinyllm-agent: {error}; the agent model is built by `make agent-model`") from None


def _tinygpt(path: str | None, options: dict, models: dict | None):
    """TinyGPT (the page's when `models` has one, else onnxruntime), stopping as TinyLLM does."""
    if models and "tinygpt" in models:
        return models["tinygpt"](stop=TINYLLM_STOP, **options)
    from lllm.model.gpt_backend import DEFAULT_GPT, from_gpt_onnx
    try:
        return from_gpt_onnx(path or DEFAULT_GPT, stop=TINYLLM_STOP, **options)
    except ValueError as error:
        raise ValueError(f"--predictor tinygpt: {error}") from None


TAB_MODEL = "tinyllm-yours"      # the model a reader trained in a browser tab (site/assets/train/yours.mjs)


def _tab_model(options: dict, models: dict | None):
    """The model trained in a browser tab: only the page that holds it can pass it in."""
    if models and TAB_MODEL in models:
        return models[TAB_MODEL](stop=TINYLLM_STOP, **options)
    raise ValueError(f"the brain {TAB_MODEL} is a model trained in a browser tab (/tinyllm/train/) and exists only in "
                     "that browser: open the run there, or download tinyllm-yours.onnx and its card from that page "
                     "and pass --predictor tinyllm:tinyllm-yours.onnx")


_PLATFORM_MODELS: dict = {}     # "tinyllm" -> a loader, where TinyLLM runs elsewhere (the page)


def use_platform_models(models: dict) -> None:
    """On this platform, resolve "tinyllm" / "tinyllm-agent" with `models` whenever make_predictor
    is given none (a platform adapter calls this; CPython never does, so it uses onnxruntime)."""
    _PLATFORM_MODELS.update(models)


def platform_model(name: str):
    """The platform's loader for model `name` (see use_platform_models), or None."""
    return _PLATFORM_MODELS.get(name)


def make_predictor(spec: str, *, temperature: float | None = None, seed: int | None = None,
                   models: dict | None = None):
    """A predictor for `spec` (see the module docstring); ValueError naming --predictor if bad.

    temperature and seed apply to sampling predictors (TinyLLM); None keeps each one's default.
    `models` maps "tinyllm" / "tinyllm-agent" to a function `(stop=..., temperature=..., seed=...)
    -> predictor` that loads that model elsewhere (the page passes its browser models); without
    it, the platform's (use_platform_models), and where there are none TinyLLM runs on onnxruntime.
    """
    spec = (spec or "").strip()
    models = _PLATFORM_MODELS if models is None else models
    options = {k: v for k, v in (("temperature", temperature), ("seed", seed)) if v is not None}
    if spec == "rule":
        return RulePredictor()
    if spec == "echo":
        return echo
    if spec == "tinyllm-agent" or spec.startswith("tinyllm-agent:"):
        return _tinyllm_agent(spec.partition(":")[2] or None, options, models)
    if spec == "tinygpt" or spec.startswith("tinygpt:"):
        return _tinygpt(spec.partition(":")[2] or None, options, models)
    if spec == "tinyllm" or spec.startswith("tinyllm:"):
        return _tinyllm(spec.partition(":")[2] or None, options, models)
    if spec == TAB_MODEL:
        return _tab_model(options, models)
    if spec.startswith("scripted:") and spec != "scripted:":
        return ScriptedPredictor(load_script(spec.partition(":")[2]), cycle=True)
    if spec.startswith(("http:", "https:")):
        from lllm.predictors.http_predictor import HttpPredictor

        url = spec if spec.startswith(("http://", "https://")) else spec.partition(":")[2]
        return HttpPredictor(url if "://" in url else "http://" + url)
    raise ValueError(f"--predictor {spec!r} is not one of: {PREDICTOR_SPECS}")
# --8<-- [end:make_predictor]
