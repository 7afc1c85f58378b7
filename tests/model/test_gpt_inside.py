"""Inside TinyGPT (lllm/model/gpt_inside.py, `lllm inside --predictor tinygpt`): the attention rows are
the graph's, the trace writes generate's text, and the cache's saving is counted right."""

import json
import subprocess
import sys

import numpy as np
import pytest

from lllm.model.generate import generate
from lllm.model.gpt_backend import GPTBackend
from lllm.model.gpt_inside import cache_saving, position_view, trace

from support.model_files import ROOT, ensure_gpt_model


@pytest.fixture(scope="module")
def backend():
    return GPTBackend(ensure_gpt_model())


def test_the_trace_writes_generates_text_and_reads_each_position_once(backend):
    t = trace(backend, "Once", 100, seed=1)
    text = "".join(t.vocab[i] for i in t.ids)
    assert text == "Once" + generate(backend, backend.tokenizer, "Once", 100, 0.8, seed=1).completion
    saving = cache_saving(4, 100, backend.block, backend.refill)
    assert t.fed == saving["with_refills"] and saving["refills"] >= 1
    assert saving["without_cache"] > 3 * saving["with_refills"]


def test_each_row_is_causal_and_sums_to_one(backend):
    t = trace(backend, "Once upon", 80, seed=2)
    for p in (0, 8, 40, 63, 64, 88):
        view = position_view(t, p)
        assert view["keys"][-1] == view["char"] and len(view["keys"]) == p - view["first_key"] + 1
        rows = np.array(view["layers"])
        assert rows.shape == (backend.layers, backend.heads, len(view["keys"]))
        assert np.allclose(rows.sum(axis=-1), 1.0, atol=1e-5)
    assert position_view(t, 63)["first_key"] == 0 and position_view(t, 64)["first_key"] > 0   # the refill


def test_a_row_is_what_reading_the_context_at_once_gives(backend):
    t = trace(backend, "Once", 30, seed=3)
    p = 20
    ids = np.asarray([t.ids[:p + 1]], np.int64)
    empty = backend.empty()
    _, _, _, attention = backend.session.run(None, {"input_ids": ids, "past_key": empty[0], "past_value": empty[1]})
    assert np.abs(np.array(position_view(t, p)["layers"]) - attention[:, 0, :, p, :p + 1]).max() < 1e-5


def test_cache_saving_counts():
    assert cache_saving(4, 3, 5, 3) == {"with_cache": 7, "without_cache": 19, "refills": 1, "with_refills": 9}
    assert cache_saving(100, 0, 64, 48)["with_refills"] == 64      # a long prompt: only the last block is read


def test_the_inside_command_shows_tinygpts_heads():
    ensure_gpt_model()
    run = subprocess.run([sys.executable, "-m", "lllm", "inside", "--predictor", "tinygpt", "--prompt", "Once",
                          "--seed", "1", "--length", "70", "--position", "30", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    view = json.loads(run.stdout)
    assert view["position"] == 30 and len(view["layers"]) == 4 and len(view["layers"][0]) == 4
    assert view["cache"]["refills"] == 1 and view["fed"] == view["cache"]["with_refills"]
    text = subprocess.run([sys.executable, "-m", "lllm", "inside", "--predictor", "tinygpt", "--length", "10"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    assert "layer 3 head 3" in text and "without a cache" in text
    bad = subprocess.run([sys.executable, "-m", "lllm", "inside", "--predictor", "tinygpt", "--position", "999"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "position must be between" in bad.stderr
