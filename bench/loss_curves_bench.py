"""Benchmark: train and validation loss curves of TinyLLM and TinyGPT on the same split of the story.

Not a test (it trains, minutes on two cores). Both models are trained from their sources, with
their default settings, on the first 90% of the story's windows; the last 10% (the end of the
story, never trained on) is the validation set, the same split `bench/tinygpt_bench.py --train`
scores. While training, it records two curves per model:

  - train: the mean loss of the batches the model updated on during each stretch (an epoch of
    TinyLLM, 100 updates of TinyGPT), as the training cards record it: the model changes during
    the stretch, so this is a running figure, not a re-scoring;
  - validation: the loss of the model at the end of each stretch on every held-out window.

    python bench/loss_curves_bench.py --model tinyllm      # writes bench/results/loss-tinyllm.json
    python bench/loss_curves_bench.py --model tinygpt      # (the two can run side by side)
    python bench/loss_curves_bench.py --render             # both JSON -> bench/results/loss-curves.md
    python bench/loss_curves_bench.py --model all --render # all of it, one model after the other (`make bench`)

The rendered Markdown (an inline SVG chart and the same numbers as a table) is what
site/tinyllm/versus.md includes; the build never trains.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

RESULTS = Path(__file__).parent / "results"
WINDOWS = {"tinyllm": 30, "tinygpt": 64}


def split(window: int):
    """The story's windows cut at 90%: no training window reaches into the held-out part."""
    from export.data import load_dataset
    tok, x, y = load_dataset(window=window)
    cut = int(len(x) * 0.9)
    return tok, (x[:cut - window], y[:cut - window]), (x[cut:], y[cut:])


def lstm_loss(params, cfg, x, y, batch: int = 256) -> float:
    """TinyLLM's mean loss over every position of windows x, y (no gradients)."""
    from export import model
    total = 0.0
    for first in range(0, len(x), batch):
        logits, _, _ = model.forward(params, cfg, x[first:first + batch])
        loss, _ = model.cross_entropy(logits.reshape(-1, cfg.vocab_size), y[first:first + batch].reshape(-1))
        total += loss * y[first:first + batch].size
    return total / y.size


def tinyllm_curves() -> dict:
    """TinyLLM's own loop (export/train.py, same seeds and order), scored on held-out windows each epoch."""
    import numpy as np
    from export import model, train
    tok, (xt, yt), (xv, yv) = split(WINDOWS["tinyllm"])
    cfg = model.preset("default", vocab_size=len(tok))
    params = model.init_params(cfg)
    train.keep_freed_memory()
    optimiser = train.AdamW(params, cfg.lr, cfg.weight_decay)
    order_rng = np.random.default_rng([cfg.seed, 1])
    points, updates, start = [], 0, time.perf_counter()
    for epoch in range(1, cfg.epochs + 1):
        order, losses = order_rng.permutation(len(xt)), []
        for first in range(0, len(xt), cfg.batch):
            batch = order[first:first + cfg.batch]
            loss, grads = model.loss_and_grads(params, cfg, xt[batch], yt[batch])
            train.clip_global_norm(grads, cfg.clip)
            optimiser.step(params, grads)
            losses.append(loss)
        updates += len(losses)
        points.append({"updates": updates, "train": round(float(np.mean(losses)), 4),
                       "validation": round(float(lstm_loss(params, cfg, xv, yv)), 4)})
        print(f"TinyLLM epoch {epoch}: {points[-1]}", flush=True)
    return {"model": "TinyLLM", "stretch": "epoch", "points": points,
            "train_windows": len(xt), "validation_windows": len(xv),
            "seconds": round(time.perf_counter() - start, 1)}


def tinygpt_curves() -> dict:
    """TinyGPT's own loop (export/gpt_train.py), which scores held-out windows every 100 updates."""
    from export import gpt, gpt_train
    tok, (xt, yt), (xv, yv) = split(WINDOWS["tinygpt"])
    cfg = gpt.gpt_preset("default", vocab_size=len(tok))
    _, history = gpt_train.train(cfg, xt, yt, xv, yv, progress=True)
    every = gpt_train.REPORT_EVERY
    steps = [min(every * (i + 1), cfg.steps) for i in range(len(history["loss"]))]
    points = [{"updates": s, "train": round(float(t), 4), "validation": round(float(v), 4)}
              for s, t, v in zip(steps, history["loss"], history["val_loss"])]
    return {"model": "TinyGPT", "stretch": f"{every} updates", "points": points,
            "train_windows": len(xt), "validation_windows": len(xv), "seconds": round(history["seconds"], 1)}


def measure(name: str) -> Path:
    result = tinyllm_curves() if name == "tinyllm" else tinygpt_curves()
    result["date"] = datetime.date.today().isoformat()
    result["machine"] = (f"{os.cpu_count()}-core {platform.machine()} VM, "
                         f"{platform.python_implementation()} {platform.python_version()}")
    out = RESULTS / f"loss-{name}.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return out


# ---- the chart and its table ------------------------------------------------------------------

COLOURS = {"TinyLLM": "#2f7ed8", "TinyGPT": "#e8710a"}     # readable on the light and the dark palette
DASHES = {"train": "", "validation": "7 5"}
W, H, LEFT, RIGHT, TOP, BOTTOM = 640, 370, 46, 24, 12, 84    # the legend sits under the axes


