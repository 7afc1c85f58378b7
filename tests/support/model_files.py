"""Shared by the tests that need the trained models: the story TinyLLM is built once (reused while up
to date); the agent-tuned one takes minutes to train, so tests require it and never train it."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL_DIR = os.path.join(ROOT, "build", "model")
MODEL = os.path.join(MODEL_DIR, "tinyllm.onnx")
CARD = os.path.join(MODEL_DIR, "tinyllm.json")
AGENT_MODEL = os.path.join(MODEL_DIR, "tinyllm-agent.onnx")
AGENT_CARD = os.path.join(MODEL_DIR, "tinyllm-agent.json")


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


def require_agent_model() -> str:
    """The path of build/model/tinyllm-agent.onnx; fails the test, naming `make agent-model`, if it or
    its card is missing (`make test` builds it before pytest; training here would take minutes)."""
    missing = [os.path.relpath(p, ROOT) for p in (AGENT_MODEL, AGENT_CARD) if not os.path.isfile(p)]
    if missing:
        pytest.fail(f"{' and '.join(missing)} missing: run `make agent-model` first (`make test` does)")
    return AGENT_MODEL


def build_inside_model(folder) -> str:
    """The inspection model (export/inspect_export.py) built from the story model into `folder` (as
    `make model` does beside it), so tests never write into build/; returns its path."""
    ensure_model()
    for name in ("tinyllm.onnx", "tinyllm.json"):
        shutil.copy(os.path.join(MODEL_DIR, name), os.path.join(str(folder), name))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "export.inspect_export", "--model", os.path.join(str(folder), "tinyllm.onnx")],
                   cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(str(folder), "tinyllm-inside.onnx")


GPT_MODEL = os.path.join(MODEL_DIR, "tinygpt.onnx")


def ensure_gpt_model() -> str:
    """build/model/tinygpt.onnx as `make model` leaves it: the committed TinyGPT copied while its build
    key matches (export/gpt_build.py), trained otherwise."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "export.gpt_build", "--out", MODEL_DIR], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return GPT_MODEL


def build_agent_inside_model(folder) -> str:
    """The agent model's inspection graph (export/inspect_export.py on the ensemble), built from
    build/model/tinyllm-agent.onnx into `folder` (as `make models` does beside it); returns its path."""
    require_agent_model()
    for path in (AGENT_MODEL, AGENT_CARD):
        shutil.copy(path, os.path.join(str(folder), os.path.basename(path)))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "export.inspect_export", "--model",
                    os.path.join(str(folder), "tinyllm-agent.onnx")], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(str(folder), "tinyllm-agent-inside.onnx")
