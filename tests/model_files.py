"""Shared by the tests that need the trained TinyLLM: build it once (reused while up to date)."""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_DIR = os.path.join(ROOT, "build", "model")
MODEL = os.path.join(MODEL_DIR, "tinyllm.onnx")
CARD = os.path.join(MODEL_DIR, "tinyllm.json")


def ensure_model() -> str:
    """The path of build/model/tinyllm.onnx, running `python -m export.build` if needed (as `make model`)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "export.build", "--out", MODEL_DIR], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return MODEL


def copy_model(tmp_path) -> tuple[str, str]:
    """A private copy of the model and its card, safe to damage."""
    model, card = tmp_path / "tinyllm.onnx", tmp_path / "tinyllm.json"
    shutil.copy(MODEL, model)
    shutil.copy(CARD, card)
    return str(model), str(card)
