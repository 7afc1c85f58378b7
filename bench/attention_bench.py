"""Benchmark: the cost of one more character, recurrence against attention, in plain Python.

Not a test: it prints times and ratios measured in this one run (the machines are noisy, so only
ratios measured back to back mean much). Everything is stdlib Python on lists, the way the
Recurrence and attention page and its exercise write it, at one width d:

    lstm       one LSTM step of d units from an input of d numbers (the state is h and c)
    cached     one attention step with a key/value cache: the new position's query, key and value,
               then one score per past position, the softmax and the weighted sum of the values
    uncached   the same character with no cache: every position's query, key and value and every
               row of the causal attention again (what a model of more than one layer must redo)

for a new character after n past positions. The LSTM's cost does not depend on n; the cached
step grows with n, the uncached one with n squared.

    python bench/attention_bench.py [--width 32] [--positions 64 256 1024] [--repeats 5]
"""

from __future__ import annotations

import argparse
import math
import random
import time


def matvec(W: list[list[float]], x: list[float]) -> list[float]:
    """W (rows, len(x)) times x."""
    return [sum(w * v for w, v in zip(row, x)) for row in W]


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def lstm_step(weights: dict, x: list[float], h: list[float], c: list[float]) -> tuple[list[float], list[float]]:
    """One LSTM step: four gate blocks from x and h, then the new cell and hidden state."""
    z = [a + b for a, b in zip(matvec(weights["W_x"], x), matvec(weights["W_h"], h))]   # (4d,)
    d = len(h)
    i, f, o = ([sigmoid(v) for v in z[k * d:(k + 1) * d]] for k in range(3))
    g = [math.tanh(v) for v in z[3 * d:]]
    c = [fv * cv + iv * gv for fv, cv, iv, gv in zip(f, c, i, g)]
    return [ov * math.tanh(cv) for ov, cv in zip(o, c)], c


def attend(q: list[float], keys: list[list[float]], values: list[list[float]]) -> list[float]:
    """One row of causal attention: q against every key it may see, softmax, weighted sum of values."""
    scale = 1.0 / math.sqrt(len(q))
    scores = [sum(a * b for a, b in zip(q, k)) * scale for k in keys]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [sum(e * v[col] for e, v in zip(exps, values)) / total for col in range(len(values[0]))]


def cached_step(weights: dict, x: list[float], cache: dict) -> list[float]:
    """A new position with a key/value cache: its own projections, then one row of attention."""
    cache["keys"].append(matvec(weights["W_k"], x))
    cache["values"].append(matvec(weights["W_v"], x))
    return attend(matvec(weights["W_q"], x), cache["keys"], cache["values"])


def uncached_step(weights: dict, xs: list[list[float]]) -> list[float]:
    """The same position with no cache: every position's projections and attention row again."""
    keys = [matvec(weights["W_k"], x) for x in xs]
    values = [matvec(weights["W_v"], x) for x in xs]
    rows = [attend(matvec(weights["W_q"], x), keys[:t + 1], values[:t + 1]) for t, x in enumerate(xs)]
    return rows[-1]


def random_weights(width: int, rng: random.Random) -> dict:
    def matrix(rows: int, cols: int) -> list[list[float]]:
        return [[rng.gauss(0, 1 / math.sqrt(cols)) for _ in range(cols)] for _ in range(rows)]
    return {"W_x": matrix(4 * width, width), "W_h": matrix(4 * width, width),
            "W_q": matrix(width, width), "W_k": matrix(width, width), "W_v": matrix(width, width)}


def best_seconds(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def measure(width: int, positions: list[int], repeats: int, seed: int = 0) -> list[dict]:
    """Seconds for one more character after n past positions, per mode (the best of `repeats`)."""
    rng = random.Random(seed)
    weights = random_weights(width, rng)
    rows = []
    for n in positions:
        xs = [[rng.gauss(0, 1) for _ in range(width)] for _ in range(n + 1)]
        h, c = [0.0] * width, [0.0] * width
        full = {"keys": [matvec(weights["W_k"], x) for x in xs[:n]], "values": [matvec(weights["W_v"], x) for x in xs[:n]]}

        def cached():
            cache = {"keys": list(full["keys"]), "values": list(full["values"])}   # copies: each run adds one
            cached_step(weights, xs[n], cache)

        rows.append({"n": n,
                     "lstm": best_seconds(lambda: lstm_step(weights, xs[n], h, c), repeats),
                     "cached": best_seconds(cached, repeats),
                     "uncached": best_seconds(lambda: uncached_step(weights, xs), max(1, repeats // 2))})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=32, help="d: the LSTM's units and the head's width")
    parser.add_argument("--positions", type=int, nargs="+", default=[64, 256, 1024], help="past positions n")
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement; the best counts")
    args = parser.parse_args(argv)
    rows = measure(args.width, args.positions, args.repeats)
    base = rows[0]
    print(f"one more character after n past positions, width {args.width}, plain Python (best of {args.repeats})")
    print(f"{'n':>6} {'lstm ms':>9} {'cached ms':>10} {'uncached ms':>12}   ratios to n = {base['n']}: lstm, cached, uncached")
    for row in rows:
        ms = {k: 1000 * row[k] for k in ("lstm", "cached", "uncached")}
        ratios = ", ".join(f"{row[k] / base[k]:.1f}x" for k in ("lstm", "cached", "uncached"))
        print(f"{row['n']:>6} {ms['lstm']:>9.3f} {ms['cached']:>10.3f} {ms['uncached']:>12.1f}   {ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
