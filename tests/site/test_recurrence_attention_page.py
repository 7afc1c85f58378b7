"""The Recurrence and attention page (site/tinyllm/recurrence-attention.md) says what its cell prints
and what TinyLLM's config holds, and its exercise's hidden checks agree with an independent oracle:
causal attention written as numpy matrix products, not the loops of the reference solution."""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hooks import quiz_files  # noqa: E402
from export.model import Config  # noqa: E402
from support.runtime import cells, cpython_outputs  # noqa: E402

PAGE = ROOT / "site" / "tinyllm" / "recurrence-attention.md"

spec = importlib.util.spec_from_file_location("quiz_harness_attention", quiz_files.HARNESS)
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)


def text() -> str:
    return PAGE.read_text(encoding="utf-8")


def checks() -> list[str]:
    quiz = yaml.safe_load((ROOT / "quizzes" / "recurrence-attention.yml").read_text(encoding="utf-8"))
    return next(q for q in quiz["questions"] if q["id"] == "attn-causal-code")["tests"]


def test_the_cell_prints_the_weights_the_page_quotes():
    [code] = cells(text())
    printed = cpython_outputs([code])[0]
    rows = [[float(w) for w in line.split(" looks at ")[1].split()] for line in printed.splitlines()]
    assert [len(r) for r in rows] == [3, 3, 3]
    for t, row in enumerate(rows):
        assert all(w == 0.0 for w in row[t + 1:]), f"position {t + 1} looks at a later position"
        assert abs(sum(row) - 1) < 2e-3, row                               # printed to 3 places
    assert rows[0][0] == 1.0 and rows[1][1] == 0.804 and rows[2] == [0.198, 0.401, 0.401]
    prose = re.sub(r"\s+", " ", text())
    assert "Position 1 can only look at itself (1.000)" in prose
    assert "puts 0.804 there" in prose and "(0.401 each)" in prose and "the first less (0.198)" in prose


def test_the_state_size_is_tinyllms():
    config = Config()
    assert (config.embed, config.hidden, config.layers) == (32, 168, 1)
    prose = re.sub(r"\s+", " ", text())
    assert f"2 × {config.hidden} = {2 * config.hidden * config.layers} numbers" in prose
    assert "embedding (32 numbers)" in prose and "four sets of 168 numbers" in prose


def test_exp_overflows_where_the_page_says():
    assert math.exp(709) < float("inf")
    with pytest.raises(OverflowError):
        math.exp(710)
    assert "`exp(710)` is already too large for a float" in text()


NUMPY_ATTENTION = """
import numpy as np

def attention(Q, K, V):
    Q, K, V = np.array(Q), np.array(K), np.array(V)
    scores = Q @ K.T / np.sqrt(Q.shape[1])                       # (T, T)
    scores[np.triu_indices(len(Q), k=1)] = -np.inf               # the future
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return (weights @ V).tolist(), weights.tolist()
"""


def test_the_hidden_checks_agree_with_a_numpy_oracle():
    result = harness.grade(NUMPY_ATTENTION, checks())
    assert result["ok"], result["message"]
    assert result["total"] == 6


def test_the_page_shows_the_quiz_and_is_a_course_unit():
    assert text().rstrip().endswith("<!-- quiz: recurrence-attention -->")
    course = yaml.safe_load((ROOT / "course.yml").read_text(encoding="utf-8"))
    unit = next(u for u in course["units"] if u["id"] == "inside-model")
    assert unit["pages"] == ["tinyllm/recurrence-attention.md"] and unit["exercise"] == "attn-causal-code"
    assert "](inside.md)" in text(), "the page links the live view of the LSTM's gates"


# ---- bench/attention_bench.py: what the page's table measures is the same arithmetic ---------------------

bench_spec = importlib.util.spec_from_file_location("attention_bench", ROOT / "bench" / "attention_bench.py")
bench = importlib.util.module_from_spec(bench_spec)
bench_spec.loader.exec_module(bench)


def test_the_benchmarks_attention_is_the_exercises():
    solution = """
import sys
attend = sys.modules["attention_bench"].attend

def attention(Q, K, V):
    outputs = [attend(q, K[:i + 1], V[:i + 1]) for i, q in enumerate(Q)]
    weights = [attend(q, K[:i + 1], [[1.0 if c == j else 0.0 for c in range(len(K))] for j in range(i + 1)])
               for i, q in enumerate(Q)]
    return outputs, weights
"""
    sys.modules["attention_bench"] = bench
    result = harness.grade(solution, checks())
    assert result["ok"], result["message"]


def test_the_cache_changes_the_cost_not_the_answer():
    rng = __import__("random").Random(3)
    weights = bench.random_weights(4, rng)
    xs = [[rng.gauss(0, 1) for _ in range(4)] for _ in range(6)]
    cache = {"keys": [], "values": []}
    for t in range(len(xs)):
        cached = bench.cached_step(weights, xs[t], cache)
        again = bench.uncached_step(weights, xs[:t + 1])
        assert max(abs(a - b) for a, b in zip(cached, again)) < 1e-12, t
    assert len(cache["keys"]) == len(xs)


def test_the_lstm_step_keeps_its_size_and_the_bench_prints_its_table(capsys):
    weights = bench.random_weights(3, __import__("random").Random(0))
    h, c = bench.lstm_step(weights, [1.0, 0.0, -1.0], [0.0] * 3, [0.0] * 3)
    assert len(h) == len(c) == 3 and all(-1 < v < 1 for v in h)
    assert bench.main(["--width", "4", "--positions", "2", "4", "--repeats", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("one more character after n past positions, width 4")
    assert [line.split()[0] for line in lines[2:]] == ["2", "4"] and lines[2].endswith("1.0x, 1.0x, 1.0x")
