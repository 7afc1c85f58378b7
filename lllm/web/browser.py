"""Platform adapter · TinyLLM inside a web page: the browser Predictor, and the code-cell runner.

Read `generate.py` and `onnx_backend.py` first. This module runs only in Pyodide, inside the
site's runtime worker (`site/assets/runtime/worker.mjs`), which exposes a small JavaScript module
`_lllm_page`: each model's card and a `generate` function holding the token loop. The core never
imports this file, and this file imports `js`/`pyodide` only inside the functions that need them.
Models are named as in the site's runtime manifest: "tinyllm" (the story model, loaded with the
page), "tinyllm-agent" (the agent-tuned one from `make agent-model`, loaded when first named) and
"tinyllm-yours" (the reader's own, trained on /tinyllm/train/ and kept in this browser).

Why the loop is in JavaScript: onnxruntime-web answers with a Promise. A synchronous agent
(exactly the code that runs in a terminal) must block until the answer is there. In a
cross-origin-isolated page the worker has already blocked (Atomics.wait) and `_lllm_page` hands
back the answer itself; otherwise it hands back a Promise, which `_settle` blocks on with
`pyodide.ffi.run_sync` (JavaScript Promise Integration). One question per predictor call keeps the
per-character cost in JavaScript; the JS sampler (`sampler.mjs`) mirrors `sampling.py` exactly,
so a seed gives the same text here and in `python -m lllm generate`.

Usage (in a runnable cell on the site):

    from lllm.web.browser import from_browser
    brain = from_browser(temperature=0.8, seed=1)
    print(brain("Once", max_new_tokens=80))
    agent = from_browser(model="tinyllm-agent", temperature=0, stop=("Observation:", "\\n\\n"))
"""

from __future__ import annotations

import ast
import json
import linecache
from contextlib import redirect_stderr, redirect_stdout
from typing import Any, Callable, Sequence

from lllm.model.generate import EMPTY_PROMPT, Generation, NumberSlots, check_count, model_view
from lllm.model.sampling import Mulberry32, check_sampling
from lllm.model.tokenizer import CharTokenizer
from lllm.predictors.specs import use_platform_models
from lllm.web.tracebacks import describe
from lllm.web.sandbox import use_page_sandbox

__all__ = ["BrowserPredictor", "BrowserBackend", "STORY_MODEL", "browser_models", "from_browser", "page_card", "page_tokenizer",
           "run_cell"]

STORY_MODEL = "tinyllm"    # the model the page loads first; "tinyllm-agent" loads when named


# ---- the page's models ---------------------------------------------------------------------------

def _page():
    """The worker's JavaScript module: every function takes a model name and returns a Promise."""
    import _lllm_page                      # registered by worker.mjs; exists only in the page
    return _lllm_page


def _settle(answer: Any) -> Any:
    """The page's answer: a Promise (the JSPI path) is blocked on; a value is already the answer."""
    if not hasattr(answer, "then"):
        return answer
    from pyodide.ffi import run_sync
    return run_sync(answer)


def page_card(model: str = STORY_MODEL) -> dict:
    """The card of a model in the page (vocab, config, training metrics...), loading it if needed;
    raises the worker's error (a missing or damaged model, named) if it cannot be loaded."""
    return json.loads(_settle(_page().card_json(model)))


def page_tokenizer(model: str = STORY_MODEL) -> CharTokenizer:
    return CharTokenizer(page_card(model)["vocab"])


# ---- the Predictor: one JavaScript Promise per call ------------------------------------------------

class BrowserPredictor:
    """TinyLLM in the page as `predictor(prompt, max_new_tokens) -> completion only`.

    Same arguments and behaviour as `generate.BackendPredictor` over the ONNX backend: one
    Mulberry32 stream seeded once and carried across calls (its 32-bit state goes to JavaScript
    and comes back), unknown prompt characters dropped and kept in `last.dropped`, and the prompt
    read from the card's `reads_from` marker when it has one (`generate.prompt_view`), with its
    numbers as slots when the card has `number_slots` (`generate.NumberSlots`). `model` names the
    page's model ("tinyllm" or "tinyllm-agent").
    """

    def __init__(self, temperature: float = 0.8, top_k: int = 0, top_p: float = 1.0, seed: int = 0,
                 max_new_tokens: int = 200, stop: Sequence[str] = (), model: str = STORY_MODEL):
        check_sampling(temperature, top_k, top_p)
        check_count(max_new_tokens)
        self.temperature, self.top_k, self.top_p = temperature, top_k, top_p
        self.max_new_tokens, self.stop, self.model = max_new_tokens, tuple(stop), model
        self.rng = Mulberry32(seed)
        card = page_card(model)
        self.tokenizer, self.reads_from = CharTokenizer(card["vocab"]), card.get("reads_from")
        try:
            self.number_slots = NumberSlots.from_card(card.get("number_slots"), card["vocab"])
        except ValueError as e:
            raise ValueError(f"the page's card of {model}: {e}") from None
        self.last: Generation | None = None

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        from pyodide.ffi import to_js
        n = self.max_new_tokens if max_new_tokens is None else max_new_tokens
        check_count(n)
        prompt, numbers = model_view(prompt, self.reads_from, self.number_slots)
        ids, dropped = self.tokenizer.encode_lossy(prompt)
        if not ids:
            ids = self.tokenizer.encode(EMPTY_PROMPT)
        result = _settle(_page().generate(self.model, to_js(ids), n, float(self.temperature), self.top_k,
                                           float(self.top_p), self.rng.state, to_js(list(self.stop))))
        self.rng.state = int(result.rngState)
        self.last = Generation(prompt=prompt, completion=result.completion, dropped=dropped,
                               stopped_by=result.stoppedBy, numbers=numbers)
        return self.number_slots.unmask(result.completion, numbers) if self.number_slots else result.completion

    def __repr__(self) -> str:
        return (f"BrowserPredictor(model={self.model!r}, temperature={self.temperature}, top_k={self.top_k}, "
                f"top_p={self.top_p}, max_new_tokens={self.max_new_tokens})")


