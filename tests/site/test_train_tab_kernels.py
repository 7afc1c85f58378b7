"""The WebAssembly SIMD kernels of the page's trainer (site/assets/train/kernels.mjs) agree with plain
float64 JavaScript: each kernel on random numbers (tests/support/train_kernels_check.mjs, with plain
SIMD and, where Node can switch it on, relaxed SIMD's fused multiply-add), and whole training runs on
the fast path against the plain JavaScript path, step by step, including shapes the kernels leave
partly to JavaScript (a batch of 5, 10 hidden units)."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import ROOT
from test_train_tab_parity import run_js

CHECK = ROOT / "tests" / "support" / "train_kernels_check.mjs"
BOUND = 2e-6      # float32 sums and a float32 exp: a few units of float32's last place (a wrong index: ~1)


def check(*flags: str) -> dict:
    done = subprocess.run(["node", *flags, str(CHECK)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("relaxed", [False, True])
def test_each_kernel_agrees_with_float64_javascript(relaxed):
    report = check("--experimental-wasm-relaxed-simd") if relaxed else check()
    assert report["available"], "Node has WebAssembly SIMD: the fast path must be there"
    if relaxed and not report["relaxed"]:
        pytest.skip("this Node cannot switch relaxed SIMD on")
    assert report["example"], "kernels.mjs's own example (an 8 x 3 by 3 x 8 product) is wrong"
    assert "refused" not in report, report
    assert report["outside"] == 0, "a product wrote outside its 4 x 8 blocks"
    assert report["refusesOffArena"], "a full arena must hand out nothing, and kernels must refuse arrays off it"
    for key in ("matmul", "matmulAdd", "matmulTN", "gates", "cell", "dZ", "dc", "xentMax", "xentSum", "xent", "xentBias", "adam"):
        assert report[key] < BOUND, (key, report)
    assert report["adamTail"] == 0, "AdamW wrote past its last group of four"
    assert report["db"] < 10 * BOUND, report                          # a sum over 16 rows


@pytest.mark.parametrize("settings", [
    {},                                                              # the page's default
    {"embed": 6, "hidden": 12, "layers": 2, "batch": 5, "window": 9, "seed": 2},
    {"embed": 5, "hidden": 10, "batch": 3, "window": 7, "seed": 1},   # H not a multiple of 4: cells in JavaScript
])
def test_fast_and_plain_training_runs_agree(settings):
    fast, plain = run_js({**settings, "kernels": "fast"}, 30), run_js({**settings, "kernels": "js"}, 30)
    assert fast["kernels"].startswith("wasm") and plain["kernels"] == "js"
    assert fast["init"] == plain["init"] and [s["starts"] for s in fast["steps"]] == [s["starts"] for s in plain["steps"]]
    worst = max(abs(a["loss"] - b["loss"]) / b["loss"] for a, b in zip(fast["steps"], plain["steps"]))
    assert worst < 1e-5, worst
    assert abs(fast["validation"] - plain["validation"]) / plain["validation"] < 1e-4
