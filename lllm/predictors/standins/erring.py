"""Layer 2 · what the reasoning stand-ins share: two error rates, checked, and a seeded die to roll.

Read `game24.py` or `multihop.py` (beside this file) first: each is an `ErringStandIn` that makes
a mistake in a reasoning step with chance `error_rate` and gives a random value label with chance
`value_noise` (by default the same). The die is the Mulberry32 generator passed in, so a seed gives
the same run in the terminal and in the page.

    >>> from lllm.model.sampling import Mulberry32
    >>> ErringStandIn(0.25, Mulberry32(1))
    ErringStandIn(error_rate=0.25, value_noise=0.25)
    >>> ErringStandIn(1.5)
    Traceback (most recent call last):
    ...
    ValueError: error_rate must be in [0, 1], got 1.5
"""

from __future__ import annotations

from lllm.model.sampling import Mulberry32

__all__ = ["ErringStandIn"]


class ErringStandIn:
    def __init__(self, error_rate: float = 0.3, rng: Mulberry32 | None = None, value_noise: float | None = None,
                 n_proposals: int = 4):
        value_noise = error_rate if value_noise is None else value_noise
        for name, p in (("error_rate", error_rate), ("value_noise", value_noise)):
            if not 0 <= p <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {p!r}")
        self.error_rate, self.value_noise = error_rate, value_noise
        self.rng = rng if rng is not None else Mulberry32(0)
        self.n_proposals = n_proposals

    def __repr__(self) -> str:
        return f"{type(self).__name__}(error_rate={self.error_rate}, value_noise={self.value_noise})"

    def _chance(self, p: float) -> bool:
        return self.rng.uniform() < p

    def _pick(self, items: list):
        return items[int(self.rng.uniform() * len(items))]

    def _proposals(self, draw) -> list[str]:
        """Up to `n_proposals` distinct results of `draw()`, from three times as many draws at most:
        each drawn as one step is, so each is good with chance about 1 - error_rate."""
        found = []
        for _ in range(3 * self.n_proposals):
            step = draw()
            if step not in found:
                found.append(step)
            if len(found) == self.n_proposals:
                break
        return found
