"""Benchmark · training the seed's TinyLLM with our numpy trainer versus a PyTorch reference.

Run by `make bench` (not a test). Both trainers get the `seed` preset (Embedding 64 -> 2-layer
LSTM 128 -> Linear, batch 48, AdamW lr 0.0035 and weight decay 0.01, global-norm clipping at 1,
loss on the last position only, 25 epochs), the same story, the same windows and the same batch
order, on one thread each (OPENBLAS_NUM_THREADS=1, torch.set_num_threads(1)).

numpy's matrix products come from OpenBLAS, which picks its kernels for the CPU unless the
environment pins them (OPENBLAS_CORETYPE; the machines this was written on pin "Haswell", AVX2,
although their CPUs have AVX-512). torch brings its own kernels. `--openblas-coretype SkylakeX`
lets the numpy worker use OpenBLAS's AVX-512 kernels; the script prints the kernel in effect.

How memory is measured: each trainer runs in its own fresh subprocess. After its imports and
the dataset are loaded it records its resident set size (VmRSS) and resets the kernel's peak
counter (`echo 5 > /proc/self/clear_refs`); after training it reads the peak (VmHWM). Training
memory = peak - RSS after imports, so neither numpy's nor torch's import weight is counted.

torch is optional and never a dependency: without it the script says so and runs numpy alone.

    $ python bench/train_bench.py [--epochs N] [--openblas-coretype SkylakeX]

Measured here (2-core shared VM, AMD EPYC, numpy 2.4 + OpenBLAS 0.3.31, torch 2.13.0+cpu,
25 epochs, 2,250 steps):

    kernel    numpy wall / CPU   torch wall / CPU   memory numpy / torch   final loss numpy / torch
    Haswell   75.4 s / 63.9 s    38.8 s / 37.0 s    31.2 / 139.0 MiB       0.414 / 0.497
    SkylakeX  43.9 s / 43.7 s    43.3 s / 43.2 s    30.8 / 132.7 MiB       0.446 / 0.497

Memory meets its goal (0.22-0.23x). Wall time does not (1.0x at best against the 0.7x goal):
a step is about 1 GMAC of matrix products (forward 0.33, backward 0.66), and those, not Python,
set the floor; PyTorch's fused LSTM kernels reach the same floor. The final losses differ by
10-17%, numpy's being the lower.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOALS = {"wall time": 0.7, "peak memory": 0.5}      # numpy / torch must be at most this
LOSS_TOLERANCE = 0.10                              # final losses within 10% of each other


# ---- measuring a process -----------------------------------------------------------------------

def status_kib(field: str) -> int:
    """A memory field of /proc/self/status (VmRSS, VmHWM), in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


# ---- the two trainers (each runs inside its own worker process) --------------------------------

def numpy_trainer(config, x, y, order):
    from export.train import train
    _, history = train(config, x, y, progress=False)
    return history["loss"][-1]


def torch_trainer(config, x, y, order):
    import torch
    from torch import nn
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)

    class TinyLLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(config.vocab_size, config.embed)
            self.lstm = nn.LSTM(config.embed, config.hidden, num_layers=config.layers, batch_first=True)
            self.head = nn.Linear(config.hidden, config.vocab_size)

        def forward(self, ids):                   # (B, T) -> logits of the last position (B, V)
            out, _ = self.lstm(self.embed(ids))
            return self.head(out[:, -1])

    model = TinyLLM()
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y[:, -1].copy())
    for epoch_order in order:
        losses = []
        for first in range(0, len(x), config.batch):
            batch = torch.from_numpy(epoch_order[first:first + config.batch])
            loss = nn.functional.cross_entropy(model(xs[batch]), ys[batch])
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), config.clip)
            optimiser.step()
            losses.append(loss.item())
    return sum(losses) / len(losses)


