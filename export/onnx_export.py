"""Layer 1 · TinyLLM as an ONNX graph, so onnxruntime (CPython) and onnxruntime-web (the page) run it.

Consumes: nothing from the package; layer 1 (`lllm.model.onnx_backend`) and the page run its output.

Contract: `to_onnx(params, config) -> onnx.ModelProto` (IR version 8, opset 17, checked), with

    inputs   input_ids int64 [batch, seq]   h0, c0 float32 [layers, batch, hidden]   (required)
    outputs  logits float32 [batch, seq, vocab]   hn, cn float32 [layers, batch, hidden]

and `run(session, ids, state) -> (logits, (hn, cn))`, a thin onnxruntime call used by the parity
checks. Pass zeros for h0 and c0 to start; pass hn and cn back in to continue a text.

Read `model.py` first. The graph: Gather (embedding rows) -> Transpose to time-major -> one ONNX
`LSTM` node per layer (Squeeze drops its direction axis) -> Transpose back -> MatMul + Add.
IR 8 / opset 17 because onnxruntime-web 1.30 refuses newer stamps; h0 and c0 are inputs, never
initializers, because onnxruntime-web refuses inputs that shadow an initializer.

Usage:

    >>> from export.model import Config, init_params
    >>> cfg = Config(vocab_size=5, embed=3, hidden=4, layers=2)
    >>> proto = to_onnx(init_params(cfg), cfg)
    >>> proto.ir_version, proto.opset_import[0].version
    (8, 17)
    >>> [i.name for i in proto.graph.input], [o.name for o in proto.graph.output]
    (['input_ids', 'h0', 'c0'], ['logits', 'hn', 'cn'])
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from export.model import Config

__all__ = ["IR_VERSION", "OPSET", "to_onnx", "to_onnx_ensemble", "params_from_onnx", "onnx_gate_order",
           "run", "session_for"]

IR_VERSION = 8
OPSET = 17


# ---- weights in ONNX's layout ------------------------------------------------------------------

# --8<-- [start:onnx-lstm]
def onnx_gate_order(w, H):
    """Our gate blocks along the last axis are i, f, o, g; ONNX wants i, o, f, c (c = our g)."""
    i, f, o, g = (w[..., k * H:(k + 1) * H] for k in range(4))
    return np.concatenate([i, o, f, g], axis=-1)


def onnx_lstm_weights(W_x, W_h, b):
    """Our (E_in, 4H), (H, 4H), (4H,) -> ONNX's W (1, 4H, E_in), R (1, 4H, H), B (1, 8H).

    ONNX computes x @ W.T, so the matrices are transposed; it adds two biases (Wb for the input,
    Rb for the recurrence) where we have one, so B = [b | zeros].
    """
    H = W_h.shape[0]
    W = onnx_gate_order(W_x, H).T[None]
    R = onnx_gate_order(W_h, H).T[None]
    B = np.concatenate([onnx_gate_order(b, H), np.zeros(4 * H, b.dtype)])[None]
    return W, R, B
# --8<-- [end:onnx-lstm]


def our_gate_order(w, H):
    """The inverse of onnx_gate_order: ONNX's i, o, f, c blocks back to our i, f, o, g."""
    i, o, f, g = (w[..., k * H:(k + 1) * H] for k in range(4))
    return np.concatenate([i, f, o, g], axis=-1)


