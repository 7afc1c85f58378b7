"""Benchmark: one TinyLLM training step in the page (/tinyllm/train/, WebAssembly SIMD kernels, or plain
JavaScript where SIMD is missing, in a Web Worker) against numpy in CPython, on the same configuration (the page's default: embedding 16, 64 hidden units,
16 windows of 24 characters).

Not a test: it prints numbers and ratios measured in this one run, with the date and the machine (the
machine is shared and noisy: compare numbers measured back to back, not across runs).

    python bench/train_tab_bench.py [--steps 60] [--site DIR]

Each engine trains `--steps` steps with the page's own buttons and reports each step's time from the
worker (forward, loss, backward and update; the first five steps, while the JIT warms up, are left
out); numpy runs export.model.loss_and_grads, export.train.clip_global_norm and AdamW.step on the
same batches of the same story (one BLAS thread), timed just before and after each engine (the
faster of the two: the machine's load changes). Node runs the page's modules outside a browser, once
on the fast path and once on the plain JavaScript. Each row names the arithmetic its engine ran
(wasm-relaxed: SIMD with fused multiply-adds, wasm: SIMD, js: plain JavaScript).
Reported: the median milliseconds per step, and each as a multiple of numpy's.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import numpy as np  # noqa: E402

from export.data import load_dataset  # noqa: E402
from export.model import Config, loss_and_grads  # noqa: E402
from export.train import AdamW, clip_global_norm  # noqa: E402
from support import engines  # noqa: E402
from support.runtime import build_site, free_port, launch, serve  # noqa: E402

PAGE = "tinyllm/train/"
SKIP = 5   # warm-up steps left out of every median
PAGE_FUNCTION = """async ({ steps }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  while (!document.querySelector(".lllm-train button")) await sleep(100);
  const root = document.querySelector(".lllm-train");
  root.querySelector("[name=steps]").value = String(steps);
  root.querySelector("button.md-button--primary").click();
  while (!["done", "error"].includes(root.dataset.state)) await sleep(200);
  return { state: root.dataset.state, ms: root.lllmTrain.ms, config: root.lllmTrain.config, kernels: root.lllmTrain.kernels };
}"""


def numpy_ms(js: dict) -> list[float]:
    """numpy's time per step from the page's initial weights, on the page's batches."""
    c = js["config"]
    config = Config(**{k: c[k] for k in ("vocab_size", "embed", "hidden", "layers", "window", "batch", "lr",
                                         "weight_decay", "clip", "forget_bias", "loss", "seed")})
    V, E, H = c["vocab_size"], c["embed"], c["hidden"]
    shapes = {"embed": (V, E), "W_x0": (E, 4 * H), "W_h0": (H, 4 * H), "b0": (4 * H,), "W_out": (H, V), "b_out": (V,)}
    params = {k: np.frombuffer(base64.b64decode(js["init"][k]), "<f4").reshape(shape).copy() for k, shape in shapes.items()}
    _, x, y = load_dataset(window=config.window)
    optimiser = AdamW(params, config.lr, config.weight_decay)
    times = []
    for step in js["steps"]:
        batch = np.asarray(step["starts"])
        start = time.perf_counter()
        _, grads = loss_and_grads(params, config, x[batch], y[batch])
        clip_global_norm(grads, config.clip)
        optimiser.step(params, grads)
        times.append(1000 * (time.perf_counter() - start))
    return times


def node_run(steps: int, kernels: str = "fast") -> dict:
    args = json.dumps({"steps": steps, "settings": {"kernels": kernels}})
    done = subprocess.run(["node", str(ROOT / "tests" / "support" / "train_tab_run.mjs"), args],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--site", type=Path, help="a built site to serve (default: build one)")
    parser.add_argument("--engines", nargs="+", default=["chromium", "firefox", "webkit"])
    args = parser.parse_args(argv)
    port = free_port()
    site = args.site or build_site(Path(tempfile.mkdtemp(prefix="lllm-bench-")) / "public", port)
    server = serve(site, port)
    url = f"http://127.0.0.1:{port}/{PAGE}"
    script = Path(tempfile.mkdtemp(prefix="lllm-bench-")) / "train_tab_page.js"
    script.write_text(PAGE_FUNCTION, encoding="utf-8")
    js = node_run(args.steps)
    numpy = lambda: statistics.median(numpy_ms(js)[SKIP:])   # noqa: E731  (run next to each measurement)
    plain = node_run(args.steps, "js")
    results = [(f"node, {js['kernels']} (mean)", js["ms"] / args.steps, numpy()),
               (f"node, {plain['kernels']} (mean)", plain["ms"] / args.steps, numpy())]
    for engine in args.engines:
        before = numpy()
        try:
            if engine == "chromium":
                from playwright.sync_api import sync_playwright
                with sync_playwright() as p:
                    browser = launch(p)
                    report = engines.chromium(browser, url, {"steps": args.steps}, script=script)["report"]
                    browser.close()
            else:
                report = getattr(engines, engine)(url, {"steps": args.steps}, script=script)["report"]
            results.append((f"{engine}, {report.get('kernels')}", statistics.median(report["ms"][SKIP:]), min(before, numpy())))
        except Exception as e:   # an engine that is not installed is reported, not fatal
            results.append((f"{engine} (page)", f"not measured: {str(e).splitlines()[0][:120]}", before))
    server.shutdown()
    print(f"one training step, page default configuration ({js['config']['hidden']} hidden units, batch "
          f"{js['config']['batch']} x {js['config']['window']}), median of steps {SKIP + 1}..{args.steps}")
    print(f"measured {datetime.date.today().isoformat()} on {platform.node()} ({os.cpu_count()} cores, {platform.machine()}); "
          "numpy is timed just before and after each engine (the faster of the two), as the machine's load changes")
    for name, value, base in results:
        if isinstance(value, str):
            print(f"  {name:26s} {value}")
        else:
            print(f"  {name:26s} {value:8.1f} ms/step   numpy {base:6.1f} ms/step   {value / base:6.2f}x numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
