"""Layer 1 · TinyLLM's inspection graph: one character per run, with every stage inside as an output.

Consumes: the trained `tinyllm.onnx` (its weights, read back exactly by `onnx_export.params_from_onnx`)
and layer 1's model card format; `lllm.model.inside` and the page /tinyllm/inside/ run its output.

Contract: `to_inside_onnx(params, config) -> onnx.ModelProto` (IR 8, opset 17, checked), with

    inputs   input_id int64 [batch]   h0, c0 float32 [layers, batch, hidden]   (required)
    outputs  embedding [batch, embed]
             input_gate, forget_gate, output_gate, candidate  [layers, batch, hidden]
             cn, hn (the cell and the hidden state after this character)  [layers, batch, hidden]
             logits [batch, vocab]

and `python -m export.inspect_export --model build/model/tinyllm.onnx` writes `tinyllm-inside.onnx`
and its card `tinyllm-inside.json` beside it (no training: the same weights, another graph), after
checking its logits and states against the production graph's on the first 200 characters of the
story. The same weights always give the same bytes.

An ensemble (`onnx_export.to_onnx_ensemble`, the agent-tuned TinyLLM): `--model
build/model/tinyllm-agent.onnx` writes `tinyllm-agent-inside.onnx` by `to_inside_onnx_ensemble`,
with the same inputs (h0, c0 [layers, batch, N*hidden], as the production state) and outputs

    embedding [batch, N*embed]; the six stages [layers, batch, N*hidden]: member k at k*H..(k+1)*H
    logits [batch, vocab]          the log of the members' softmax probabilities averaged
    member_logits [N, batch, vocab]  each member's own scores (its vote is their softmax)

Its weights are read back as the production graph stores them (`stored_members`): the embedding
and W_out stay int8 with their DequantizeLinear (so onnxruntime treats them as it does there), the
cell's matrices are dequantized into float32 exactly (`dequantized`), as the LSTM node reads them.
Its card adds `ensemble` {members, hidden (per member), embed, weights} and the production card's
`reads_from` and `number_slots` (how the model reads a prompt: `lllm.model.generate.model_view`).

Read `onnx_export.py` first. ONNX's `LSTM` node hands out only h and c, never its gates, so here the
cell is written out in basic ops, exactly the step `model.py` documents (our gate order i, f, o, g):

    z = x @ W_x + h0 @ W_h + b          MatMul, MatMul, Add, Add          (batch, 4H)
    i, f, o, g = Split(z)               Sigmoid, Sigmoid, Sigmoid, Tanh
    c = f * c0 + i * g;  h = o * tanh(c)

Usage:

    >>> from export.model import Config, init_params
    >>> cfg = Config(vocab_size=5, embed=3, hidden=4, layers=2)
    >>> proto = to_inside_onnx(init_params(cfg), cfg)
    >>> [o.name for o in proto.graph.output][:3], proto.opset_import[0].version
    (['embedding', 'input_gate', 'forget_gate'], 17)
    >>> from export.onnx_export import to_onnx_ensemble
    >>> ensemble = to_onnx_ensemble([init_params(cfg), init_params(cfg)], cfg, "int8")
    >>> inside = to_inside_onnx_ensemble(stored_members(ensemble, cfg.layers, cfg.hidden), cfg)
    >>> [o.name for o in inside.graph.output][-2:], inside.graph.input[1].type.tensor_type.shape.dim[2].dim_value
    (['logits', 'member_logits'], 8)
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from export.build import write_atomic
from export.data import STORY_PATH, load_story
from export.onnx_export import IR_VERSION, OPSET, our_gate_order, params_from_onnx, run, session_for
from lllm.commands.args import ArgParser

__all__ = ["CARD_FORMAT", "STAGES", "to_inside_onnx", "to_inside_onnx_ensemble", "stored_members", "members_from_onnx",
           "dequantized", "with_member_logits", "step", "parity", "main"]

CARD_FORMAT = "lllm.tinyllm-inside/1"
STAGES = ("input_gate", "forget_gate", "output_gate", "candidate", "cn", "hn")  # per layer, in order
TOLERANCE = 1e-4   # largest |difference| from the production graph accepted (float32 rounding)


# ---- the graph ---------------------------------------------------------------------------------

def _const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _cell(p: str, x: str) -> list:
    """One LSTM step in basic ops: from `x` (B, E_in), p+"h0", p+"c0" (B, H) and the weights p+"W_x",
    p+"W_h", p+"b" (our layout) to p+"input_gate" ... p+"hn" (B, H), each stage a named tensor."""
    # --8<-- [start:inside-cell]
    return [
        helper.make_node("MatMul", [x, p + "W_x"], [p + "zx"]),                 # (B, 4H)
        helper.make_node("MatMul", [p + "h0", p + "W_h"], [p + "zh"]),
        helper.make_node("Add", [p + "zx", p + "zh"], [p + "zxh"]),
        helper.make_node("Add", [p + "zxh", p + "b"], [p + "z"]),
        helper.make_node("Split", [p + "z", "quarters"], [p + k for k in ("zi", "zf", "zo", "zg")], axis=1),
        helper.make_node("Sigmoid", [p + "zi"], [p + "input_gate"]),
        helper.make_node("Sigmoid", [p + "zf"], [p + "forget_gate"]),
        helper.make_node("Sigmoid", [p + "zo"], [p + "output_gate"]),
        helper.make_node("Tanh", [p + "zg"], [p + "candidate"]),
        helper.make_node("Mul", [p + "forget_gate", p + "c0"], [p + "kept"]),    # f * c_{t-1}
        helper.make_node("Mul", [p + "input_gate", p + "candidate"], [p + "written"]),  # i * g
        helper.make_node("Add", [p + "kept", p + "written"], [p + "cn"]),
        helper.make_node("Tanh", [p + "cn"], [p + "tanh_c"]),
        helper.make_node("Mul", [p + "output_gate", p + "tanh_c"], [p + "hn"]),
    ]
    # --8<-- [end:inside-cell]


def to_inside_onnx(params, config) -> onnx.ModelProto:
    L, H, V, E = config.layers, config.hidden, config.vocab_size, config.embed
    f32 = lambda a: np.asarray(a, np.float32)  # noqa: E731
    inits = [_const("embed", f32(params["embed"])), _const("W_out", f32(params["W_out"])),
             _const("b_out", f32(params["b_out"])), _const("quarters", np.array([H] * 4, np.int64)),
             _const("axis0", np.array([0], np.int64))]
    nodes = [helper.make_node("Gather", ["embed", "input_id"], ["embedding"], axis=0)]   # (B, E)
    per_stage = {name: [] for name in STAGES}
    x = "embedding"
    for l in range(L):
        p = f"l{l}_"
        inits += [_const(p + "W_x", f32(params[f"W_x{l}"])), _const(p + "W_h", f32(params[f"W_h{l}"])),
                  _const(p + "b", f32(params[f"b{l}"])), _const(p + "at", np.array(l, np.int64))]
        nodes += [helper.make_node("Gather", ["h0", p + "at"], [p + "h0"], axis=0),      # (B, H)
                  helper.make_node("Gather", ["c0", p + "at"], [p + "c0"], axis=0)]
        nodes += _cell(p, x)
        for name in STAGES:                                                        # (1, B, H) each
            nodes.append(helper.make_node("Unsqueeze", [p + name, "axis0"], [p + name + "_1"]))
            per_stage[name].append(p + name + "_1")
        x = p + "hn"
    nodes += [helper.make_node("Concat", per_stage[name], [name], axis=0) for name in STAGES]  # (L, B, H)
    nodes += [helper.make_node("MatMul", [x, "W_out"], ["scores"]),                 # (B, V)
              helper.make_node("Add", ["scores", "b_out"], ["logits"])]
    state = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [L, "batch", H])  # noqa: E731
    graph = helper.make_graph(
        nodes, "tinyllm-inside",
        inputs=[helper.make_tensor_value_info("input_id", TensorProto.INT64, ["batch"]), state("h0"), state("c0")],
        outputs=[helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", E])]
        + [state(name) for name in STAGES]
        + [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", V])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="lllm-export")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


# ---- an ensemble: its members side by side, as the production graph holds them --------------------

def _read_stored(inits: dict, name: str):
    """How the production graph stores the float32 tensor `name` (onnx_export._stored): ("float32", a),
    ("float16", a16) or ("int8", q, scale, zero), the scales along axis 1 (0 for the embedding)."""
    if name in inits:
        return ("float32", inits[name])
    if name + "_f16" in inits:
        return ("float16", inits[name + "_f16"])
    if name + "_q" in inits:
        return ("int8", inits[name + "_q"], inits[name + "_scale"], inits[name + "_zero"])
    raise ValueError(f"the graph has no tensor {name} (as float32, float16 or int8)")


def _our_layout(stored, H: int):
    """ONNX's LSTM matrix (1, 4H, E_in), stored any way, in our layout (E_in, 4H), gates i, f, o, g: the
    int8 numbers and their per-gate-row scales are moved, never recomputed, so dequantizing gives
    exactly the production graph's weights, reordered."""
    kind, matrix, *scales = stored
    return (kind, our_gate_order(matrix[0].T, H), *(our_gate_order(s, H) for s in scales))


