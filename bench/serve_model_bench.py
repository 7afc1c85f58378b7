"""Benchmark: TinyLLM through `lllm serve-model` (HTTP, JSON, uvicorn) against the same generation in process.

Not a test: it prints numbers and ratios measured in this one run (the machine is shared and
noisy, so only ratios measured back to back mean much).

    python bench/serve_model_bench.py [--chars 400] [--repeats 3]

What it measures, for the story model with the same prompt, settings and seed (best of the repeats):
  - in process:  `lllm.model.generate.generate` on onnxruntime, the floor.
  - round trip:  GET /v1/models from httpx (one client, one kept connection): HTTP alone, no model.
  - served:      POST /v1/completions to a server on loopback (a subprocess), the whole answer.
  - streamed:    the same with "stream": true: time to the first character and to `data: [DONE]`.
Goal: what serving adds beyond one round trip is at most half the in-process time for a
400-character completion (served - round trip <= 1.5x in process).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from lllm.model.generate import generate  # noqa: E402
from lllm.model.onnx_backend import OnnxBackend  # noqa: E402
from support.model_server import ModelServer  # noqa: E402

PROMPT, SEED, TEMPERATURE = "Once upon a time", 1, 0.8


def best(repeats: int, run) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def streamed(client, base: str, chars: int) -> tuple[float, float]:
    """(seconds to the first character, seconds to [DONE])."""
    start, first = time.perf_counter(), None
    body = {"model": "tinyllm", "prompt": PROMPT, "max_tokens": chars, "seed": SEED, "temperature": TEMPERATURE,
            "stream": True}
    with client.stream("POST", base + "/v1/completions", json=body, timeout=300) as response:
        for line in response.iter_lines():
            if first is None and line.startswith("data: {") and '"text": ""' not in line:
                first = time.perf_counter() - start
    return first, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    backend = OnnxBackend(str(ROOT / "build" / "model" / "tinyllm.onnx"))
    local = best(args.repeats, lambda: generate(backend, backend.tokenizer, PROMPT, args.chars, TEMPERATURE, seed=SEED))
    server = ModelServer("--models", "tinyllm").wait_until_up()
    try:
        body = {"model": "tinyllm", "prompt": PROMPT, "max_tokens": args.chars, "seed": SEED, "temperature": TEMPERATURE}
        client = httpx.Client(timeout=300)          # one client, one connection: as an agent keeps one
        client.post(server.base + "/v1/completions", json={**body, "max_tokens": 5})       # warm up
        trip = best(args.repeats, lambda: client.get(server.base + "/v1/models"))
        served = best(args.repeats, lambda: client.post(server.base + "/v1/completions", json=body))
        runs = [streamed(client, server.base, args.chars) for _ in range(args.repeats)]
    finally:
        server.stop()
    first, whole = min(r[0] for r in runs), min(r[1] for r in runs)
    print(f"TinyLLM, {args.chars} characters, best of {args.repeats} (onnxruntime, 1 thread):")
    print(f"  in process        {local * 1000:8.0f} ms   {args.chars / local:8.0f} chars/s")
    ratio = (served - trip) / local
    print(f"  round trip        {trip * 1000:8.1f} ms   (GET /v1/models)")
    print(f"  served (HTTP)     {served * 1000:8.0f} ms   {args.chars / served:8.0f} chars/s   "
          f"(served - round trip) is {ratio:4.2f}x in process (goal <= 1.5x: {'met' if ratio <= 1.5 else 'NOT met'})")
    print(f"  streamed          {whole * 1000:8.0f} ms   first character after {first * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
