"""Layer 1 · choosing the next character from the model's logits, reproducibly everywhere.

Read `tokenizer.py` first. The page (JavaScript) must produce the same text as the terminal
(Python) for the same seed, so both the random number generator and the order of operations
are specified here precisely enough to re-implement line for line.

The PRNG is Mulberry32: 32 bits of state, one 32-bit output per step, only integer
multiply/xor/shift — exact in Python and in JavaScript (`Math.imul`, `>>> 0`).

    state = (state + 0x6D2B79F5) mod 2**32
    t = imul(state ^ (state >>> 15), state | 1)
    t = t ^ (t + imul(t ^ (t >>> 7), t | 61))          (all arithmetic mod 2**32)
    out = t ^ (t >>> 14)
    uniform = out / 2**32                                (exact in float64, in [0, 1))

The sampler, given logits z[0..V-1] (float32 values widened exactly to float64):

    1. temperature == 0: return the smallest id with the largest logit (greedy; no draw).
    2. Order candidates by logit descending, ties by id ascending.
    3. top_k > 0: keep the first top_k candidates.
    4. For each kept candidate, in order: p = exp((z - z_first) / temperature).
    5. total = p summed left to right in candidate order.
    6. top_p < 1: walk the candidates summing p into c; keep up to and including the first
       candidate where c >= top_p * total; total = c.
    7. Draw one uniform u; target = u * total; walk the kept candidates summing p into acc and
       return the first whose acc > target (the last kept one if rounding runs past the end).

Exactly one uniform is drawn per sampled character, none when greedy.

Usage:

    >>> rng = Mulberry32(1)
    >>> [rng.next_u32() for _ in range(3)]
    [2693262067, 11749833, 2265367787]
    >>> sample([0.5, 2.0, 1.0], temperature=0.0, rng=Mulberry32(7))
    1
    >>> sample([0.5, 2.0, 1.0], temperature=1.0, top_k=1, rng=Mulberry32(7))
    1
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

__all__ = ["Mulberry32", "SamplingConfig", "candidates_by_logit", "draw", "sample", "softmax", "top_predictions"]

MASK32 = 0xFFFFFFFF


# ---- the PRNG ----------------------------------------------------------------------------------

# --8<-- [start:prng]
def _imul(a: int, b: int) -> int:
    """32-bit wrapping multiply, as JavaScript's Math.imul (the result taken mod 2**32)."""
    return (a * b) & MASK32


class Mulberry32:
    """A tiny deterministic PRNG; identical output in Python and JavaScript for the same seed."""

    def __init__(self, seed: int):
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an integer, got {type(seed).__name__}")
        self.state = seed & MASK32

    def next_u32(self) -> int:
        self.state = (self.state + 0x6D2B79F5) & MASK32
        t = self.state
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & MASK32
        return (t ^ (t >> 14)) & MASK32

    def uniform(self) -> float:
        """A float in [0, 1) with 32 random bits."""
        return self.next_u32() / 4294967296.0
# --8<-- [end:prng]


# ---- the sampler -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SamplingConfig:
    """How to pick the next character. temperature 0 means greedy; top_k 0 and top_p 1 mean off."""

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0

    def __post_init__(self):
        check_sampling(self.temperature, self.top_k, self.top_p)


def check_sampling(temperature: float, top_k: int, top_p: float) -> None:
    """Raise ValueError naming the bad setting (the CLI turns it into a one-line error)."""
    if not isinstance(temperature, (int, float)) or not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 0:
        raise ValueError(f"top-k must be an integer >= 0 (0 = off), got {top_k!r}")
    if not isinstance(top_p, (int, float)) or not (0 < top_p <= 1):
        raise ValueError(f"top-p must be in (0, 1], got {top_p!r}")


def candidates_by_logit(logits: Sequence[float]) -> list[int]:
    """Ids by logit, largest first; a stable sort keeps equal logits in id order (even reversed)."""
    return sorted(range(len(logits)), key=logits.__getitem__, reverse=True)


# --8<-- [start:sampler]
def draw(logits: Sequence[float], temperature: float, top_k: int, top_p: float, u: float | None) -> dict:
    """Steps 1-7 of the module docstring with uniform `u`, every step's result kept: the candidates
    kept (in order), their weights p, the mass `total` after the cuts, `target` = u * total, the id.
    The glass box shows exactly this (`lllm.model.inside`); `sample` is it with the generator's u."""
    check_sampling(temperature, top_k, top_p)
    if not logits:
        raise ValueError("cannot sample from empty logits")
    if temperature == 0:                                              # 1. greedy: no number drawn
        best = 0
        for i in range(1, len(logits)):
            if logits[i] > logits[best]:
                best = i
        return {"greedy": True, "kept": [best], "weights": [1.0], "total": 1.0, "target": None, "id": best}
    order = candidates_by_logit(logits)                               # 2.
    if top_k > 0:
        order = order[:top_k]                                         # 3.
    z_first = logits[order[0]]
    weights = [math.exp((logits[i] - z_first) / temperature) for i in order]   # 4.
    total = 0.0
    for w in weights:                                                 # 5.
        total += w
    if top_p < 1:                                                     # 6.
        c, keep = 0.0, len(order)
        for j, w in enumerate(weights):
            c += w
            if c >= top_p * total:
                keep = j + 1
                break
        order, weights, total = order[:keep], weights[:keep], c
    target = u * total                                                # 7.
    acc, chosen = 0.0, order[-1]             # the last kept one if rounding runs past the end
    for i, w in zip(order, weights):
        acc += w
        if acc > target:
            chosen = i
            break
    return {"greedy": False, "kept": order, "weights": weights, "total": total, "target": target, "id": chosen}


def sample(logits: Sequence[float], temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0,
           rng: Mulberry32 | None = None) -> int:
    """Pick one token id from `logits`: `draw` with the next uniform of `rng` (none drawn when greedy)."""
    check_sampling(temperature, top_k, top_p)
    if not logits:
        raise ValueError("cannot sample from empty logits")
    if temperature == 0:
        return draw(logits, temperature, top_k, top_p, None)["id"]
    if rng is None:
        raise ValueError("sampling with temperature > 0 needs an rng (Mulberry32(seed))")
    return draw(logits, temperature, top_k, top_p, rng.uniform())["id"]
# --8<-- [end:sampler]


# ---- what the model "thinks" comes next --------------------------------------------------------

def softmax(logits: Sequence[float], temperature: float = 1.0) -> list[float]:
    """Probabilities in id order (temperature > 0)."""
    if temperature <= 0:
        raise ValueError("softmax needs temperature > 0")
    z_max = max(logits)
    exps = [math.exp((z - z_max) / temperature) for z in logits]
    total = sum(exps)
    return [e / total for e in exps]


def top_predictions(logits: Sequence[float], k: int = 5, temperature: float = 1.0) -> list[tuple[int, float]]:
    """The k most likely next ids with their probabilities, most likely first (ties by id)."""
    probs = softmax(logits, temperature)
    return [(i, probs[i]) for i in candidates_by_logit(logits)[:k]]
