"""Benchmark: recurrence and attention, measured. TinyLLM (LSTM) against TinyGPT (transformer) in one run.

Not a test: it prints what it measured, with the date and the machine, as a Markdown table that
site/tinyllm/versus.md quotes. Both models are measured back to back in this one process, so the
ratios mean more than the absolute times (the machines here are shared and noisy).

    python bench/tinygpt_bench.py [--chars 300] [--repeats 3] [--train] [--out bench/results/tinygpt.md]

What it measures:
  - parameters and bytes to download (the .onnx raw and gzip-compressed, as a server sends it);
  - time per character in CPython (onnxruntime, one thread; each model carries its state: TinyLLM
    (h, c), TinyGPT its key/value cache), best of --repeats, and TinyGPT's ratio to TinyLLM;
  - TinyGPT with its cache against re-reading its 64-character context for every character;
  - a sample from each at the same temperature and seed;
  - with --train: both trained again from their sources on the first 90% of the story and scored
    on the last 10% they never saw (train and validation loss; several minutes).
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from lllm.model.generate import generate  # noqa: E402
from lllm.model.gpt_backend import DEFAULT_GPT, GPTBackend  # noqa: E402
from lllm.model.onnx_backend import DEFAULT_MODEL, OnnxBackend  # noqa: E402

PROMPT = "Once upon a time"


def seconds_per_char(backend, chars: int, repeats: int, mode: str = "carry", window: int = 64) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        out = generate(backend, backend.tokenizer, PROMPT, chars, temperature=0.8, seed=1, mode=mode, window=window)
        best = min(best, time.perf_counter() - start)
        assert len(out.completion) == chars
    return best / chars


def download_bytes(path: str) -> tuple[int, int]:
    data = Path(path).read_bytes()
    return len(data), len(gzip.compress(data, compresslevel=9, mtime=0))


def lstm_loss(model, params, cfg, x, y, batch: int = 256) -> float:
    """TinyLLM's mean loss over every position of windows x, y, a batch at a time."""
    total = 0.0
    for first in range(0, len(x), batch):
        logits, _, _ = model.forward(params, cfg, x[first:first + batch])
        loss, _ = model.cross_entropy(logits.reshape(-1, cfg.vocab_size), y[first:first + batch].reshape(-1))
        total += loss * y[first:first + batch].size
    return total / y.size


def held_out_losses() -> dict:
    """Both models trained from their sources on the first 90% of the story's windows, scored on the rest."""
    from export import gpt, gpt_train, model, train
    from export.data import load_dataset
    out = {}
    for name, window in (("TinyLLM", 30), ("TinyGPT", 64)):
        tok, x, y = load_dataset(window=window)
        cut = int(len(x) * 0.9)
        xt, yt, xv, yv = x[:cut - window], y[:cut - window], x[cut:], y[cut:]   # no window spans both parts
        start = time.perf_counter()
        if name == "TinyLLM":
            cfg = model.preset("default", vocab_size=len(tok))
            params, history = train.train(cfg, xt, yt, progress=False)
            losses = [lstm_loss(model, params, cfg, xs, ys) for xs, ys in ((xt, yt), (xv, yv))]
        else:
            cfg = gpt.gpt_preset("default", vocab_size=len(tok))
            params, history = gpt_train.train(cfg, xt, yt, progress=False)
            losses = [gpt_train.evaluate(params, cfg, xt, yt), gpt_train.evaluate(params, cfg, xv, yv)]
        out[name] = {"train_loss": round(float(losses[0]), 4), "val_loss": round(float(losses[1]), 4),
                     "seconds": round(time.perf_counter() - start, 1), "windows": [len(xt), len(xv)]}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lstm", default=DEFAULT_MODEL)
    parser.add_argument("--gpt", default=DEFAULT_GPT)
    parser.add_argument("--chars", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--train", action="store_true", help="also train both on 90%% of the story (minutes)")
    parser.add_argument("--out", help="write the Markdown table here too")
    args = parser.parse_args()
    lstm, gpt = OnnxBackend(args.lstm), GPTBackend(args.gpt)
    rows = {}
    for name, backend, path in (("TinyLLM", lstm, args.lstm), ("TinyGPT", gpt, args.gpt)):
        raw, packed = download_bytes(path)
        rows[name] = {"parameters": backend.card["parameters"], "onnx_bytes": raw, "gzip_bytes": packed,
                      "ms_per_char": 1000 * seconds_per_char(backend, args.chars, args.repeats),
                      "sample": generate(backend, backend.tokenizer, "Once", 160, temperature=0.8, seed=1).completion}
    no_cache = 1000 * seconds_per_char(gpt, args.chars, args.repeats, mode="window", window=gpt.block)
    when = datetime.date.today().isoformat()
    machine = f"{os.cpu_count()}-core {platform.machine()} VM, {platform.python_implementation()} {platform.python_version()}"
    lines = [f"Measured {when} on a {machine}, onnxruntime on one thread, {args.chars} characters, best of {args.repeats}.", "",
             "| measured | TinyLLM | TinyGPT |", "|---|---|---|",
             f"| parameters | {rows['TinyLLM']['parameters']:,d} | {rows['TinyGPT']['parameters']:,d} |",
             f"| .onnx to download | {rows['TinyLLM']['onnx_bytes'] / 1024:.0f} KiB ({rows['TinyLLM']['gzip_bytes'] / 1024:.0f} KiB gzip) "
             f"| {rows['TinyGPT']['onnx_bytes'] / 1024:.0f} KiB ({rows['TinyGPT']['gzip_bytes'] / 1024:.0f} KiB gzip) |",
             f"| time per character (CPython) | {rows['TinyLLM']['ms_per_char']:.3f} ms | {rows['TinyGPT']['ms_per_char']:.3f} ms "
             f"({rows['TinyGPT']['ms_per_char'] / rows['TinyLLM']['ms_per_char']:.1f}x TinyLLM) |",
             f"| TinyGPT without its cache (re-reading 64 characters each time) | | {no_cache:.3f} ms "
             f"({no_cache / rows['TinyGPT']['ms_per_char']:.1f}x with the cache) |"]
    if args.train:
        losses = held_out_losses()
        lines += [f"| loss on the 90% trained on | {losses['TinyLLM']['train_loss']} | {losses['TinyGPT']['train_loss']} |",
                  f"| loss on the 10% held out | {losses['TinyLLM']['val_loss']} | {losses['TinyGPT']['val_loss']} |",
                  f"| training time | {losses['TinyLLM']['seconds']:.0f} s | {losses['TinyGPT']['seconds']:.0f} s |"]
    lines += ["", "Samples after \"Once\", temperature 0.8, seed 1:", ""]
    lines += [f"- {name}: `{'Once' + row['sample']!r}`" for name, row in rows.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    print(json.dumps({name: {k: v for k, v in row.items() if k != "sample"} for name, row in rows.items()}))
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
