"""Layer 1 · TinyGPT as one ONNX graph with a key/value cache and every head's attention as outputs.

Consumes: nothing from the package; `lllm.model.gpt_backend` and the page run its output.

Contract: `to_onnx(params, config) -> onnx.ModelProto` (IR version 8, opset 17 - TinyLLM's stamps,
the ones onnxruntime-web 1.30 accepts - checked), with

    inputs   input_ids int64 [batch, seq]
             past_key, past_value float32 [layers, batch, heads, past, head_dim]   (past may be 0)
    outputs  logits float32 [batch, seq, vocab]
             present_key, present_value float32 [layers, batch, heads, past + seq, head_dim]
             attention float32 [layers, batch, heads, seq, past + seq]

and `run(session, ids, past) -> (logits, (present_key, present_value), attention)`. Start with a
past of length 0; pass the presents back in as the next call's past to read one character more
without reading the others again. That is the key/value cache: what a position contributes as a
key and a value never changes once it is computed, because later characters cannot change it
(the mask), so it is computed once.

Read `gpt.py` first; this graph is its `forward` node for node: Gather (token rows) + Gather
(position rows from past .. past + seq, a Range) -> per layer LayerNormalization, one MatMul for
q, k and v, Split, Reshape + Transpose into heads, Concat with the past, MatMul / Div / Where (the
causal mask) / Softmax / MatMul, the MLP with GELU written in Tanh, Mul and Add (opset 17 has no
Gelu) -> LayerNormalization -> MatMul + Add.

Usage:

    >>> from export.gpt import GPTConfig, init_params
    >>> cfg = GPTConfig(vocab_size=5, embed=8, heads=2, layers=2, block=6, refill=4)
    >>> proto = to_onnx(init_params(cfg), cfg)
    >>> proto.ir_version, proto.opset_import[0].version
    (8, 17)
    >>> [i.name for i in proto.graph.input]
    ['input_ids', 'past_key', 'past_value']
    >>> [o.name for o in proto.graph.output]
    ['logits', 'present_key', 'present_value', 'attention']
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from export.gpt import EPS, GELU_K, GPTConfig
from export.onnx_export import IR_VERSION, OPSET, session_for

__all__ = ["to_onnx", "run", "empty_past", "session_for"]


# ---- small builders ----------------------------------------------------------------------------

class Graph:
    """Nodes and initializers, added one at a time; `node` returns the output's name."""

    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    def linear(self, x, W, b, out):
        return self.node("Add", [self.node("MatMul", [x, W], out + "_mm"), b], out)

    def layernorm(self, x, g, b, out):
        return self.node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=EPS)


def gelu(g: Graph, x: str, out: str) -> str:
    """0.5 x (1 + tanh(k (x + 0.044715 x^3))), as gpt.gelu."""
    cube = g.node("Mul", [g.node("Mul", [x, x], out + "_sq"), x], out + "_cube")
    inner = g.node("Add", [x, g.node("Mul", [cube, "gelu_c"], out + "_c3")], out + "_in")
    t = g.node("Tanh", [g.node("Mul", [inner, "gelu_k"], out + "_kin")], out + "_t")
    half_x = g.node("Mul", [x, "half"], out + "_hx")
    return g.node("Mul", [half_x, g.node("Add", [t, "one"], out + "_1t")], out)


# ---- the graph ---------------------------------------------------------------------------------