def stored_members(production: onnx.ModelProto, layers: int, hidden: int) -> list[dict]:
    """Each member's weights of a `to_onnx_ensemble` graph, stored as it stores them, in our layout:
    embed (V, E), W_x{l} (E_in, 4H), W_h{l} (H, 4H), b{l} (4H,), W_out (H, V), b_out (V,)."""
    inits = {t.name: numpy_helper.to_array(t) for t in production.graph.initializer}
    members, k = [], 0
    while any(name.startswith(f"m{k}_") for name in inits):
        m = f"m{k}_"
        member = {name: _read_stored(inits, m + name) for name in ("embed", "W_out", "b_out")}
        for l in range(layers):
            member[f"W_x{l}"] = _our_layout(_read_stored(inits, f"{m}W{l}"), hidden)
            member[f"W_h{l}"] = _our_layout(_read_stored(inits, f"{m}R{l}"), hidden)
            B = _read_stored(inits, f"{m}B{l}")[1][0]                    # [Wb | Rb], kept float32
            member[f"b{l}"] = ("float32", our_gate_order(B[:4 * hidden] + B[4 * hidden:], hidden))
        members.append(member)
        k += 1
    return members


def dequantized(stored, axis: int) -> np.ndarray:
    """A stored tensor as float32, exactly as the graph computes it (Cast, or DequantizeLinear:
    (q - zero) * scale, one scale per slice along `axis`)."""
    kind, value, *rest = stored
    if kind == "float32":
        return np.asarray(value, np.float32)
    if kind == "float16":
        return value.astype(np.float32)
    scale, zero = rest
    shape = [1] * value.ndim
    shape[axis] = -1
    return (value.astype(np.int32) - zero.astype(np.int32).reshape(shape)).astype(np.float32) * scale.reshape(shape)


