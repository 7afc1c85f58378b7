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
from export.onnx_export import IR_VERSION, OPSET, params_from_onnx, run, session_for
from lllm.commands.args import ArgParser

__all__ = ["CARD_FORMAT", "STAGES", "to_inside_onnx", "step", "parity", "main"]

CARD_FORMAT = "lllm.tinyllm-inside/1"
STAGES = ("input_gate", "forget_gate", "output_gate", "candidate", "cn", "hn")  # per layer, in order
TOLERANCE = 1e-4   # largest |difference| from the production graph accepted (float32 rounding)


# ---- the graph ---------------------------------------------------------------------------------

def _const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


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
        # --8<-- [start:inside-cell]
        inits += [_const(p + "W_x", f32(params[f"W_x{l}"])), _const(p + "W_h", f32(params[f"W_h{l}"])),
                  _const(p + "b", f32(params[f"b{l}"])), _const(p + "at", np.array(l, np.int64))]
        nodes += [
            helper.make_node("Gather", ["h0", p + "at"], [p + "h0"], axis=0),      # (B, H)
            helper.make_node("Gather", ["c0", p + "at"], [p + "c0"], axis=0),
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
    """Largest |difference| in logits, hn and cn between the two graphs reading `ids` (one text)."""
    logits, (hn, cn) = run(production, [ids])                 # (1, T, V), (L, 1, H)
    state, worst = None, 0.0
    for t, i in enumerate(ids):
        out = step(inside, [i], state)
        worst = max(worst, float(np.max(np.abs(out["logits"][0] - logits[0, t]))))
        state = (out["hn"], out["cn"])
    for mine, theirs in zip(state, (hn, cn)):
        worst = max(worst, float(np.max(np.abs(mine - theirs))))
    return worst


# ---- the command: the inspection model and its card, beside the trained one ------------------------

def main(argv=None) -> int:
    parser = ArgParser(prog="export.inspect_export", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="build/model/tinyllm.onnx", help="the trained model (its card beside it)")
    args = parser.parse_args(argv)
    source = Path(args.model)
    try:
        data = source.read_bytes()
        card = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"export.inspect_export: error: cannot read {source} and its card ({e}); run `make model`",
              file=sys.stderr)
        return 2
    from export.model import Config
    config = Config(**card["config"])
    production = onnx.load_from_string(data)
    proto = to_inside_onnx(params_from_onnx(production), config)
    story_ids = [card["vocab"].index(ch) for ch in load_story(STORY_PATH)[:200]]
    diff = parity(session_for(proto), session_for(production), story_ids)
    if diff > TOLERANCE:
        print(f"export.inspect_export: error: the inspection graph differs from {source} by {diff:.2e}", file=sys.stderr)
        return 1
    out = source.with_name("tinyllm-inside.onnx")
    onnx_bytes = proto.SerializeToString()
    inside_card = {"format": CARD_FORMAT, "vocab": card["vocab"], "config": card["config"],
                   "stages": list(STAGES), "onnx_file": out.name,
                   "onnx_sha256": hashlib.sha256(onnx_bytes).hexdigest(),
                   "weights_from": {"onnx_file": source.name, "onnx_sha256": hashlib.sha256(data).hexdigest()},
                   "max_abs_diff": diff}
    write_atomic(out, onnx_bytes)
    write_atomic(out.with_suffix(".json"), (json.dumps(inside_card, indent=1) + "\n").encode())
    print(f"wrote {out} (the inspection graph; largest difference from {source.name}: {diff:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
