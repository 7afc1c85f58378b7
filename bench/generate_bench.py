"""Benchmark: TinyLLM generation speed in CPython (onnxruntime), carried state vs window re-run.

Not a test: it prints numbers and ratios measured in this one run (the machines are noisy, so
only the ratio between the two modes, measured back to back, means much).

    python bench/generate_bench.py [--model build/model/tinyllm.onnx] [--chars 400] [--window 30 64]

Goal: carrying the LSTM state is >= 5x faster than re-running the window for every character.
Both modes pay the same per-character Python cost (sampling); the window re-run pays the
LSTM over the whole window again. The default windows are the training window (30, from the
card) and 64 (the context the browser measurements on the Design page used).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from lllm.model.generate import generate  # noqa: E402
from lllm.model.onnx_backend import DEFAULT_MODEL, ModelError, OnnxBackend  # noqa: E402


def chars_per_second(backend, mode: str, chars: int, window: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        out = generate(backend, backend.tokenizer, "Once upon a time", chars, temperature=0.8,
                       seed=1, mode=mode, window=window)
        best = min(best, time.perf_counter() - start)
        assert len(out.completion) == chars
    return chars / best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--chars", type=int, default=400)
    parser.add_argument("--window", type=int, nargs="+", default=None,
                        help="window sizes to re-run (default: the card's training window and 64)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    try:
        backend = OnnxBackend(args.model)
    except ModelError as e:
        print(f"generate_bench: error: {e}", file=sys.stderr)
        return 2
    windows = args.window or [backend.card["config"].get("window", 30), 64]
    generate(backend, backend.tokenizer, "warm up", 20, temperature=0)
    carry = chars_per_second(backend, "carry", args.chars, 0, args.repeats)
    print(f"generation in CPython (onnxruntime, 1 thread), {args.chars} chars, best of {args.repeats}:")
    print(f"  carried state          {carry:10.0f} chars/s")
    for window in windows:
        rerun = chars_per_second(backend, "window", args.chars, window, args.repeats)
        ratio = carry / rerun
        print(f"  window re-run ({window:3d})    {rerun:10.0f} chars/s   carry is {ratio:5.2f}x faster"
              f"   (goal >= 5x: {'met' if ratio >= 5 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
