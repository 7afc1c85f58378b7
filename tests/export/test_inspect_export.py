"""export/inspect_export.py: the inspection graph equals the numpy forward and the production graph."""

import hashlib
import json
import subprocess
import sys

import numpy as np
import onnx
import pytest

from export.inspect_export import STAGES, parity, step, to_inside_onnx
from export.model import Config, forward, init_params, lstm_forward
from export.onnx_export import session_for, to_onnx
from support.model_files import ROOT, build_inside_model

TOLERANCE = 1e-5
IDS = [3, 17, 42, 0, 95, 7, 7, 61, 12, 30]


def model(layers, seed=5):
    cfg = Config(vocab_size=96, embed=8, hidden=12, layers=layers, seed=seed)
    params = init_params(cfg)
    params["b0"] += np.linspace(-1, 1, 48, dtype=np.float32)   # distinct gate biases: a swapped gate shows
    return cfg, params


def test_graph_is_ir8_opset17_with_every_stage_an_output():
    cfg, params = model(2)
    proto = to_inside_onnx(params, cfg)
    assert (proto.ir_version, proto.opset_import[0].version) == (8, 17)
    assert [i.name for i in proto.graph.input] == ["input_id", "h0", "c0"]
    assert [o.name for o in proto.graph.output] == ["embedding", *STAGES, "logits"]
    assert not {"input_id", "h0", "c0"} & {t.name for t in proto.graph.initializer}
    assert not [n.op_type for n in proto.graph.node if n.op_type == "LSTM"]   # the cell is written out


@pytest.mark.parametrize("layers", [1, 2])
def test_every_stage_matches_the_numpy_forward(layers):
    cfg, params = model(layers)
    session = session_for(to_inside_onnx(params, cfg))
    logits, _, (hn, cn) = forward(params, cfg, np.array([IDS]))
    # numpy's gates, layer by layer: lstm_forward's cache keeps them activated (i, f, o, g), and c
    x, H = params["embed"][np.array([IDS]).T], cfg.hidden
    numpy_stages = []
    for l in range(layers):
        out, cache = lstm_forward(x, params[f"W_x{l}"], params[f"W_h{l}"], params[f"b{l}"],
                                  np.zeros((1, H), np.float32), np.zeros((1, H), np.float32))
        gates, cs = cache[3], cache[5]
        numpy_stages.append({"input_gate": gates[:, 0, :H], "forget_gate": gates[:, 0, H:2 * H],
                             "output_gate": gates[:, 0, 2 * H:3 * H], "candidate": gates[:, 0, 3 * H:],
                             "cn": cs[1:, 0], "hn": out[:, 0]})
        x = out
    state = None
    for t, i in enumerate(IDS):
        got = step(session, [i], state)
        assert np.max(np.abs(got["embedding"][0] - params["embed"][i])) == 0
        assert np.max(np.abs(got["logits"][0] - logits[0, t])) < TOLERANCE
        for l in range(layers):
            for name in STAGES:
                diff = np.max(np.abs(got[name][l, 0] - numpy_stages[l][name][t]))
                assert diff < TOLERANCE, (t, l, name, diff)
        state = (got["hn"], got["cn"])
    assert np.max(np.abs(state[0] - hn)) < TOLERANCE and np.max(np.abs(state[1] - cn)) < TOLERANCE


@pytest.mark.parametrize("layers", [1, 2])
def test_matches_the_production_graph_and_the_check_can_fail(layers):
    cfg, params = model(layers)
    production = session_for(to_onnx(params, cfg))
    assert parity(session_for(to_inside_onnx(params, cfg)), production, IDS) < TOLERANCE
    swapped = dict(params)                       # forget and output gates swapped: the check must see it
    for key in ("W_x0", "W_h0", "b0"):
        w = params[key].copy()
        w[..., 12:24], w[..., 24:36] = params[key][..., 24:36], params[key][..., 12:24]
        swapped[key] = w
    assert parity(session_for(to_inside_onnx(swapped, cfg)), production, IDS) > 1e-3


def test_the_command_writes_a_reproducible_model_and_card_beside_the_trained_one(tmp_path):
    path = build_inside_model(tmp_path)
    first = open(path, "rb").read()
    card = json.load(open(tmp_path / "tinyllm-inside.json"))
    trained = json.load(open(tmp_path / "tinyllm.json"))
    assert card["format"] == "lllm.tinyllm-inside/1" and card["vocab"] == trained["vocab"]
    assert card["onnx_sha256"] == hashlib.sha256(first).hexdigest()
    assert card["weights_from"]["onnx_sha256"] == trained["onnx_sha256"] and card["max_abs_diff"] < 1e-4
    assert onnx.load(path).graph.output[-1].name == "logits"
    build_inside_model(tmp_path)                 # again: the same bytes
    assert open(path, "rb").read() == first


def test_a_missing_model_is_a_one_line_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "export.inspect_export", "--model", str(tmp_path / "none.onnx")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "none.onnx" in done.stderr and "make model" in done.stderr


# ---- an ensemble (the agent model): its members side by side ------------------------------------

