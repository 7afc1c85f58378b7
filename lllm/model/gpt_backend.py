"""Layer 1 · TinyGPT in CPython: its ONNX graph on onnxruntime, carrying a key/value cache, as a Predictor.

Read `onnx_backend.py` (TinyLLM's twin of this file) and `generate.py` first. The backend has the
same contract as TinyLLM's, `backend(ids, state) -> (logits after the last id, state)`, so the same
`generate` loop, sampler and seed drive both models; only what the state holds differs:

    TinyLLM   state = (h, c)                 a fixed-size summary of everything read
    TinyGPT   state = {"ids", "past"}        every position's key and value, one more per character

A transformer's context is bounded (`block` characters: positions have learned vectors up to
there). `refill_rule` says what happens past it, and the page (site/assets/runtime/gpt.mjs) follows
the same rule, so a seed gives the same text in the terminal and in the page. onnxruntime (and
numpy) are imported only when a model is opened, so `import lllm` stays stdlib-only.

Usage:

    >>> refill_rule([], [1, 2, 3], cached=0, block=4, refill=2)      # a prompt that fits
    ([1, 2, 3], True)
    >>> refill_rule([1, 2, 3], [4], cached=3, block=4, refill=2)     # one more still fits
    ([4], True)
    >>> refill_rule([1, 2, 3, 4], [5], cached=4, block=4, refill=2)  # full: re-read the last 2
    ([4, 5], False)

(after `make model`)

    from lllm.model.gpt_backend import from_gpt_onnx
    print(from_gpt_onnx("build/model/tinygpt.onnx", seed=1)("Once", max_new_tokens=80))
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from lllm.model.files import open_model, read_card
from lllm.model.generate import BackendPredictor
from lllm.model.tokenizer import CharTokenizer

__all__ = ["DEFAULT_GPT", "GPT_CARD_FORMAT", "refill_rule", "load_gpt_card", "GPTBackend", "from_gpt_onnx"]

DEFAULT_GPT = os.path.join("build", "model", "tinygpt.onnx")
GPT_CARD_FORMAT = "lllm.tinygpt/1"


# ---- 1. the context rule -----------------------------------------------------------------------

# --8<-- [start:refill]
def refill_rule(history: list[int], new: Sequence[int], cached: int, block: int, refill: int):
    """Which ids to feed and whether to keep the cache: (ids, keep_cache).

    history: the ids read so far (at least the last `block`); cached: positions the cache holds.
    While everything fits in `block`, feed only the new ids after the cache. Past it, start an
    empty cache with the last `refill` ids (the last `block` if the new ids alone are more)."""
    if cached + len(new) <= block:
        return list(new), True
    everything = list(history) + list(new)
    return everything[-max(refill, min(len(new), block)):], False
# --8<-- [end:refill]


# ---- 2. the model card: opened by `files.py`, as every model is ---------------------------------

def load_gpt_card(path: str) -> dict:
    """Read and check a TinyGPT card; ModelError naming the file and the problem."""
    return read_card(path, GPT_CARD_FORMAT, "a TinyGPT model card", ("layers", "heads", "embed", "block", "refill"))


# ---- 3. the backend ----------------------------------------------------------------------------

# --8<-- [start:gpt-backend]
class GPTBackend:
    """`backend(ids, state) -> (logits for the last position, state)` on onnxruntime.

    state = {"ids": the last `block` ids read, "past": (keys, values)}, each (L, 1, heads, S, D).
    `attention` keeps the last call's attention, (L, 1, heads, T, S), and `fed` how many positions
    the model computed in all (the cache's saving is the difference from re-reading everything)."""

    def __init__(self, model_path: str = DEFAULT_GPT):
        self.session, self.card = open_model(model_path, load_gpt_card)
        self.tokenizer = CharTokenizer(self.card["vocab"])
        self.vocab_size = len(self.tokenizer)
        c = self.card["config"]
        self.layers, self.heads, self.block, self.refill = c["layers"], c["heads"], c["block"], c["refill"]
        self.head_dim = c["embed"] // c["heads"]
        self.attention, self.fed = None, 0

    def empty(self):
        import numpy as np
        shape = (self.layers, 1, self.heads, 0, self.head_dim)
        return np.zeros(shape, np.float32), np.zeros(shape, np.float32)

    def __call__(self, ids: Sequence[int], state: Any = None) -> tuple[list[float], Any]:
        import numpy as np
        if len(ids) == 0:
            raise ValueError("backend needs at least one new character id")
        history, past = (state["ids"], state["past"]) if state else ([], self.empty())
        feed, keep = refill_rule(history, ids, past[0].shape[3], self.block, self.refill)
        past = past if keep else self.empty()
        logits, keys, values, self.attention = self.session.run(
            ["logits", "present_key", "present_value", "attention"],
            {"input_ids": np.asarray([feed], np.int64), "past_key": past[0], "past_value": past[1]})
        self.fed += len(feed)
        state = {"ids": (list(history) + list(ids))[-self.block:], "past": (keys, values)}
        return logits[0, -1].tolist(), state
# --8<-- [end:gpt-backend]


# ---- 4. as a Predictor -------------------------------------------------------------------------

def from_gpt_onnx(path: str = DEFAULT_GPT, temperature: float = 0.8, top_k: int = 0, top_p: float = 1.0,
                  seed: int = 0, max_new_tokens: int = 200, stop: Sequence[str] = ()) -> BackendPredictor:
    """TinyGPT as a Predictor: `from_gpt_onnx(...)(prompt, max_new_tokens) -> completion only`."""
    backend = GPTBackend(path)
    return BackendPredictor(backend, backend.tokenizer, temperature=temperature, top_k=top_k,
                            top_p=top_p, seed=seed, max_new_tokens=max_new_tokens, stop=stop)
