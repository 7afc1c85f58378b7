"""The page's JavaScript trainer (site/assets/train/) against export/'s numpy training: the same initial
weights and the same batches give the same losses, step after step, within 1e-4 relative.

Node runs the page's own modules (tests/support/train_tab_run.mjs) and hands over its initial weights and
the window starts of each batch (once with the WebAssembly kernels of kernels.mjs, once in plain
JavaScript); numpy then trains from those arrays with export.model.loss_and_grads,
export.train.clip_global_norm and export.train.AdamW on export.data's windows of the same story.
The ONNX file the page writes for the trained weights (site/assets/train/onnx.mjs) is byte for byte
what export.onnx_export.to_onnx serializes for them."""

from __future__ import annotations

import base64
import json
import os
import subprocess

import numpy as np
import pytest

from conftest import ROOT
from export.data import load_dataset
from export.model import Config, loss_and_grads
from export.onnx_export import to_onnx
from export.train import AdamW, clip_global_norm

RELATIVE = 1e-4
SCRIPT = ROOT / "tests" / "support" / "train_tab_run.mjs"


def run_js(settings: dict, steps: int) -> dict:
    done = subprocess.run(["node", str(SCRIPT), json.dumps({"settings": settings, "steps": steps})],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def shapes(c: dict) -> dict:
    V, E, H = c["vocab_size"], c["embed"], c["hidden"]
    out = {"embed": (V, E), "W_out": (H, V), "b_out": (V,)}
    for l in range(c["layers"]):
        out |= {f"W_x{l}": (E if l == 0 else H, 4 * H), f"W_h{l}": (H, 4 * H), f"b{l}": (4 * H,)}
    return out


def config_of(js: dict) -> Config:
    c = js["config"]
    return Config(**{k: c[k] for k in ("vocab_size", "embed", "hidden", "layers", "window", "batch", "lr",
                                       "weight_decay", "clip", "forget_bias", "loss", "seed")})


def weights(js: dict, which: str) -> dict:
    return {k: np.frombuffer(base64.b64decode(js[which][k]), "<f4").reshape(shape).copy()
            for k, shape in shapes(js["config"]).items()}


def numpy_losses(js: dict) -> tuple[list[float], list[float]]:
    config, params = config_of(js), weights(js, "init")
    tok, x, y = load_dataset(window=config.window)
    assert tok.vocab == js["vocab"]
    optimiser = AdamW(params, config.lr, config.weight_decay)
    losses, norms = [], []
    for step in js["steps"]:
        batch = np.asarray(step["starts"])
        loss, grads = loss_and_grads(params, config, x[batch], y[batch])
        norms.append(clip_global_norm(grads, config.clip))
        optimiser.step(params, grads)
        losses.append(loss)
    return losses, norms


@pytest.mark.parametrize("kernels", ["fast", "js"])                # WebAssembly SIMD, and the plain JavaScript
@pytest.mark.parametrize("settings, steps", [
    ({}, 25),                                                        # the page's default configuration
    ({"embed": 8, "hidden": 12, "layers": 2, "batch": 5, "window": 9, "lr": 0.02, "seed": 3}, 40),
])
def test_js_trainer_losses_equal_numpys(settings, steps, kernels):
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    js = run_js({**settings, "kernels": kernels}, steps)
    assert js["kernels"].startswith("wasm") if kernels == "fast" else js["kernels"] == "js"   # Node has SIMD
    losses, norms = numpy_losses(js)
    theirs = [s["loss"] for s in js["steps"]]
    worst = max(abs(a - b) / abs(b) for a, b in zip(theirs, losses))
    assert worst < RELATIVE, f"JS {theirs[:3]} vs numpy {losses[:3]}: worst relative difference {worst:.2e}"
    assert max(abs(a["norm"] - b) / b for a, b in zip(js["steps"], norms)) < 1e-3
    assert losses[-1] < losses[0]                                     # and it learns
    assert base64.b64decode(js["onnx"]) == to_onnx(weights(js, "final"), config_of(js)).SerializeToString()


def test_a_different_seed_gives_a_different_start():
    a, b = run_js({"hidden": 8, "embed": 4, "batch": 2}, 1), run_js({"hidden": 8, "embed": 4, "batch": 2, "seed": 1}, 1)
    assert a["init"]["W_h0"] != b["init"]["W_h0"] and a["steps"][0]["starts"] != b["steps"][0]["starts"]