def _ticks(top: float, step: float) -> list[float]:
    return [round(i * step, 2) for i in range(int(top / step) + 1)]


def svg_chart(runs: list[dict]) -> str:
    """Both models' train (solid) and validation (dashed) loss against updates, on one pair of axes."""
    most = max(p["updates"] for r in runs for p in r["points"])
    high = max(max(p["train"], p["validation"]) for r in runs for p in r["points"])
    top = (int(high * 2) + 1) / 2
    x = lambda u: LEFT + (W - LEFT - RIGHT) * u / most            # noqa: E731
    y = lambda v: TOP + (H - TOP - BOTTOM) * (1 - v / top)         # noqa: E731
    parts = [f'<svg class="lllm-loss-chart" viewBox="0 0 {W} {H}" role="img" aria-labelledby="loss-chart-title loss-chart-desc" '
             f'style="width:100%;max-width:{W}px;height:auto" font-size="14" fill="currentColor">',
             '<title id="loss-chart-title">Train and validation loss of TinyLLM and TinyGPT against updates</title>',
             '<desc id="loss-chart-desc">' + " ".join(
                 f"{r['model']}: train loss from {r['points'][0]['train']} to {r['points'][-1]['train']}, validation loss "
                 f"lowest {min(p['validation'] for p in r['points'])} and {r['points'][-1]['validation']} at the end."
                 for r in runs) + " The table below gives every point.</desc>"]
    for v in _ticks(top, 0.5):
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="currentColor" stroke-opacity="0.15"/>'
                     f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    for u in _ticks(most, 500):
        parts.append(f'<text x="{x(u):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{u:g}</text>')
    parts.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - BOTTOM + 33}" text-anchor="middle">updates (batches trained on)</text>'
                 f'<text x="12" y="{(TOP + H - BOTTOM) / 2}" text-anchor="middle" transform="rotate(-90 12 {(TOP + H - BOTTOM) / 2})">loss</text>')
    for r in runs:
        for curve, dash in DASHES.items():
            points = " ".join(f"{x(p['updates']):.1f},{y(p[curve]):.1f}" for p in r["points"])
            dashed = f' stroke-dasharray="{dash}"' if dash else ""
            parts.append(f'<polyline points="{points}" fill="none" stroke="{COLOURS[r["model"]]}" stroke-width="2.2"{dashed}/>')
    for i, (r, curve) in enumerate((r, c) for r in runs for c in DASHES):
        lx, ly = LEFT + 40 + 280 * (i % 2), H - BOTTOM + 58 + 20 * (i // 2)
        dashed = f' stroke-dasharray="{DASHES[curve]}"' if DASHES[curve] else ""
        parts.append(f'<line x1="{lx}" x2="{lx + 34}" y1="{ly - 4}" y2="{ly - 4}" stroke="{COLOURS[r["model"]]}" stroke-width="2.2"{dashed}/>'
                     f'<text x="{lx + 42}" y="{ly}">{r["model"]} {curve}</text>')
    return "".join(parts) + "</svg>"


def table(run: dict) -> str:
    rows = "".join(f'<tr><td>{p["updates"]}</td><td>{p["train"]:.4f}</td><td>{p["validation"]:.4f}</td></tr>' for p in run["points"])
    return (f'<table><caption>{run["model"]}: one row per {run["stretch"]}</caption><thead><tr><th scope="col">updates</th>'
            f'<th scope="col">train loss</th><th scope="col">validation loss</th></tr></thead><tbody>{rows}</tbody></table>')


def render(runs: list[dict]) -> str:
    """The Markdown site/tinyllm/versus.md includes: when and where, the chart, a summary, the tables."""
    first = runs[0]
    trained = " and ".join(f"{r['train_windows']:,d} windows for {r['model']}" for r in runs)
    held = " and ".join(f"{r['validation_windows']} windows" for r in runs)
    lines = [f"Measured {first['date']} on a {first['machine']}: each model trained once from its source on "
             f"the first 90% of the story ({trained}), and scored on the held-out last 10% ({held}).", "",
             '<figure class="lllm-loss-figure">', svg_chart(runs), "</figure>", ""]
    for r in runs:
        best = min(r["points"], key=lambda p: p["validation"])
        lines.append(f"- **{r['model']}**: train loss {r['points'][0]['train']} → {r['points'][-1]['train']}; "
                     f"validation loss lowest at {best['validation']} after {best['updates']} updates, "
                     f"{r['points'][-1]['validation']} at the end ({r['seconds']:.0f} s with the scoring, on the shared machine).")
    lines += ["", "<details><summary>Every point of the chart, as tables</summary>", ""]
    lines += [table(r) for r in runs] + ["", "</details>", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(WINDOWS) + ["all"], help="train this model (or both, one after the other)")
    parser.add_argument("--render", action="store_true", help="write bench/results/loss-curves.md from both JSON files")
    args = parser.parse_args()
    for name in sorted(WINDOWS) if args.model == "all" else [args.model] if args.model else []:
        print(f"wrote {measure(name)}")
    if args.render:
        out = RESULTS / "loss-curves.md"
        out.write_text(render([json.loads((RESULTS / f"loss-{n}.json").read_text()) for n in WINDOWS]), encoding="utf-8")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
