"""Layer 1 · inside TinyGPT: every head's attention at every position of a text, and what the cache saves.

Read `gpt_backend.py` and `inside.py` (TinyLLM's twin of this file) first. `trace` generates a text
exactly as `generate` does (the same backend calls, sampler and random numbers, so the text is the
one `lllm generate --predictor tinygpt` writes) and keeps, for every position, the attention of
every head of every layer over the characters before it; `position_view` lays out one position;
`cache_saving` counts the positions the model computed with its key/value cache against what
re-reading the context for every character would compute. The page /tinyllm/inside/ computes the
same in JavaScript (site/assets/inside/gpt-widget.mjs) and a test compares the two.

Usage (after `make model`):

    from lllm.model.gpt_backend import GPTBackend
    t = trace(GPTBackend("build/model/tinygpt.onnx"), "Once", length=40, seed=1)
    view = position_view(t, 12)       # view["layers"][l][h][j]: head h of layer l on key view["keys"][j]

The arithmetic of the saving, on its own:

    >>> cache_saving(prompt_length=4, length=3, block=5, refill=3)
    {'with_cache': 7, 'without_cache': 19, 'refills': 1, 'with_refills': 9}
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lllm.model.generate import EMPTY_PROMPT
from lllm.model.sampling import Mulberry32, sample

__all__ = ["AttentionTrace", "trace", "read", "position_view", "cache_saving"]


@dataclass
class AttentionTrace:
    """A generated text and, per position, the first key it saw and every head's attention row."""

    vocab: list[str]
    ids: list[int]
    prompt_length: int
    first_key: list[int | None] = field(default_factory=list)     # None: a long prompt's cut-off start
    rows: list[list[list[list[float]]] | None] = field(default_factory=list)   # [layer][head][key]
    fed: int = 0                                                   # positions the model computed in all
    dropped: list[str] = field(default_factory=list)


def _keep(t: AttentionTrace, attention, positions: list[int], first_key: int) -> None:
    """Rows of `attention` (L, 1, n, T, S) for the last len(positions) queries, keys from first_key."""
    L, _, n, T, S = attention.shape
    for r, p in zip(range(T - len(positions), T), positions):
        t.first_key[p] = first_key
        t.rows[p] = [[[float(a) for a in attention[l, 0, h, r, :first_key_end(p, first_key)]] for h in range(n)]
                     for l in range(L)]


def first_key_end(p: int, first_key: int) -> int:
    """How many keys position p sees when the cache starts at first_key: itself and those before."""
    return p - first_key + 1


def trace(backend, prompt: str, length: int, seed: int = 0, temperature: float = 0.8, top_k: int = 0,
          top_p: float = 1.0) -> AttentionTrace:
    """Generate `length` characters after `prompt`, reading every position once (the cache),
    and keep each position's attention. The last generated character is read too, so it has a row."""
    tok = backend.tokenizer
    ids, dropped = tok.encode_lossy(prompt)
    ids = ids or tok.encode(EMPTY_PROMPT)
    t = AttentionTrace(list(tok.vocab), list(ids), len(ids), dropped=dropped)
    total = len(ids) + length
    t.first_key, t.rows = [None] * total, [None] * total
    rng = Mulberry32(seed)
    fed_before = backend.fed
    logits, state = backend(ids, None)
    start = len(ids) - state["past"][0].shape[3]                     # a long prompt: the last `block` only
    _keep(t, backend.attention, list(range(start, len(ids))), start)
    while len(t.ids) < total:
        t.ids.append(sample(logits, temperature, top_k, top_p, rng))
        logits, state = backend([t.ids[-1]], state)
        p = len(t.ids) - 1
        _keep(t, backend.attention, [p], p + 1 - state["past"][0].shape[3])
    t.fed = backend.fed - fed_before
    return t


def read(backend, prompt: str, given: str) -> tuple[AttentionTrace, list[float]]:
    """`prompt` then `given` read as generation reads them (`given` in place of the draws), every
    position but the last kept; and the logits after the last but one, which drew `given`'s last."""
    tok = backend.tokenizer
    ids = tok.encode_lossy(prompt)[0] or tok.encode(EMPTY_PROMPT)
    t = AttentionTrace(list(tok.vocab), ids + tok.encode_lossy(given)[0], len(ids))
    t.first_key, t.rows = [None] * len(t.ids), [None] * len(t.ids)
    logits, state = backend(ids, None)
    start = len(ids) - state["past"][0].shape[3]
    _keep(t, backend.attention, list(range(start, len(ids))), start)
    for p in range(len(ids), len(t.ids) - 1):
        logits, state = backend([t.ids[p]], state)
        _keep(t, backend.attention, [p], p + 1 - state["past"][0].shape[3])
    return t, logits


def position_view(t: AttentionTrace, position: int) -> dict:
    """One position: its character, the characters it attends over, and every head's weights."""
    if not 0 <= position < len(t.ids):
        raise ValueError(f"position must be between 0 and {len(t.ids) - 1}, got {position}")
    if t.rows[position] is None:
        raise ValueError(f"position {position} is before the part of the prompt the model read")
    first = t.first_key[position]
    return {"position": position, "char": t.vocab[t.ids[position]], "first_key": first,
            "keys": [t.vocab[i] for i in t.ids[first:position + 1]], "layers": t.rows[position],
            "text": "".join(t.vocab[i] for i in t.ids), "prompt_length": t.prompt_length}


def cache_saving(prompt_length: int, length: int, block: int, refill: int) -> dict:
    """Positions computed to read a prompt and write `length` characters after it (the last one read too).

    with_cache: each position once (what a cache that never fills would compute); with_refills: the
    same with the real refills past `block`; without_cache: re-reading the last `block` characters
    (the whole text while it is shorter) for every character, as a transformer without a cache must."""
    read = min(prompt_length, block)
    with_refills, refills, cached = read, 0, read
    without = read
    for p in range(prompt_length, prompt_length + length):
        without += min(p + 1, block)
        if cached + 1 <= block:
            with_refills, cached = with_refills + 1, cached + 1
        else:
            with_refills, cached, refills = with_refills + refill, refill, refills + 1
    return {"with_cache": read + length, "without_cache": without, "refills": refills,
            "with_refills": with_refills}