def params_from_onnx(model: onnx.ModelProto) -> dict:
    """A single TinyLLM graph's weights back in our layout (exactly: only transposes and reorders)."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    params = {k: inits[k].copy() for k in ("embed", "W_out", "b_out")}
    l = 0
    while f"W{l}" in inits:
        H = inits[f"R{l}"].shape[-1]
        params[f"W_x{l}"] = our_gate_order(inits[f"W{l}"][0].T, H)
        params[f"W_h{l}"] = our_gate_order(inits[f"R{l}"][0].T, H)
        params[f"b{l}"] = our_gate_order(inits[f"B{l}"][0, :4 * H], H)
        l += 1
    return params


# ---- the graph ---------------------------------------------------------------------------------

def to_onnx(params, config: Config) -> onnx.ModelProto:
    L, H, V = config.layers, config.hidden, config.vocab_size
    inits = [numpy_helper.from_array(np.asarray(params["embed"], np.float32), "embed"),
             numpy_helper.from_array(np.asarray(params["W_out"], np.float32), "W_out"),
             numpy_helper.from_array(np.asarray(params["b_out"], np.float32), "b_out"),
             numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    nodes = [helper.make_node("Gather", ["embed", "input_ids"], ["emb"], axis=0),   # (B, T, E)
             helper.make_node("Transpose", ["emb"], ["x0"], perm=[1, 0, 2])]        # (T, B, E)
    for l in range(L):
        W, R, B = onnx_lstm_weights(*(np.asarray(params[f"{k}{l}"], np.float32)
                                      for k in ("W_x", "W_h", "b")))
        inits += [numpy_helper.from_array(W, f"W{l}"), numpy_helper.from_array(R, f"R{l}"),
                  numpy_helper.from_array(B, f"B{l}"),
                  numpy_helper.from_array(np.array([l], np.int64), f"start{l}"),
                  numpy_helper.from_array(np.array([l + 1], np.int64), f"end{l}")]
        nodes += [
            helper.make_node("Slice", ["h0", f"start{l}", f"end{l}"], [f"h0_{l}"]),  # (1, B, H)
            helper.make_node("Slice", ["c0", f"start{l}", f"end{l}"], [f"c0_{l}"]),
            helper.make_node("LSTM", [f"x{l}", f"W{l}", f"R{l}", f"B{l}", "", f"h0_{l}", f"c0_{l}"],
                             [f"y{l}", f"hn_{l}", f"cn_{l}"], hidden_size=H),      # (T, 1, B, H)
            helper.make_node("Squeeze", [f"y{l}", "axis1"], [f"x{l + 1}"]),         # (T, B, H)
        ]
    nodes += [
        helper.make_node("Concat", [f"hn_{l}" for l in range(L)], ["hn"], axis=0),  # (L, B, H)
        helper.make_node("Concat", [f"cn_{l}" for l in range(L)], ["cn"], axis=0),
        helper.make_node("Transpose", [f"x{L}"], ["top"], perm=[1, 0, 2]),         # (B, T, H)
        helper.make_node("MatMul", ["top", "W_out"], ["scores"]),                   # (B, T, V)
        helper.make_node("Add", ["scores", "b_out"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "tinyllm",
        inputs=[helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                helper.make_tensor_value_info("h0", TensorProto.FLOAT, [L, "batch", H]),
                helper.make_tensor_value_info("c0", TensorProto.FLOAT, [L, "batch", H])],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", V]),
                 helper.make_tensor_value_info("hn", TensorProto.FLOAT, [L, "batch", H]),
                 helper.make_tensor_value_info("cn", TensorProto.FLOAT, [L, "batch", H])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="lllm-export")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


WEIGHTS = ("float32", "float16", "int8")


def _stored(name: str, array, weights: str, axis: int):
    """Initializers and nodes that make the float32 tensor `name` from `array` stored as `weights`:
    float32 as is; float16 then Cast; int8 with one scale per slice along `axis` (symmetric, so
    the largest weight of each row or column is stored exactly), then DequantizeLinear."""
    array = np.asarray(array, np.float32)
    if weights == "float32" or array.ndim == 1:
        return [numpy_helper.from_array(array, name)], []
    if weights == "float16":
        return ([numpy_helper.from_array(array.astype(np.float16), name + "_f16")],
                [helper.make_node("Cast", [name + "_f16"], [name], to=TensorProto.FLOAT)])
    other = tuple(a for a in range(array.ndim) if a != axis)
    scale = (np.abs(array).max(axis=other) / 127.0).astype(np.float32)
    scale[scale == 0] = 1.0
    shape = [1] * array.ndim
    shape[axis] = -1
    q = np.clip(np.rint(array / scale.reshape(shape)), -127, 127).astype(np.int8)
    return ([numpy_helper.from_array(q, name + "_q"), numpy_helper.from_array(scale, name + "_scale"),
             numpy_helper.from_array(np.zeros(scale.shape, np.int8), name + "_zero")],
            [helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zero"], [name], axis=axis)])


# --8<-- [start:ensemble]
def to_onnx_ensemble(members: list[dict], config: Config, weights: str = "float32") -> onnx.ModelProto:
    """N models of one config as one graph with the same inputs and outputs as `to_onnx`'s: the
    state is the members' states side by side ([L, batch, N*H], member k at k*H..(k+1)*H), and
    `logits` are the log of the members' next-character probabilities averaged (a log-probability,
    so softmax(logits) is that average). Each member runs its own LSTM; nothing is shared.
    `weights` is how the matrices are stored (WEIGHTS): float16 halves the file, int8 quarters it;
    the graph computes in float32 either way."""
    N, L, H, V = len(members), config.layers, config.hidden, config.vocab_size
    if N < 2:
        raise ValueError(f"an ensemble needs at least two members, got {N}")
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)}, got {weights!r}")
    inits = [numpy_helper.from_array(np.array([1], np.int64), "axis1"),
             numpy_helper.from_array(np.array([0, 2], np.int64), "axes02"),
             numpy_helper.from_array(np.array(1.0 / N, np.float32), "one_over_n"),
             numpy_helper.from_array(np.array(1e-30, np.float32), "floor")]
    nodes, probs = [], []
    for k, params in enumerate(members):
        m = f"m{k}_"
        for name, axis in (("embed", 0), ("W_out", 1), ("b_out", 0)):
            more_inits, more_nodes = _stored(m + name, params[name], weights, axis)
            inits, nodes = inits + more_inits, nodes + more_nodes
        nodes += [helper.make_node("Gather", [m + "embed", "input_ids"], [m + "emb"], axis=0),
                  helper.make_node("Transpose", [m + "emb"], [m + "x0"], perm=[1, 0, 2])]
        for l in range(L):
            W, R, B = onnx_lstm_weights(*(np.asarray(params[f"{p}{l}"], np.float32) for p in ("W_x", "W_h", "b")))
            for name, array in ((f"{m}W{l}", W), (f"{m}R{l}", R), (f"{m}B{l}", B)):
                stored = "float32" if name.endswith(f"B{l}") else weights   # biases: small, kept exact
                more_inits, more_nodes = _stored(name, array, stored, 1)   # one scale per gate row
                inits, nodes = inits + more_inits, nodes + more_nodes
            inits += [numpy_helper.from_array(np.array([l, k * H], np.int64), f"{m}start{l}"),
                      numpy_helper.from_array(np.array([l + 1, (k + 1) * H], np.int64), f"{m}end{l}")]
            nodes += [
                helper.make_node("Slice", ["h0", f"{m}start{l}", f"{m}end{l}", "axes02"], [f"{m}h0_{l}"]),
                helper.make_node("Slice", ["c0", f"{m}start{l}", f"{m}end{l}", "axes02"], [f"{m}c0_{l}"]),
                helper.make_node("LSTM", [f"{m}x{l}", f"{m}W{l}", f"{m}R{l}", f"{m}B{l}", "", f"{m}h0_{l}", f"{m}c0_{l}"],
                                 [f"{m}y{l}", f"{m}hn_{l}", f"{m}cn_{l}"], hidden_size=H),
                helper.make_node("Squeeze", [f"{m}y{l}", "axis1"], [f"{m}x{l + 1}"]),
            ]
        nodes += [helper.make_node("Transpose", [f"{m}x{L}"], [m + "top"], perm=[1, 0, 2]),
                  helper.make_node("MatMul", [m + "top", m + "W_out"], [m + "scores"]),
                  helper.make_node("Add", [m + "scores", m + "b_out"], [m + "logits"]),
                  helper.make_node("Softmax", [m + "logits"], [m + "probs"], axis=-1)]
        probs.append(m + "probs")
    for name in ("hn", "cn"):                                   # (L, B, N*H): members side by side
        nodes += [helper.make_node("Concat", [f"m{k}_{name}_{l}" for k in range(N)], [f"{name}_{l}"], axis=2)
                  for l in range(L)]
        nodes.append(helper.make_node("Concat", [f"{name}_{l}" for l in range(L)], [name], axis=0))
    nodes += [helper.make_node("Sum", probs, ["total"]),
              helper.make_node("Mul", ["total", "one_over_n"], ["mean"]),
              helper.make_node("Max", ["mean", "floor"], ["safe"]),      # never log(0)
              helper.make_node("Log", ["safe"], ["logits"])]
    graph = helper.make_graph(
        nodes, "tinyllm-ensemble",
        inputs=[helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                helper.make_tensor_value_info("h0", TensorProto.FLOAT, [L, "batch", N * H]),
                helper.make_tensor_value_info("c0", TensorProto.FLOAT, [L, "batch", N * H])],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", V]),
                 helper.make_tensor_value_info("hn", TensorProto.FLOAT, [L, "batch", N * H]),
                 helper.make_tensor_value_info("cn", TensorProto.FLOAT, [L, "batch", N * H])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="lllm-export")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model
# --8<-- [end:ensemble]


# ---- running it --------------------------------------------------------------------------------

def run(session, ids, state=None):
    """ids (B, T) ints; state (h, c) each (L, B, H) or None -> (logits (B, T, V), (hn, cn))."""
    ids = np.asarray(ids, dtype=np.int64)
    if state is None:
        L, _, H = session.get_inputs()[1].shape
        zeros = np.zeros((L, ids.shape[0], H), np.float32)
        state = (zeros, zeros)
    logits, hn, cn = session.run(["logits", "hn", "cn"], {
        "input_ids": ids, "h0": np.asarray(state[0], np.float32),
        "c0": np.asarray(state[1], np.float32)})
    return logits, (hn, cn)


def session_for(model_or_path):
    """An onnxruntime session on one CPU thread (the package's one loader, `lllm.model.files`), from a
    ModelProto or a file path."""
    from lllm.model.files import open_session, session_from_bytes
    if isinstance(model_or_path, onnx.ModelProto):
        return session_from_bytes(model_or_path.SerializeToString(), "the exported model")
    return open_session(str(model_or_path))[0]