def browser_models() -> dict:
    """The page's TinyLLMs (onnxruntime-web in the runtime worker) for make_predictor(models=...)."""
    def load(model: str, what: str):
        def build(**options):
            try:
                return from_browser(model=model, **options)
            except ValueError:
                raise
            except Exception as error:         # the model did not load: a sentence, not a traceback
                message = str(error).removeprefix("Error: ")      # a JavaScript error's text starts so
                raise ValueError(f"{what} could not be loaded in this page: {message}") from None
        return build
    return {"tinyllm": load("tinyllm", "TinyLLM"), "tinyllm-agent": load("tinyllm-agent", "the agent-tuned TinyLLM"),
            "tinygpt": load("tinygpt", "TinyGPT"), "tinyllm-yours": load("tinyllm-yours", "Your model trained in the tab")}


def from_browser(temperature: float = 0.8, top_k: int = 0, top_p: float = 1.0, seed: int = 0,
                 max_new_tokens: int = 200, stop: Sequence[str] = (), model: str = STORY_MODEL) -> BrowserPredictor:
    """A TinyLLM of the page as a Predictor — the browser twin of `onnx_backend.from_onnx`."""
    return BrowserPredictor(temperature, top_k, top_p, seed, max_new_tokens, stop, model)


# ---- a Backend, for the teaching loops in generate.py (one Promise per forward pass) -------------

class BrowserBackend:
    """`backend(ids, state) -> (logits after the last id, state)`; state is (h, c) kept in JavaScript.

    Slower than BrowserPredictor (Python drives every step), but it lets a page run
    `generate.generate(..., mode="window")` or `next_char_view` on the page's model.
    """

    def __init__(self, model: str = STORY_MODEL):
        self.model = model
        self.tokenizer = page_tokenizer(model)

    def __call__(self, ids: Sequence[int], state: Any = None) -> tuple[list[float], Any]:
        from pyodide.ffi import to_js
        h, c = state if state is not None else (None, None)
        out = _settle(_page().forward(self.model, to_js(list(ids)), h, c))
        return out.logits.to_py().tolist(), (out.h, out.c)


# ---- running a code cell: the page's interpreter ---------------------------------------------------

class _Stream:
    """A write-only text stream that forwards every write to the page and keeps a copy."""

    def __init__(self, send: Callable[[str], Any]):
        self.send, self.parts = send, []

    def write(self, text: str) -> int:
        if text:
            self.parts.append(text)
            self.send(text)
        return len(text)

    def flush(self) -> None:
        pass


def run_cell(code: str, namespace: dict, send_stdout: Callable[[str], Any],
             send_stderr: Callable[[str], Any], filename: str = "<cell>") -> dict:
    """Run `code` in `namespace` like a notebook cell: stdout/stderr stream out as they are written;
    returns {stdout, stderr, value (repr of a final expression, or None), error (the error and the
    cell's lines first, tracebacks.describe; or None), traceback (the full one, without this function's
    frame; or None)}."""
    use_platform_models(browser_models())     # in this page, "tinyllm" means the page's TinyLLM
    use_page_sandbox(lambda message: _settle(_page().sandbox(message)))   # run_python: an opaque-origin frame
    out, err = _Stream(send_stdout), _Stream(send_stderr)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)  # source lines in tracebacks
    value = error = full = None
    with redirect_stdout(out), redirect_stderr(err):
        try:
            tree = ast.parse(code, filename)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, filename, "exec"), namespace)
            if last is not None:
                result = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
                value = None if result is None else repr(result)
        except BaseException as e:          # the reader's code: every failure is described, never raised
            error, full = describe(e, filename, skip=1)    # skip=1: run_cell's own frame
    return {"stdout": "".join(out.parts), "stderr": "".join(err.parts), "value": value, "error": error, "traceback": full}
