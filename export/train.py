"""Layer 1 · training TinyLLM: AdamW, global-norm clipping, and the epoch loop.

Consumes: nothing from the package (numpy only).

Contract: `train(config, x, y) -> (params, history)`; `history` holds the mean loss of every
epoch (`"loss"`), of every batch (`"batch_loss"`) and the wall time (`"seconds"`). The same
`config.seed` gives bit-identical weights on the same machine when numpy uses one BLAS thread
(`OPENBLAS_NUM_THREADS=1`; the thread count changes the order of float additions).

Read `model.py` first. Progress goes to stderr as one line per epoch: epoch, loss, time left.

Usage:

    >>> from export.data import load_dataset
    >>> tok, x, y = load_dataset(window=8)
    >>> cfg = Config(vocab_size=len(tok), embed=8, hidden=16, window=8, batch=32, epochs=1, seed=1)
    >>> params, history = train(cfg, x[:256], y[:256], progress=False)
    >>> len(history["loss"]), len(history["batch_loss"])
    (1, 8)
    >>> history["batch_loss"][-1] < history["batch_loss"][0]
    True
"""

from __future__ import annotations

import ctypes
import math
import sys
import time

import numpy as np

from export.model import Config, init_params, loss_and_grads

__all__ = ["AdamW", "clip_global_norm", "keep_freed_memory", "train"]


# ---- the optimiser -----------------------------------------------------------------------------

# --8<-- [start:adamw]
class AdamW:
    """Adam with decoupled weight decay (Loshchilov & Hutter), as torch.optim.AdamW computes it."""

    def __init__(self, params, lr, weight_decay=0.01, betas=(0.9, 0.999), eps=1e-8):
        self.lr, self.weight_decay, self.eps = lr, weight_decay, eps
        self.beta1, self.beta2 = betas
        self.m = {k: np.zeros_like(p) for k, p in params.items()}   # running mean of gradients
        self.v = {k: np.zeros_like(p) for k, p in params.items()}   # running mean of their squares
        self.t = 0

    def step(self, params, grads):
        """Update `params` in place."""
        self.t += 1
        correct1 = 1.0 - self.beta1 ** self.t          # early averages lean towards 0: undo that
        correct2 = 1.0 - self.beta2 ** self.t
        for k, p in params.items():
            g, m, v = grads[k], self.m[k], self.v[k]
            p *= 1.0 - self.lr * self.weight_decay     # decay the weight itself, not the gradient
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= (self.lr / correct1) * m / (np.sqrt(v / correct2) + self.eps)
# --8<-- [end:adamw]


# ---- gradient clipping -------------------------------------------------------------------------

# --8<-- [start:clip]
def clip_global_norm(grads, max_norm):
    """Scale all gradients together so their joint L2 norm is at most `max_norm`; return the norm.

    One long sequence can produce a huge gradient (BPTT multiplies through 30 steps); scaling the
    whole update keeps its direction and bounds its size.
    """
    norm = math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
    scale = max_norm / (norm + 1e-6)
    if scale < 1.0:
        for g in grads.values():
            g *= scale
    return norm
# --8<-- [end:clip]


# ---- memory reuse ------------------------------------------------------------------------------

def keep_freed_memory() -> bool:
    """Ask glibc to keep freed blocks for reuse instead of returning them to the kernel.

    A training step allocates temporaries of up to a few MB. By default glibc serves blocks that
    large straight from the kernel (mmap) and hands them back when freed, so every step pays a
    page fault for each fresh 4 KB page - about 30% of the step time measured here. Returns
    False where there is no glibc (macOS, Windows, musl); training is then just slower.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3           # mallopt parameter numbers (malloc.h)
    return bool(libc.mallopt(M_MMAP_THRESHOLD, 32 << 20) and libc.mallopt(M_TRIM_THRESHOLD, 256 << 20))


# ---- the training loop -------------------------------------------------------------------------

# --8<-- [start:train-loop]
def train(config: Config, x, y, params=None, progress=True):
    """Train on windows x, y (N, T) for `config.epochs` passes in shuffled batches."""
    params = init_params(config) if params is None else params
    keep_freed_memory()
    optimiser = AdamW(params, config.lr, config.weight_decay)
    order_rng = np.random.default_rng([config.seed, 1])     # batch order, separate from the init
    history = {"loss": [], "batch_loss": [], "seconds": 0.0}
    start = time.perf_counter()
    for epoch in range(1, config.epochs + 1):
        order = order_rng.permutation(len(x))
        losses = []
        for first in range(0, len(x), config.batch):
            batch = order[first:first + config.batch]
            loss, grads = loss_and_grads(params, config, x[batch], y[batch])
            clip_global_norm(grads, config.clip)
            optimiser.step(params, grads)
            losses.append(loss)
        history["loss"].append(float(np.mean(losses)))
        history["batch_loss"].extend(losses)
        history["seconds"] = time.perf_counter() - start
        if progress:
            show_progress(epoch, config.epochs, history)
    return params, history
# --8<-- [end:train-loop]


def show_progress(epoch, epochs, history):
    elapsed = history["seconds"]
    left = elapsed / epoch * (epochs - epoch)
    print(f"epoch {epoch:3d}/{epochs}  loss {history['loss'][-1]:.4f}  "
          f"{elapsed:5.1f}s elapsed  ~{left:4.0f}s left", file=sys.stderr, flush=True)


if __name__ == "__main__":
    from export.data import load_dataset
    tok, x, y = load_dataset()
    cfg = Config(vocab_size=len(tok), epochs=2)
    params, history = train(cfg, x, y)
    print(f"2 epochs: loss {history['loss'][0]:.3f} -> {history['loss'][-1]:.3f}")