from export.inspect_export import members_from_onnx, stored_members, to_inside_onnx_ensemble, with_member_logits  # noqa: E402
from export.onnx_export import to_onnx_ensemble  # noqa: E402
from support.model_files import build_agent_inside_model  # noqa: E402

N = 3


def ensemble(layers, weights):
    cfg = model(layers)[0]
    members = [model(layers, seed)[1] for seed in (5, 6, 7)]
    return cfg, members, to_onnx_ensemble(members, cfg, weights)


@pytest.mark.parametrize("weights", ["float32", "float16", "int8"])
@pytest.mark.parametrize("layers", [1, 2])
def test_an_ensembles_graph_matches_its_production_graph_member_by_member(layers, weights):
    cfg, members, production = ensemble(layers, weights)
    proto = to_inside_onnx_ensemble(stored_members(production, layers, cfg.hidden), cfg)
    assert [i.name for i in proto.graph.input] == ["input_id", "h0", "c0"]
    assert [o.name for o in proto.graph.output] == ["embedding", *STAGES, "logits", "member_logits"]
    inside = session_for(proto)
    assert parity(inside, session_for(with_member_logits(production, N)), IDS) < TOLERANCE
    # every member's stages, at k*H, are its own model's: the numpy forward on its weights as stored
    params = members_from_onnx(production, layers, cfg.hidden)
    if weights == "float32":
        assert all(np.array_equal(params[k][name], members[k][name]) for k in range(N) for name in members[k])
    H, E, state = cfg.hidden, cfg.embed, None
    for t, i in enumerate(IDS):
        got = step(inside, [i], state)
        assert got["embedding"].shape == (1, N * E) and got["hn"].shape == (layers, 1, N * H)
        assert got["member_logits"].shape == (N, 1, 96)
        state = (got["hn"], got["cn"])
    # int8: onnxruntime runs DequantizeLinear -> MatMul (W_out, in both graphs) as its MatMulNBits, which
    # rounds the hidden state to 8 bits too, so the logits leave the exact float32 forward by ~1e-3
    loose = 1e-2 if weights == "int8" else TOLERANCE
    for k in range(N):
        logits, _, (hn, cn) = forward(params[k], cfg, np.array([IDS]))
        assert np.max(np.abs(got["member_logits"][k, 0] - logits[0, -1])) < loose
        assert np.max(np.abs(state[0][:, :, k * H:(k + 1) * H] - hn)) < TOLERANCE
        assert np.max(np.abs(got["embedding"][0, k * E:(k + 1) * E] - params[k]["embed"][IDS[-1]])) == 0
    mean = np.mean([np.exp(m - m.max()) / np.exp(m - m.max()).sum() for m in got["member_logits"][:, 0]], axis=0)
    assert np.max(np.abs(got["logits"][0] - np.log(mean))) < TOLERANCE      # log of the averaged probabilities


def test_an_ensembles_check_sees_swapped_members():
    cfg, members, production = ensemble(1, "int8")
    stored = stored_members(production, 1, cfg.hidden)
    swapped = to_inside_onnx_ensemble([stored[1], stored[0], stored[2]], cfg)   # same average, other states
    assert parity(session_for(swapped), session_for(with_member_logits(production, N)), IDS) > 1e-3


def test_the_command_on_the_agent_model_writes_a_reproducible_ensemble_graph(tmp_path):
    path = build_agent_inside_model(tmp_path)
    first = open(path, "rb").read()
    card = json.load(open(tmp_path / "tinyllm-agent-inside.json"))
    trained = json.load(open(tmp_path / "tinyllm-agent.json"))
    assert card["format"] == "lllm.tinyllm-inside/1" and card["onnx_file"] == "tinyllm-agent-inside.onnx"
    assert card["config"] == trained["config"] and card["onnx_sha256"] == hashlib.sha256(first).hexdigest()
    assert card["ensemble"] == {"members": len(trained["ensemble"]["members"]), "hidden": trained["ensemble"]["hidden"],
                                "embed": trained["config"]["embed"], "weights": trained["ensemble"]["weights"]}
    assert card["ensemble"]["members"] * card["ensemble"]["hidden"] == card["config"]["hidden"]
    assert card["reads_from"] == trained["reads_from"] and card["number_slots"] == trained["number_slots"]
    assert card["weights_from"]["onnx_sha256"] == trained["onnx_sha256"] and card["max_abs_diff"] < 1e-4
    outputs = {o.name: [d.dim_value or d.dim_param for d in o.type.tensor_type.shape.dim] for o in onnx.load(path).graph.output}
    N, H = card["ensemble"]["members"], card["ensemble"]["hidden"]
    assert outputs["member_logits"] == [N, "batch", 96] and outputs["hn"] == [1, "batch", N * H]
    build_agent_inside_model(tmp_path)           # again: the same bytes
    assert open(path, "rb").read() == first


def test_a_damaged_agent_model_is_a_one_line_error(tmp_path):
    (tmp_path / "tinyllm-agent.onnx").write_bytes(b"not onnx")
    (tmp_path / "tinyllm-agent.json").write_text("{}")
    done = subprocess.run([sys.executable, "-m", "export.inspect_export", "--model", str(tmp_path / "tinyllm-agent.onnx")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "tinyllm-agent.onnx" in done.stderr
