"""LLLM — the Low-Level Language Model: learn how LLM agents work, layer by layer.

Layer 2 (the narrow waist) is importable from here; higher layers live in their own modules.
Nothing here imports onnxruntime, numpy, `js` or `pyodide`: the package is stdlib-only and runs
unchanged in CPython and in Pyodide.

    >>> from lllm import ScriptedPredictor
    >>> ScriptedPredictor(["Final Answer: 42"])("What is 6 * 7?")
    'Final Answer: 42'
"""

from .generate import BackendPredictor, Generation, generate, next_char_view
from .predictor import Predictor, ScriptedPredictor
from .sampling import Mulberry32, sample, top_predictions
from .tokenizer import CharTokenizer, UnknownCharacters
# Layer 3 · the LLLM native runtime (seed 004); parsers and handlers live in lllm.runtimes.native.
from .runtimes.native import (Agent, BaseProxy, Dialog, Function, FunctionCall, Message, Prompt, ProxyRegistrator,
                              Role, Runtime, Tactic, build_tactic, load_runtime, register_invoker, resolve_config,
                              tactic_as_function, tactictool, tool)

__version__ = "0.1.0"
