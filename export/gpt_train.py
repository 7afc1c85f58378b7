"""Layer 1 · training TinyGPT: TinyLLM's AdamW and clipping, a warm-up and a cosine schedule.

Consumes: nothing from the package (numpy, and `export/train.py`'s optimiser).

Contract: `train(config, x, y, x_val=None, y_val=None) -> (params, history)`; `history` holds the
mean training loss of every 100 steps (`"loss"`), of every step (`"step_loss"`), the validation loss
every 100 steps when a validation split is given (`"val_loss"`) and the wall time (`"seconds"`). The
same `config.seed` gives bit-identical weights on the same machine with `OPENBLAS_NUM_THREADS=1`.

Read `gpt.py` and `train.py` first. Why a schedule where TinyLLM has none: attention's softmax
saturates easily at the start (a large step makes one key win everywhere), so the step size grows
linearly over `warmup` steps, then decays along a cosine to a tenth of its peak.

Usage:

    >>> from export.data import load_dataset
    >>> tok, x, y = load_dataset(window=8)
    >>> cfg = GPTConfig(vocab_size=len(tok), embed=16, heads=2, layers=1, block=8, refill=6,
    ...                 batch=16, steps=30, warmup=5, seed=1)
    >>> params, history = train(cfg, x[:512], y[:512], progress=False)
    >>> len(history["step_loss"]), history["step_loss"][-1] < history["step_loss"][0]
    (30, True)
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from export.gpt import GPTConfig, forward, init_params, loss_and_grads
from export.model import cross_entropy
from export.train import AdamW, clip_global_norm, keep_freed_memory

__all__ = ["learning_rate", "evaluate", "train"]

REPORT_EVERY = 100      # steps per point of the loss curves


# ---- the schedule ------------------------------------------------------------------------------

def learning_rate(config: GPTConfig, step: int) -> float:
    """Step `step` (1-based): linear warm-up, then cosine decay from lr to lr / 10."""
    if step <= config.warmup:
        return config.lr * step / config.warmup
    done = (step - config.warmup) / max(1, config.steps - config.warmup)
    return config.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * done)))


# ---- the loss on held-out windows --------------------------------------------------------------

def evaluate(params, config: GPTConfig, x, y, batch: int = 256) -> float:
    """Mean loss over every position of windows x, y (no gradients)."""
    total, count = 0.0, 0
    for first in range(0, len(x), batch):
        xb, yb = x[first:first + batch], y[first:first + batch]
        logits, _, _, _ = forward(params, config, xb)
        loss, _ = cross_entropy(logits.reshape(-1, config.vocab_size), yb.reshape(-1))
        total, count = total + loss * yb.size, count + yb.size
    return total / count


# ---- the training loop -------------------------------------------------------------------------

# --8<-- [start:train-loop]
def train(config: GPTConfig, x, y, x_val=None, y_val=None, progress=True):
    """`config.steps` updates on shuffled batches of windows x, y (N, block); every window is used
    once per pass, and a new pass reshuffles."""
    params = init_params(config)
    keep_freed_memory()
    optimiser = AdamW(params, config.lr, config.weight_decay)
    order_rng = np.random.default_rng([config.seed, 1])     # batch order, separate from the init
    history = {"loss": [], "step_loss": [], "val_loss": [], "seconds": 0.0}
    start = time.perf_counter()
    order, first = order_rng.permutation(len(x)), 0
    for step in range(1, config.steps + 1):
        if first + config.batch > len(x):                   # a new pass over the windows
            order, first = order_rng.permutation(len(x)), 0
        batch = order[first:first + config.batch]
        first += config.batch
        loss, grads = loss_and_grads(params, config, x[batch], y[batch])
        clip_global_norm(grads, config.clip)
        optimiser.lr = learning_rate(config, step)
        optimiser.step(params, grads)
        history["step_loss"].append(loss)
        if step % REPORT_EVERY == 0 or step == config.steps:
            history["loss"].append(float(np.mean(history["step_loss"][-REPORT_EVERY:])))
            if x_val is not None:
                history["val_loss"].append(evaluate(params, config, x_val, y_val))
            history["seconds"] = time.perf_counter() - start
            if progress:
                show_progress(step, config.steps, history)
    history["seconds"] = time.perf_counter() - start
    return params, history
# --8<-- [end:train-loop]


def show_progress(step, steps, history):
    elapsed = history["seconds"]
    val = f"  val {history['val_loss'][-1]:.4f}" if history["val_loss"] else ""
    print(f"step {step:5d}/{steps}  loss {history['loss'][-1]:.4f}{val}  {elapsed:5.1f}s elapsed  "
          f"~{elapsed / step * (steps - step):4.0f}s left", file=sys.stderr, flush=True)


if __name__ == "__main__":
    from export.data import load_dataset
    from export.gpt import gpt_preset
    tok, x, y = load_dataset(window=64)
    cfg = gpt_preset("default", vocab_size=len(tok), steps=200)
    params, history = train(cfg, x, y)
    print(f"200 steps: loss {history['loss'][0]:.3f} -> {history['loss'][-1]:.3f}")
