"""LLLM — the Low-Level Language Model: learn how LLM agents work, layer by layer.

The package's folders are its four layers, bottom to top, and two edges that import them
(generated from hooks/layers.py; a test keeps it so):

    lllm/model/          1 · TinyLLM in Python: tokenizer, sampling, generation, the ONNX backend
    lllm/predictors/     2 · the narrow waist: predictor(prompt, max_new_tokens) -> completion
    lllm/agents/         3 · ReAct, its tools and memory, composed over a predictor
    lllm/protocol/       3 · the LLLM protocol: the typed Tactic, call context, trace, events, errors
    lllm/runtimes/       3 · the LLLM native runtime (Prompt, Agent, Dialog, Tactic) and tactics from functions
    lllm/reasoning/      3 · the reasoning-framework API: Framework, Agent, Environment, State
    lllm/timetravel/     4 · time travel: any run recorded at the seam, re-run from any call; every demo's run files
    lllm/labs/           4 · usage and testing: labs, evaluator, factory, held-out sets, debate, workflows
    lllm/services/       4 · tactics over HTTP: the protocol service, its servers, the client's import path
    lllm/create/         4 · new projects, written whole or not at all
    lllm/web/                the page adapters: the browser predictor, code cells, the demos' JSON
    lllm/commands/           the command line: one module per `python -m lllm` subcommand

The names below are importable from here, as in lllm-core. They load on first use, so
`import lllm` stays cheap in the page and stdlib-only: nothing imports onnxruntime, numpy, `js`,
`pyodide` or pydantic at import time (the protocol and the native runtime load pydantic when used).

    >>> from lllm import ScriptedPredictor
    >>> ScriptedPredictor(["Final Answer: 42"])("What is 6 * 7?")
    'Final Answer: 42'
"""

__version__ = "0.1.0"

from lllm.lazy import exported_names, lazy_exports

# ---- the public names and the module that defines each (read on first use) -----------------

_EXPORTS = {
    "lllm.model.generate": ["BackendPredictor", "Generation", "generate", "next_char_view"],
    "lllm.model.sampling": ["Mulberry32", "sample", "top_predictions"],
    "lllm.model.tokenizer": ["CharTokenizer", "UnknownCharacters"],
    "lllm.predictors.contract": ["Predictor", "ScriptedPredictor"],
    # the protocol layer (Pydantic), as lllm-core's top level
    "lllm.protocol": ["CallContext", "CallResult", "CallTrace", "LLLMError", "ProtocolError", "SchemaError",
                      "TacticError", "TacticEvent", "TacticInfo", "TacticLoadError", "TacticRefError",
                      "TacticServiceError", "TacticUnsupportedError"],
    "lllm.protocol.proxy": ["InMemoryProxyLog", "ProxyRecord", "ProxyTactic", "proxy_tactic"],
    "lllm.protocol.sandbox": ["SandboxLimitError", "SandboxPolicy", "SandboxTimeoutError", "SandboxedTactic",
                              "sandbox_tactic"],
    "lllm.services.endpoints": ["endpoint"],
    "lllm.runtimes.function_tactic": ["CallableTactic", "as_tactic"],
    "lllm.runtimes.native.adapter": ["NativeTacticAdapter"],
    # composition: tactics by reference, here or on a service, and their streams
    "lllm.runtimes.native.composition": ["RemoteTactic", "RemoteTacticError", "TacticRef", "TacticResolver"],
    # the native runtime (Pydantic); its Tactic is a protocol Tactic, so `lllm.Tactic` is both
    "lllm.runtimes.native": ["Agent", "BaseParser", "BaseProxy", "DefaultTagParser", "Dialog", "Function",
                             "FunctionCall", "Message", "ParseError", "Prompt", "ProxyRegistrator", "Role", "Runtime",
                             "Tactic", "build_tactic", "find_md_blocks", "find_xml_blocks", "load_runtime",
                             "register_invoker", "resolve_config", "tactic_as_function", "tactictool", "tool"],
}
__all__ = exported_names(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)     # lllm/lazy.py: import the module on first use, keep the value


def __dir__():
    return sorted(set(globals()) | set(__all__))
