"""export/gpt_onnx.py and gpt_build.py: TinyGPT's ONNX graph computes what numpy computes (logits,
every head's attention, the key/value cache), and the committed model is the one its sources build."""

import json
import subprocess
import sys

import numpy as np
import pytest
from onnx import numpy_helper

from export.data import STORY_PATH, build_vocab, load_story
from export.gpt import GPTConfig, forward, gpt_preset, init_params
from export.gpt_build import COMMITTED, ROOT, build_key
from export.gpt_onnx import empty_past, run, session_for, to_onnx


def noisy_params(cfg, seed=0):
    rng = np.random.default_rng(seed)
    return {k: v + 0.3 * rng.standard_normal(v.shape).astype(np.float32) for k, v in init_params(cfg).items()}


@pytest.fixture(scope="module")
def small():
    cfg = GPTConfig(vocab_size=96, embed=16, heads=4, layers=2, block=12, refill=8)
    params = noisy_params(cfg)
    return cfg, params, session_for(to_onnx(params, cfg))


def test_stamps_are_the_ones_onnxruntime_web_accepts(small):
    cfg, params, _ = small
    proto = to_onnx(params, cfg)
    assert (proto.ir_version, proto.opset_import[0].version) == (8, 17)


def test_logits_and_attention_match_numpy(small):
    cfg, params, session = small
    ids = np.random.default_rng(1).integers(0, 96, size=(1, 12))
    ours, _, (keys, values), att = forward(params, cfg, ids)
    theirs, (their_keys, their_values), their_att = run(session, ids, empty_past(cfg))
    print("numpy", ours[0, -1, :4], "\nonnx ", theirs[0, -1, :4])
    assert np.abs(ours - theirs).max() < 1e-4
    assert np.abs(att - their_att).max() < 1e-5
    assert np.abs(keys - their_keys).max() < 1e-5 and np.abs(values - their_values).max() < 1e-5


def test_the_cache_in_the_graph_gives_the_same_logits_as_reading_everything(small):
    cfg, params, session = small
    ids = np.random.default_rng(2).integers(0, 96, size=(1, 10))
    whole, _, whole_att = run(session, ids, empty_past(cfg))
    _, past, _ = run(session, ids[:, :6], empty_past(cfg))
    for t in range(6, 10):
        step, past, att = run(session, ids[:, t:t + 1], past)
        assert att.shape == (cfg.layers, 1, cfg.heads, 1, t + 1)
        assert np.abs(step[0, 0] - whole[0, t]).max() < 1e-5
        assert np.abs(att[:, :, :, 0] - whole_att[:, :, :, t, :t + 1]).max() < 1e-6


def test_the_committed_model_is_up_to_date_with_its_sources():
    card = json.loads((COMMITTED / "tinygpt.json").read_text())
    story = load_story(STORY_PATH)
    assert card["build_key"] == build_key(story, gpt_preset("default", vocab_size=len(build_vocab(story)))), \
        "export/ or lllm/model/gpt_backend.py changed: run `python -m export.gpt_build --force --commit`"
    assert (COMMITTED / "tinygpt.onnx").stat().st_size <= 2_000_000


def test_the_committed_model_matches_numpy_on_its_own_weights():
    import onnx
    card = json.loads((COMMITTED / "tinygpt.json").read_text())
    cfg = GPTConfig(**card["config"])
    proto = onnx.load(str(COMMITTED / "tinygpt.onnx"))
    inits = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer}
    params = {k: inits[k] for k in init_params(cfg)}
    ids = np.array([[card["vocab"].index(ch) for ch in load_story(STORY_PATH)[:cfg.block]]])
    ours, _, _, _ = forward(params, cfg, ids)
    theirs, _, _ = run(session_for(proto), ids, empty_past(cfg))
    assert np.abs(ours - theirs).max() < 1e-4


def test_make_model_copies_the_committed_model_instead_of_training(tmp_path):
    out = subprocess.run([sys.executable, "-m", "export.gpt_build", "--out", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "the committed model" in out.stdout and "step" not in out.stderr
    assert (tmp_path / "tinygpt.onnx").read_bytes() == (COMMITTED / "tinygpt.onnx").read_bytes()
    again = subprocess.run([sys.executable, "-m", "export.gpt_build", "--out", str(tmp_path)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert "reusing" in again.stdout
