"""export/onnx_export.py: the ONNX graph is valid and onnxruntime agrees with the numpy forward."""


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


# ---- an ensemble of members as one graph ---------------------------------------------------------

def members(layers, n=3, hidden=12):
    cfg = Config(vocab_size=96, embed=8, hidden=hidden, layers=layers)
    return cfg, [init_params(Config(**{**cfg.to_dict(), "seed": 10 + k})) for k in range(n)]


def member_probabilities(params, cfg, ids):
    logits, _, _ = forward(params, cfg, np.asarray([ids]))
    e = np.exp(logits[0] - logits[0].max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_weights_read_back_from_a_graph_are_the_same_bits():
    cfg, params, _ = model_pair(layers=2)
    proto = to_onnx(params, cfg)
    back = onnx_export.params_from_onnx(proto)
    assert set(back) == set(params) and all(np.array_equal(back[k], params[k]) for k in params)
    assert to_onnx(back, cfg).SerializeToString() == proto.SerializeToString()


@pytest.mark.parametrize("layers", [1, 2])
def test_an_ensemble_predicts_the_mean_of_its_members_probabilities(layers):
    cfg, group = members(layers)
    ids = [5, 17, 3, 40, 2, 9, 11]
    session = session_for(onnx_export.to_onnx_ensemble(group, cfg))
    logits, (h, c) = run(session, [ids])
    mean = np.mean([member_probabilities(p, cfg, ids) for p in group], axis=0)
    assert h.shape == c.shape == (layers, 1, 3 * 12)
    assert np.allclose(np.exp(logits[0]), mean, atol=1e-5), side_by_side(mean, np.exp(logits[0]), "mean probability")
    assert np.allclose(np.exp(logits[0]).sum(-1), 1.0, atol=1e-4)          # logits are log-probabilities


@pytest.mark.parametrize("layers", [1, 2])
def test_an_ensemble_carries_each_members_state_in_its_own_slice(layers):
    cfg, group = members(layers)
    ids = [5, 17, 3, 40, 2, 9, 11]
    session = session_for(onnx_export.to_onnx_ensemble(group, cfg))
    whole, _ = run(session, [ids])
    state, last = None, []
    for i in ids:
        step, state = run(session, [[i]], state)
        last.append(step[0, -1])
    assert np.allclose(np.stack(last), whole[0], atol=1e-5)
    for k, params in enumerate(group):                                       # member k at k*H..(k+1)*H
        _, _, (h, _) = forward(params, cfg, np.asarray([ids]))
        assert np.allclose(state[0][:, 0, k * 12:(k + 1) * 12], h[:, 0], atol=1e-5)


@pytest.mark.parametrize("weights, size, tolerance", [("float16", 0.55, 2e-3), ("int8", 0.32, 2e-2)])
def test_smaller_stored_weights_shrink_the_file_and_barely_move_the_prediction(weights, size, tolerance):
    cfg, group = members(1, hidden=96)                                       # the matrices dominate the file
    ids = [5, 17, 3, 40, 2, 9, 11]
    full = onnx_export.to_onnx_ensemble(group, cfg)
    small = onnx_export.to_onnx_ensemble(group, cfg, weights)
    assert len(small.SerializeToString()) < size * len(full.SerializeToString())
    a, _ = run(session_for(full), [ids])
    b, _ = run(session_for(small), [ids])
    assert np.max(np.abs(np.exp(a) - np.exp(b))) < tolerance, side_by_side(np.exp(a), np.exp(b), weights)
    assert not np.array_equal(a, b)                                          # it did store them differently


def test_an_ensemble_of_one_or_with_unknown_weights_is_refused():
    cfg, group = members(1)
    with pytest.raises(ValueError, match="at least two members"):
        onnx_export.to_onnx_ensemble(group[:1], cfg)
    with pytest.raises(ValueError, match="weights must be one of float32, float16, int8, got 'int4'"):
        onnx_export.to_onnx_ensemble(group, cfg, "int4")