def members_from_onnx(production: onnx.ModelProto, layers: int, hidden: int) -> list[dict]:
    """Each member's float32 weights in our layout (`export.model`'s params), as the graph computes them."""
    return [{name: dequantized(stored, 0 if name == "embed" else 1) for name, stored in member.items()}
            for member in stored_members(production, layers, hidden)]


def _emit(name: str, stored, axis: int):
    """Initializers and nodes that make float32 `name` from `stored` (as `onnx_export._stored` does)."""
    kind, value, *rest = stored
    if kind == "float32":
        return [_const(name, np.asarray(value, np.float32))], []
    if kind == "float16":
        return ([_const(name + "_f16", value)],
                [helper.make_node("Cast", [name + "_f16"], [name], to=TensorProto.FLOAT)])
    scale, zero = rest
    return ([_const(name + "_q", value), _const(name + "_scale", scale), _const(name + "_zero", zero)],
            [helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zero"], [name], axis=axis)])


def to_inside_onnx_ensemble(members: list[dict], config) -> onnx.ModelProto:
    """`to_inside_onnx` for an ensemble (`stored_members` of a `to_onnx_ensemble` graph; `config` one
    member's): the same inputs, every member's stages side by side as in the production state
    (embedding [batch, N*E]; gates, candidate, cn, hn [L, batch, N*H], member k at k*H..(k+1)*H),
    `member_logits` [N, batch, vocab] (each member's own scores), and `logits` [batch, vocab] computed
    as the production graph does: the log of the members' softmax probabilities averaged."""
    N, L, H, V, E = len(members), config.layers, config.hidden, config.vocab_size, config.embed
    inits = [_const("quarters", np.array([H] * 4, np.int64)), _const("axis0", np.array([0], np.int64)),
             _const("axis1", np.array([1], np.int64)),
             _const("one_over_n", np.array(1.0 / N, np.float32)), _const("floor", np.array(1e-30, np.float32))]
    nodes = []
    for l in range(L):                                                  # layer l's state, every member's
        inits.append(_const(f"l{l}_at", np.array(l, np.int64)))
        nodes += [helper.make_node("Gather", ["h0", f"l{l}_at"], [f"l{l}_h0"], axis=0),      # (B, N*H)
                  helper.make_node("Gather", ["c0", f"l{l}_at"], [f"l{l}_c0"], axis=0)]
    probs = []
    for k, member in enumerate(members):
        m = f"m{k}_"
        for name, axis in (("embed", 0), ("W_out", 1), ("b_out", 0)):
            more_inits, more_nodes = _emit(m + name, member[name], axis)
            inits, nodes = inits + more_inits, nodes + more_nodes
        nodes.append(helper.make_node("Gather", [m + "embed", "input_id"], [m + "embedding"], axis=0))  # (B, E)
        inits += [_const(m + "from", np.array([k * H], np.int64)), _const(m + "to", np.array([(k + 1) * H], np.int64))]
        x = m + "embedding"
        for l in range(L):
            p = f"{m}l{l}_"
            # the cell's matrices dequantized here, in float32 (exactly the values the graph's
            # DequantizeLinear gives): the production LSTM node computes with them in float32, and
            # onnxruntime would turn a DequantizeLinear -> MatMul into its int8 MatMulNBits
            inits += [_const(p + name, dequantized(member[ours], 1))
                      for name, ours in (("W_x", f"W_x{l}"), ("W_h", f"W_h{l}"), ("b", f"b{l}"))]
            nodes += [helper.make_node("Slice", [f"l{l}_{s}", m + "from", m + "to", "axis1"], [p + s])  # (B, H)
                      for s in ("h0", "c0")]
            nodes += _cell(p, x)
            x = p + "hn"
        nodes += [helper.make_node("MatMul", [x, m + "W_out"], [m + "scores"]),                 # (B, V)
                  helper.make_node("Add", [m + "scores", m + "b_out"], [m + "logits"]),
                  helper.make_node("Unsqueeze", [m + "logits", "axis0"], [m + "logits_1"]),
                  helper.make_node("Softmax", [m + "logits"], [m + "probs"], axis=-1)]
        probs.append(m + "probs")
    nodes.append(helper.make_node("Concat", [f"m{k}_embedding" for k in range(N)], ["embedding"], axis=1))
    for name in STAGES:                                          # (L, B, N*H): members side by side
        for l in range(L):
            nodes += [helper.make_node("Concat", [f"m{k}_l{l}_{name}" for k in range(N)], [f"l{l}_{name}"], axis=1),
                      helper.make_node("Unsqueeze", [f"l{l}_{name}", "axis0"], [f"l{l}_{name}_1"])]
        nodes.append(helper.make_node("Concat", [f"l{l}_{name}_1" for l in range(L)], [name], axis=0))
    nodes += [helper.make_node("Concat", [f"m{k}_logits_1" for k in range(N)], ["member_logits"], axis=0),
              helper.make_node("Sum", probs, ["total"]),                  # as to_onnx_ensemble, op for op
              helper.make_node("Mul", ["total", "one_over_n"], ["mean"]),
              helper.make_node("Max", ["mean", "floor"], ["safe"]),
              helper.make_node("Log", ["safe"], ["logits"])]
    state = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [L, "batch", N * H])  # noqa: E731
    graph = helper.make_graph(
        nodes, "tinyllm-ensemble-inside",
        inputs=[helper.make_tensor_value_info("input_id", TensorProto.INT64, ["batch"]), state("h0"), state("c0")],
        outputs=[helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", N * E])]
        + [state(name) for name in STAGES]
        + [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", V]),
           helper.make_tensor_value_info("member_logits", TensorProto.FLOAT, [N, "batch", V])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="lllm-export")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def with_member_logits(production: onnx.ModelProto, members: int) -> onnx.ModelProto:
    """A copy of a `to_onnx_ensemble` graph that also hands out each member's logits (m{k}_logits,
    [batch, seq, vocab]), so `parity` can check the inspection graph's member_logits too."""
    copy = onnx.ModelProto()
    copy.CopyFrom(production)
    V = copy.graph.output[0].type.tensor_type.shape.dim[2].dim_value
    copy.graph.output.extend(helper.make_tensor_value_info(f"m{k}_logits", TensorProto.FLOAT, ["batch", "seq", V])
                             for k in range(members))
    return copy


# ---- running it, and checking it against the production graph -------------------------------------

def step(session, ids, state=None) -> dict:
    """One character per row: ids (B,) -> every output by name; state (h, c) each (L, B, H) or None."""
    ids = np.asarray(ids, dtype=np.int64)
    if state is None:
        L, _, H = session.get_inputs()[1].shape
        state = (np.zeros((L, len(ids), H), np.float32),) * 2
    names = [o.name for o in session.get_outputs()]
    values = session.run(names, {"input_id": ids, "h0": state[0], "c0": state[1]})
    return dict(zip(names, values))


def parity(inside, production, ids) -> float:
    """Largest |difference| in logits, hn and cn (relative to the largest |cn| when that exceeds 1)
    between the two graphs reading `ids` (one text), and in member_logits when the inspection graph
    has them (`production` then from `with_member_logits`)."""
    logits, (hn, cn) = run(production, [ids])                 # (1, T, V), (L, 1, H)
    members = []
    if "member_logits" in [o.name for o in inside.get_outputs()]:
        L, _, width = production.get_inputs()[1].shape
        zeros = np.zeros((L, 1, width), np.float32)
        names = sorted((o.name for o in production.get_outputs() if o.name.startswith("m")),
                       key=lambda name: int(name[1:name.index("_")]))
        members = production.run(names, {"input_ids": np.asarray([ids], np.int64), "h0": zeros, "c0": zeros})
    state, worst = None, 0.0
    for t, i in enumerate(ids):
        out = step(inside, [i], state)
        worst = max(worst, float(np.max(np.abs(out["logits"][0] - logits[0, t]))))
        for k, theirs in enumerate(members):
            worst = max(worst, float(np.max(np.abs(out["member_logits"][k, 0] - theirs[0, t]))))
        state = (out["hn"], out["cn"])
    worst = max(worst, float(np.max(np.abs(state[0] - hn))))
    # the cell is not squashed: the agent model's reaches ~200, where float32's spacing is 1.5e-5 and
    # the production graph itself differs by ~2e-4 between reading a text whole and a character at a time
    return max(worst, float(np.max(np.abs(state[1] - cn))) / max(1.0, float(np.max(np.abs(cn)))))


# ---- the command: the inspection model and its card, beside the trained one ------------------------

def _inspection_graph(data: bytes, card: dict):
    """(the production graph to check against, the inspection graph, the members or None) for the
    trained model's bytes and card: one model, or an ensemble (its card's `ensemble`)."""
    from export.model import Config
    production = onnx.load_from_string(data)
    ensemble = card.get("ensemble")
    if not ensemble:
        config = Config(**card["config"])
        return production, to_inside_onnx(params_from_onnx(production), config), None
    config = Config(**{**card["config"], "hidden": ensemble["hidden"]})   # the card's hidden: the state's width
    members = stored_members(production, config.layers, config.hidden)
    return with_member_logits(production, len(members)), to_inside_onnx_ensemble(members, config), members


def main(argv=None) -> int:
    parser = ArgParser(prog="export.inspect_export", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="build/model/tinyllm.onnx", help="the trained model (its card beside it)")
    args = parser.parse_args(argv)
    source = Path(args.model)
    try:
        data = source.read_bytes()
        card = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"export.inspect_export: error: cannot read {source} and its card ({e}); run `make model` "
              "(`make models` for the agent model)",
              file=sys.stderr)
        return 2
    try:
        production, proto, members = _inspection_graph(data, card)
    except Exception as e:   # protobuf's DecodeError, a card without config, a graph without a member's tensor...
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        print(f"export.inspect_export: error: {source} and its card are not a TinyLLM model ({type(e).__name__}: "
              f"{first}); run `make model` (`make models` for the agent model)", file=sys.stderr)
        return 2
    ensemble = card.get("ensemble")
    if ensemble and len(members) != len(ensemble["members"]):
        print(f"export.inspect_export: error: {source} holds {len(members)} members, its card "
              f"{len(ensemble['members'])}", file=sys.stderr)
        return 1
    story_ids = [card["vocab"].index(ch) for ch in load_story(STORY_PATH)[:200]]
    diff = parity(session_for(proto), session_for(production), story_ids)
    if diff > TOLERANCE:
        print(f"export.inspect_export: error: the inspection graph differs from {source} by {diff:.2e}", file=sys.stderr)
        return 1
    out = source.with_name(source.stem + "-inside.onnx")
    onnx_bytes = proto.SerializeToString()
    inside_card = {"format": CARD_FORMAT, "vocab": card["vocab"], "config": card["config"],
                   "stages": list(STAGES), "onnx_file": out.name,
                   "onnx_sha256": hashlib.sha256(onnx_bytes).hexdigest(),
                   "weights_from": {"onnx_file": source.name, "onnx_sha256": hashlib.sha256(data).hexdigest()},
                   "max_abs_diff": diff}
    if ensemble:                        # how to read it: N members of `hidden` units each, side by side
        inside_card["ensemble"] = {"members": len(members), "hidden": ensemble["hidden"],
                                   "embed": card["config"]["embed"], "weights": ensemble.get("weights", "float32")}
    for key in ("reads_from", "number_slots"):   # how the model reads a prompt (lllm.model.generate.model_view)
        if key in card:
            inside_card[key] = card[key]
    write_atomic(out, onnx_bytes)
    write_atomic(out.with_suffix(".json"), (json.dumps(inside_card, indent=1) + "\n").encode())
    print(f"wrote {out} (the inspection graph; largest difference from {source.name}: {diff:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