def worker(name: str, epochs: int) -> None:
    """Train once with trainer `name` and print one JSON line of measurements."""
    import numpy as np
    if name == "torch":
        import torch  # noqa: F401  (imported before the baseline, so it is not counted)
    sys.path.insert(0, str(ROOT))
    from export.data import load_dataset
    from export.model import preset
    tok, x, y = load_dataset()
    config = preset("seed", vocab_size=len(tok), epochs=epochs)
    order_rng = np.random.default_rng([config.seed, 1])   # the order export/train.py draws
    order = [order_rng.permutation(len(x)) for _ in range(epochs)]
    baseline = status_kib("VmRSS")
    reset = reset_peak()
    start, cpu_start = time.perf_counter(), time.process_time()
    final_loss = {"numpy": numpy_trainer, "torch": torch_trainer}[name](config, x, y, order)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    peak = status_kib("VmHWM")
    print(json.dumps({"trainer": name, "seconds": seconds, "cpu_seconds": cpu_seconds, "final_loss": final_loss,
                      "train_mib": (peak - baseline) / 1024, "peak_reset": reset}))


# ---- the comparison ----------------------------------------------------------------------------

def measure(name: str, epochs: int, coretype: str | None) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    result = subprocess.run([sys.executable, __file__, "--worker", name, "--epochs", str(epochs)],
                            env=env, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"train_bench: the {name} trainer failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description="numpy vs PyTorch training of the seed preset")
    parser.add_argument("--epochs", type=int, default=25, help="epochs for both trainers (default 25)")
    parser.add_argument("--openblas-coretype", metavar="NAME",
                        help="OpenBLAS kernel for numpy, e.g. SkylakeX (default: the environment's)")
    parser.add_argument("--worker", choices=["numpy", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.epochs < 1:
        parser.error(f"--epochs must be at least 1, got {args.epochs}")
    if args.worker:
        return worker(args.worker, args.epochs)

    has_torch = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0
    names = ["numpy", "torch"] if has_torch else ["numpy"]
    if not has_torch:
        print("torch is not installed: skipping the PyTorch half (pip install torch==2.13.0 to compare)")
    kernel = args.openblas_coretype or os.environ.get("OPENBLAS_CORETYPE") or "chosen by OpenBLAS"
    print(f"training the seed preset for {args.epochs} epochs, one thread each "
          f"(OpenBLAS kernel: {kernel}) ...", flush=True)
    rows = {name: measure(name, args.epochs, args.openblas_coretype) for name in names}
    print(f"\n{'trainer':8s} {'wall time':>10s} {'CPU time':>9s} {'train memory':>13s} {'final loss':>11s}")
    for name, r in rows.items():
        print(f"{name:8s} {r['seconds']:9.1f}s {r['cpu_seconds']:8.1f}s {r['train_mib']:10.1f}MiB "
              f"{r['final_loss']:11.4f}")
    if not has_torch:
        return
    n, t = rows["numpy"], rows["torch"]
    ratios = {"wall time": n["seconds"] / t["seconds"], "peak memory": n["train_mib"] / max(t["train_mib"], 1e-9)}
    print(f"\n(CPU time ratio {n['cpu_seconds'] / t['cpu_seconds']:.2f}x: on a busy machine wall time "
          "includes waiting for a core, CPU time does not)")
    for what, ratio in ratios.items():
        verdict = "meets" if ratio <= GOALS[what] else "MISSES"
        print(f"numpy / torch {what:12s} {ratio:5.2f}x   ({verdict} the goal <= {GOALS[what]}x)")
    gap = (n["final_loss"] - t["final_loss"]) / t["final_loss"]
    verdict = "meets" if abs(gap) <= LOSS_TOLERANCE else "MISSES"
    side = "lower" if gap < 0 else "higher"
    print(f"numpy's final loss is {abs(gap):.1%} {side} than torch's "
          f"({verdict} the goal: within {LOSS_TOLERANCE:.0%})")


if __name__ == "__main__":
    main()