# --8<-- [start:graph]
def to_onnx(params, config: GPTConfig) -> onnx.ModelProto:
    L, n, C, V = config.layers, config.heads, config.embed, config.vocab_size
    D = C // n
    g = Graph()
    for name, array in params.items():
        g.const(name, np.asarray(array, np.float32))
    for name, value in (("half", 0.5), ("one", 1.0), ("gelu_c", 0.044715), ("gelu_k", GELU_K),
                        ("sqrt_d", np.sqrt(D)), ("neg_inf", -np.inf)):
        g.const(name, np.array(value, np.float32))
    for name, value in (("zero", 0), ("one_i", 1)):
        g.const(name, np.array(value, np.int64))
    g.const("axis0", np.array([0], np.int64))
    g.const("one_axis", np.array([1], np.int64))
    g.const("split3", np.array([C, C, C], np.int64))                  # q, k, v
    g.const("heads_shape", np.array([0, 0, n, D], np.int64))       # 0: keep that dimension
    g.const("merged_shape", np.array([0, 0, C], np.int64))
    # positions past .. past + seq, and the causal mask: key j is hidden from query i when j > i
    P = g.node("Squeeze", [g.node("Shape", ["past_key"], "past_shape", start=3, end=4), "axis0"], "P")
    T = g.node("Squeeze", [g.node("Shape", ["input_ids"], "ids_shape", start=1, end=2), "axis0"], "T")
    S = g.node("Add", [P, T], "S")
    q_pos = g.node("Range", [P, S, "one_i"], "q_pos")                        # (T,)
    k_pos = g.node("Range", ["zero", S, "one_i"], "k_pos")                   # (S,)
    g.node("Greater", [g.node("Unsqueeze", [k_pos, "axis0"], "k_row"),
                       g.node("Unsqueeze", [q_pos, "one_axis"], "q_col")], "future")   # (T, S)
    h = g.node("Add", [g.node("Gather", ["embed", "input_ids"], "tok", axis=0),
                       g.node("Gather", ["pos", q_pos], "where", axis=0)], "h0")     # (B, T, C)
    keys, values, atts = [], [], []
    for l in range(L):
        a = g.layernorm(h, f"ln1_g{l}", f"ln1_b{l}", f"a{l}")
        qkv = g.linear(a, f"W_qkv{l}", f"b_qkv{l}", f"qkv{l}")                     # (B, T, 3C)
        g.nodes.append(helper.make_node("Split", [qkv, "split3"], [f"q{l}_", f"k{l}_", f"v{l}_"], axis=2))
        heads = {}
        for part in "qkv":
            split = g.node("Reshape", [f"{part}{l}_", "heads_shape"], f"{part}{l}_4")
            heads[part] = g.node("Transpose", [split], f"{part}{l}", perm=[0, 2, 1, 3])   # (B, n, T, D)
        l_index = g.const(f"layer{l}", np.array(l, np.int64))
        for part, past in (("k", "past_key"), ("v", "past_value")):
            old = g.node("Gather", [past, l_index], f"{part}{l}_past", axis=0)        # (B, n, P, D)
            heads[part] = g.node("Concat", [old, heads[part]], f"{part}{l}_all", axis=2)   # (B, n, S, D)
        keys.append(g.node("Unsqueeze", [heads["k"], "axis0"], f"key{l}"))
        values.append(g.node("Unsqueeze", [heads["v"], "axis0"], f"value{l}"))
        kT = g.node("Transpose", [heads["k"]], f"kT{l}", perm=[0, 1, 3, 2])
        scores = g.node("Div", [g.node("MatMul", [heads["q"], kT], f"qk{l}"), "sqrt_d"], f"scores{l}")
        masked = g.node("Where", ["future", "neg_inf", scores], f"masked{l}")
        att = g.node("Softmax", [masked], f"att{l}", axis=-1)                      # (B, n, T, S)
        atts.append(g.node("Unsqueeze", [att, "axis0"], f"att{l}_"))
        y = g.node("Transpose", [g.node("MatMul", [att, heads["v"]], f"y{l}_4")], f"y{l}_t", perm=[0, 2, 1, 3])
        y = g.node("Reshape", [y, "merged_shape"], f"y{l}")                         # (B, T, C)
        h = g.node("Add", [h, g.linear(y, f"W_o{l}", f"b_o{l}", f"o{l}")], f"h{l}_mid")
        m = g.layernorm(h, f"ln2_g{l}", f"ln2_b{l}", f"m{l}")
        act = gelu(g, g.linear(m, f"W_fc{l}", f"b_fc{l}", f"fc{l}"), f"act{l}")
        h = g.node("Add", [h, g.linear(act, f"W_pr{l}", f"b_pr{l}", f"pr{l}")], f"h{l + 1}")
    top = g.layernorm(h, "lnf_g", "lnf_b", "top")
    g.linear(top, "W_out", "b_out", "logits")
    g.node("Concat", keys, "present_key", axis=0)
    g.node("Concat", values, "present_value", axis=0)
    g.node("Concat", atts, "attention", axis=0)
    cache = [L, "batch", n, "past", D]
    graph = helper.make_graph(
        g.nodes, "tinygpt",
        inputs=[helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                helper.make_tensor_value_info("past_key", TensorProto.FLOAT, cache),
                helper.make_tensor_value_info("past_value", TensorProto.FLOAT, cache)],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", V]),
                 helper.make_tensor_value_info("present_key", TensorProto.FLOAT, [L, "batch", n, "total", D]),
                 helper.make_tensor_value_info("present_value", TensorProto.FLOAT, [L, "batch", n, "total", D]),
                 helper.make_tensor_value_info("attention", TensorProto.FLOAT, [L, "batch", n, "seq", "total"])],
        initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="lllm-export")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model
# --8<-- [end:graph]


# ---- running it --------------------------------------------------------------------------------

def empty_past(config: GPTConfig, batch: int = 1):
    """Keys and values of no positions yet: (L, batch, heads, 0, head_dim) each."""
    shape = (config.layers, batch, config.heads, 0, config.embed // config.heads)
    return np.zeros(shape, np.float32), np.zeros(shape, np.float32)


def run(session, ids, past):
    """ids (B, T) ints, past (keys, values) -> (logits (B, T, V), (keys, values), attention)."""
    logits, keys, values, attention = session.run(
        ["logits", "present_key", "present_value", "attention"],
        {"input_ids": np.asarray(ids, np.int64), "past_key": np.asarray(past[0], np.float32),
         "past_value": np.asarray(past[1], np.float32)})
    return logits, (keys, values), attention
