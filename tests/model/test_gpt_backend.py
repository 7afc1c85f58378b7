"""TinyGPT on onnxruntime (lllm/model/gpt_backend.py): its cache, its refill rule, the same sampler
as TinyLLM behind `--predictor tinygpt`, and the numpy model it was exported from."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from lllm.model.generate import generate
from lllm.model.gpt_backend import GPTBackend, from_gpt_onnx, refill_rule
from lllm.predictors.contract import Predictor
from lllm.predictors.specs import make_predictor

from support.model_files import ROOT, ensure_gpt_model


@pytest.fixture(scope="module")
def backend():
    return GPTBackend(ensure_gpt_model())


def test_the_refill_rule_feeds_only_new_ids_until_the_block_is_full():
    assert refill_rule([], list(range(10)), 0, block=4, refill=2) == ([6, 7, 8, 9], False)   # a long prompt
    assert refill_rule([1, 2], [3], 2, block=4, refill=2) == ([3], True)
    assert refill_rule([1, 2, 3, 4], [5, 6, 7], 4, block=4, refill=2) == ([5, 6, 7], False)


def test_the_cache_equals_reading_everything_at_once(backend):
    ids = backend.tokenizer.encode("Once upon a time there was")
    whole, _ = backend(ids, None)
    fed_before = backend.fed
    _, state = backend(ids[:5], None)
    for i in ids[5:-1]:
        _, state = backend([i], state)
    stepped, state = backend([ids[-1]], state)
    assert max(abs(a - b) for a, b in zip(whole, stepped)) <= 1e-4
    assert backend.fed - fed_before == len(ids)              # each character computed once
    assert state["past"][0].shape[3] == len(ids)
    assert backend.attention.shape == (backend.layers, 1, backend.heads, 1, len(ids))


def test_the_numpy_model_and_onnxruntime_write_the_same_text(backend):
    from onnx import load, numpy_helper

    from export.gpt import GPTConfig, NumpyBackend, init_params
    model = os.path.join(ROOT, "build", "model", "tinygpt.onnx")
    inits = {t.name: numpy_helper.to_array(t) for t in load(model).graph.initializer}
    cfg = GPTConfig(**backend.card["config"])
    numpy_backend = NumpyBackend({k: inits[k] for k in init_params(cfg)}, cfg)
    ours = generate(numpy_backend, backend.tokenizer, "Once", 150, temperature=0.8, seed=3).completion
    theirs = generate(backend, backend.tokenizer, "Once", 150, temperature=0.8, seed=3).completion
    assert ours == theirs and len(ours) == 150                # past the 64-character block: a refill


def test_it_is_a_predictor_that_writes_like_the_story(backend):
    predictor = make_predictor("tinygpt", temperature=0.5, seed=1)
    assert isinstance(predictor, Predictor)
    text = predictor("Once", max_new_tokens=300)
    words = text.split()
    story_words = set(open(os.path.join(ROOT, "export", "story.txt")).read().split())
    assert sum(w in story_words for w in words) / len(words) > 0.6, text
    assert from_gpt_onnx(ensure_gpt_model(), temperature=0, max_new_tokens=3)("Once") == \
        generate(backend, backend.tokenizer, "Once", 3, 0).completion


def test_generate_cli_takes_predictor_tinygpt():
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "lllm", "generate", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
    ensure_gpt_model()
    first = cli("--predictor", "tinygpt", "--prompt", "Once", "--seed", "1", "--json")
    again = cli("--predictor", "tinygpt", "--prompt", "Once", "--seed", "1", "--json")
    lstm = cli("--prompt", "Once", "--seed", "1", "--json")
    assert first.returncode == 0, first.stderr
    record = json.loads(first.stdout)
    assert record["predictor"] == "tinygpt" and record["model"].endswith("tinygpt.onnx")
    assert first.stdout == again.stdout and json.loads(lstm.stdout)["completion"] != record["completion"]
    bad = cli("--predictor", "tinygpt", "--model", "nope/tinygpt.onnx")
    assert bad.returncode == 2 and "nope/tinygpt.onnx: model file not found" in bad.stderr   # one loader (files.py): the model file first, as for TinyLLM


def test_card_problems_name_the_card(tmp_path):
    model, card = tmp_path / "tinygpt.onnx", tmp_path / "tinygpt.json"
    shutil.copy(ensure_gpt_model(), model)
    good = json.loads(open(os.path.join(ROOT, "build", "model", "tinygpt.json")).read())
    for text, message in [("{", "not valid JSON"), (json.dumps({**good, "format": "x"}), "not a TinyGPT model card"),
                          (json.dumps({**good, "onnx_sha256": "0" * 64}), "does not match its card"),
                          (json.dumps({**good, "config": {**good["config"], "heads": 0}}), "config.heads")]:
        card.write_text(text)
        with pytest.raises(ValueError, match=message):
            GPTBackend(str(model))
