"""TinyLLM on onnxruntime as a backend and a Predictor (lllm/model/onnx_backend.py)."""

import json

import pytest

from lllm.model.generate import generate
from lllm.model.onnx_backend import ModelError, OnnxBackend, from_onnx
from lllm.predictors.contract import Predictor

from support.model_files import copy_model, ensure_model


@pytest.fixture(scope="module")
def backend():
    return OnnxBackend(ensure_model())


def test_carrying_state_equals_reading_everything_at_once(backend):
    ids = backend.tokenizer.encode("Once upon a time")
    whole, _ = backend(ids, None)
    _, state = backend(ids[:6], None)
    for i in ids[6:-1]:
        _, state = backend([i], state)
    stepped, _ = backend([ids[-1]], state)
    diff = max(abs(a - b) for a, b in zip(whole, stepped))
    assert diff <= 1e-4, f"max |dlogit| {diff}; first values {whole[:4]} vs {stepped[:4]}"


def test_predictor_returns_the_completion_only(backend):
    predictor = from_onnx(ensure_model(), temperature=0, max_new_tokens=40)
    assert isinstance(predictor, Predictor)
    out = predictor("Once")
    assert len(out) == 40 and out == generate(backend, backend.tokenizer, "Once", 40, 0).completion
    assert len(predictor("Once", max_new_tokens=3)) == 3


def test_the_model_writes_like_the_story(backend):
    story_words = set(open("export/story.txt").read().split())
    text = generate(backend, backend.tokenizer, "Once", 300, temperature=0.5, seed=1).completion
    words = text.split()
    known = sum(w in story_words for w in words)
    assert known / len(words) > 0.6, text


def test_missing_truncated_and_foreign_files(tmp_path):
    with pytest.raises(ModelError, match="model file not found"):
        OnnxBackend(str(tmp_path / "nope.onnx"))
    model, card = copy_model(tmp_path)
    data = open(model, "rb").read()
    open(model, "wb").write(data[: len(data) // 2])
    with pytest.raises(ModelError, match=r"tinyllm.onnx: not a valid ONNX model"):
        OnnxBackend(model)
    open(model, "w").write("this is a text file, not a model\n")
    with pytest.raises(ModelError, match="not a valid ONNX model"):
        OnnxBackend(model)


def test_card_problems_name_the_card(tmp_path):
    model, card = copy_model(tmp_path)
    good = json.load(open(card))
    cases = [
        ("{ not json", "not valid JSON"),
        (json.dumps({**good, "onnx_sha256": "0" * 64}), "does not match its card"),
        (json.dumps({**good, "vocab": good["vocab"][:-1]}), "logits have"),
        (json.dumps({**good, "format": "something else"}), "not a TinyLLM model card"),
        (json.dumps({k: v for k, v in good.items() if k != "vocab"}), "no 'vocab' field"),
    ]
    for text, message in cases:
        open(card, "w").write(text)
        with pytest.raises(ModelError, match=message):
            OnnxBackend(model)
    import os
    os.remove(card)
    with pytest.raises(ModelError, match="model card not found"):
        OnnxBackend(model)
