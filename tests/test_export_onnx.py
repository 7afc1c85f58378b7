"""export/onnx_export.py: the ONNX graph is valid and onnxruntime agrees with the numpy forward."""

import doctest

import numpy as np
import onnx
import pytest

import export.onnx_export as onnx_export
from export.data import build_vocab
from export.model import Config, forward, init_params
from export.onnx_export import onnx_gate_order, run, session_for, to_onnx
from lllm.model.tokenizer import CharTokenizer

TOLERANCE = 1e-4


def side_by_side(ours, theirs, what):
    """The llm.c habit: first values next to each other, then the max difference."""
    a, b = np.ravel(ours), np.ravel(theirs)
    rows = "\n".join(f"  {x:+.6f}  {y:+.6f}" for x, y in zip(a[:6], b[:6]))
    return f"{what}: numpy vs onnxruntime\n{rows}\n  max |diff| = {np.max(np.abs(a - b)):.3e}"


def model_pair(layers, seed=4):
    cfg = Config(vocab_size=96, embed=8, hidden=12, layers=layers, seed=seed)
    params = init_params(cfg)
    return cfg, params, session_for(to_onnx(params, cfg))


def test_docstring_example_runs():
    assert doctest.testmod(onnx_export).failed == 0


def test_graph_passes_the_checker_with_ir8_opset17_and_required_state_inputs():
    cfg = Config(vocab_size=96, embed=8, hidden=12, layers=2)
    proto = to_onnx(init_params(cfg), cfg)
    onnx.checker.check_model(proto, full_check=True)
    assert (proto.ir_version, proto.opset_import[0].version) == (8, 17)
    initializers = {t.name for t in proto.graph.initializer}
    assert not {"input_ids", "h0", "c0"} & initializers
    shapes = {i.name: [d.dim_value or d.dim_param for d in i.type.tensor_type.shape.dim]
              for i in list(proto.graph.input) + list(proto.graph.output)}
    assert shapes == {"input_ids": ["batch", "seq"], "h0": [2, "batch", 12], "c0": [2, "batch", 12],
                      "logits": ["batch", "seq", 96], "hn": [2, "batch", 12], "cn": [2, "batch", 12]}


def test_gate_order_becomes_i_o_f_c():
    ours = np.array(["i", "f", "o", "g"])
    assert onnx_gate_order(ours, 1).tolist() == ["i", "o", "f", "g"]


@pytest.mark.parametrize("layers", [1, 2])
def test_parity_for_a_full_sequence(layers):
    cfg, params, session = model_pair(layers)
    x = np.random.default_rng(1).integers(0, 96, size=(3, 40))
    ours, _, (h, c) = forward(params, cfg, x)
    theirs, (hn, cn) = run(session, x)
    assert np.max(np.abs(ours - theirs)) <= TOLERANCE, side_by_side(ours, theirs, "logits")
    assert np.max(np.abs(h - hn)) <= TOLERANCE, side_by_side(h, hn, "hn")
    assert np.max(np.abs(c - cn)) <= TOLERANCE, side_by_side(c, cn, "cn")


@pytest.mark.parametrize("layers", [1, 2])
def test_parity_one_character_at_a_time_with_carried_state(layers):
    cfg, params, session = model_pair(layers)
    ids = CharTokenizer(build_vocab("")).encode("Once upon a")
    whole, _, _ = forward(params, cfg, np.array([ids]))
    state = None
    for t, i in enumerate(ids):
        step, state = run(session, [[i]], state)
        assert np.max(np.abs(whole[0, t] - step[0, 0])) <= TOLERANCE, side_by_side(
            whole[0, t], step[0, 0], f"logits at character {t}")


def test_a_wrong_gate_order_would_be_caught():
    cfg, params, _ = model_pair(1)
    swapped = dict(params)
    H = cfg.hidden
    swapped["W_x0"] = np.concatenate([params["W_x0"][:, H:2 * H], params["W_x0"][:, :H],
                                      params["W_x0"][:, 2 * H:]], axis=1)   # f and i exchanged
    x = np.array([[1, 2, 3, 4, 5, 6]])
    ours, _, _ = forward(params, cfg, x)
    theirs, _ = run(session_for(to_onnx(swapped, cfg)), x)
    assert np.max(np.abs(ours - theirs)) > TOLERANCE
