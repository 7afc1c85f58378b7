"""export/build.py: `python -m export.build` writes the model card and files, reuses them, rejects bad input."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from export.onnx_export import run, session_for
from lllm.model.tokenizer import CharTokenizer

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = ROOT / "build" / "model"


def build(*args):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "export.build", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def one_epoch(tmp_path_factory):
    out = tmp_path_factory.mktemp("model")
    result = build("--out", str(out), "--epochs", "1")
    assert result.returncode == 0, result.stderr
    return out, result


def test_build_writes_the_card_the_onnx_and_the_loss_curve(one_epoch):
    out, result = one_epoch
    assert sorted(p.name for p in out.iterdir()) == ["loss.json", "loss.svg", "tinyllm.json", "tinyllm.onnx"]
    card = json.loads((out / "tinyllm.json").read_text())
    assert card["format"] == "lllm.tinyllm/1" and card["onnx_file"] == "tinyllm.onnx"
    assert card["onnx_sha256"] == hashlib.sha256((out / "tinyllm.onnx").read_bytes()).hexdigest()
    assert len(card["vocab"]) == card["config"]["vocab_size"] == 96
    assert card["config"]["layers"] == 1 and card["config"]["window"] == 30
    assert card["parameters"] == 154_368
    assert card["metrics"]["epochs"] == 1 and len(card["metrics"]["loss_per_epoch"]) == 1
    assert card["metrics"]["onnx_max_abs_diff"] <= 1e-4
    assert "epoch   1/1  loss" in result.stderr
    assert result.stdout.startswith(f"wrote {out / 'tinyllm.onnx'} (154,368 parameters")


def test_second_build_reuses_and_a_changed_onnx_is_rebuilt(one_epoch):
    out, _ = one_epoch
    again = build("--out", str(out), "--epochs", "1")
    assert again.returncode == 0 and again.stdout.startswith(f"reusing {out / 'tinyllm.onnx'}: up to date")
    assert again.stderr == ""
    (out / "tinyllm.onnx").write_bytes(b"not a model")
    rebuilt = build("--out", str(out), "--epochs", "1")
    assert rebuilt.returncode == 0 and rebuilt.stdout.startswith("wrote")
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("args, message", [
    (["--epochs", "-1"], "argument --epochs: must be >= 1, got -1"),
    (["--epochs", "many"], "argument --epochs: expected an integer, got 'many'"),
    (["--preset", "huge"], "argument --preset: invalid choice: 'huge'"),
])
def test_bad_arguments_are_one_line_errors_with_status_2(tmp_path, args, message):
    result = build("--out", str(tmp_path / "m"), *args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not (tmp_path / "m").exists()


def test_out_that_is_a_file_is_a_one_line_error(tmp_path):
    (tmp_path / "m").write_text("")
    result = build("--out", str(tmp_path / "m"))
    assert (result.returncode, result.stderr) == (2, f"export.build: error: --out {tmp_path / 'm'} exists and is not a folder\n")


def test_the_real_model_continues_once_in_the_story_style():
    """`make model` output, run through onnxruntime: greedy text from "Once" reads like the story."""
    card_path = MODEL_DIR / "tinyllm.json"
    if not card_path.exists():
        pytest.skip("build/model is missing: run `make model` first")
    card = json.loads(card_path.read_text())
    tok = CharTokenizer.from_card(card)
    session = session_for(MODEL_DIR / card["onnx_file"])
    logits, state = run(session, [tok.encode("Once")])
    ids = []
    for _ in range(40):
        ids.append(int(np.argmax(logits[0, -1])))
        logits, state = run(session, [[ids[-1]]], state)
    text = "Once" + tok.decode(ids)
    assert text.startswith("Once upon a time"), text
    assert text == "Once" + card["metrics"]["sample_greedy"][:40]
    assert card["metrics"]["final_loss"] < 0.5
