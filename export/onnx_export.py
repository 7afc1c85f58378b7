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

__all__ = ["IR_VERSION", "OPSET", "to_onnx", "onnx_gate_order", "run", "session_for"]

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
    """An onnxruntime InferenceSession on one CPU thread, from a ModelProto or a file path."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    source = model_or_path.SerializeToString() if isinstance(model_or_path, onnx.ModelProto) \
        else str(model_or_path)
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
