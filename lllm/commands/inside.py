"""Command line · `lllm inside`: every stage inside TinyLLM at one position of a generated text.

The terminal twin of the page /tinyllm/inside/: the same inspection model (onnxruntime here,
onnxruntime-web there), the same sampler and random numbers, so the same prompt, seed and
position print the numbers the page shows.

    python -m lllm inside --prompt "Once" --seed 1 --length 40 --position 12
    python -m lllm inside --prompt "Once" --seed 1 --position 12 --temperature 1.5 --top-k 5 --json
    python -m lllm inside --predictor tinygpt --prompt "Once" --seed 1 --length 100 --position 60
    python -m lllm inside --predictor tinyllm-agent --prompt "Question: What is 7 plus 5?" --json

With `--predictor tinygpt` it shows TinyGPT instead (the page's model switch): at one position,
every head's attention over the characters before it, and what the key/value cache saved.

With `--predictor tinyllm-agent` it shows the agent-tuned TinyLLM (`make models` writes its
inspection graph): an ensemble, so each stage holds its members' numbers side by side, and the
view lists each member's own vote. It writes as the agent predictor does: it reads the prompt as
that predictor does (from the last `Question: ` line, numbers as slots), greedy unless
--temperature is given, up to 200 characters, stopping at "Observation:" or a blank line; the JSON's
`completion` is what the predictor returns.
"""

from __future__ import annotations

import json
import sys

from lllm.commands.args import UsageError, check_sampling_args, finite_float, non_negative_int

FIRST = 8   # how many values of each stage the text output prints (--json has them all)
AGENT_LENGTH = 200   # the agent predictor's max_new_tokens (lllm.model.onnx_backend.from_onnx)


def add_cli(subparsers) -> None:
    from lllm.model.inside import INSIDE_AGENT_MODEL, INSIDE_MODEL
    p = subparsers.add_parser("inside", help="every stage inside TinyLLM at one position of a text",
                              description="Generate a text with TinyLLM's inspection model and print every stage at one "
                                          "position: input character, embedding, gates, cell and hidden state, logits, "
                                          "softmax, the top-k / top-p cut and the draw.")
    p.add_argument("--predictor", choices=["tinyllm", "tinyllm-agent", "tinygpt"], default="tinyllm",
                   help="TinyLLM's stages (default), the agent-tuned TinyLLM's (an ensemble: every member's), "
                        "or TinyGPT's attention, head by head")
    p.add_argument("--model", help=f"the .onnx, its card beside it (default {INSIDE_MODEL}, {INSIDE_AGENT_MODEL} "
                                   "or build/model/tinygpt.onnx)")
    p.add_argument("--prompt", default="Once", help="text to continue (default 'Once')")
    p.add_argument("--length", type=non_negative_int, default=None,
                   help=f"characters to generate (default 40; tinyllm-agent: up to {AGENT_LENGTH}, as its predictor)")
    p.add_argument("--seed", type=non_negative_int, default=0, help="random seed (the page's seed box)")
    p.add_argument("--position", type=int, default=None,
                   help="0-based position in the text (default: the prompt's last character, the first draw)")
    p.add_argument("--temperature", type=finite_float, default=None,
                   help="0 = greedy (default 0.8; tinyllm-agent: 0, as its predictor)")
    p.add_argument("--top-k", type=non_negative_int, default=0, help="keep only the k likeliest (0 = off)")
    p.add_argument("--top-p", type=finite_float, default=1.0, help="keep the likeliest up to this mass, in (0, 1] (1 = off)")
    p.add_argument("--json", action="store_true", help="print every number as one JSON object")
    p.set_defaults(run=run_inside)


def run_inside(args) -> int:
    from lllm.model.inside import INSIDE_AGENT_MODEL, INSIDE_MODEL, InsideModel, position_view, trace
    from lllm.model.onnx_backend import ModelError
    from lllm.predictors.specs import TINYLLM_AGENT_STOP
    agent = args.predictor == "tinyllm-agent"
    if args.temperature is None:
        args.temperature = 0.0 if agent else 0.8
    if args.length is None:
        args.length = AGENT_LENGTH if agent else 40
    check_sampling_args(args)
    if args.predictor == "tinygpt":
        return run_inside_gpt(args)
    try:
        model = InsideModel(args.model or (INSIDE_AGENT_MODEL if agent else INSIDE_MODEL))
    except ModelError as e:
        hint = "; `make models` builds the agent model's" if agent and "make models" not in str(e) else ""
        raise UsageError(f"--model {e}{hint}") from None
    t = trace(model, args.prompt, args.length, args.seed, args.temperature, args.top_k, args.top_p,
              stop=TINYLLM_AGENT_STOP if agent else ())
    position = t.prompt_length - 1 if args.position is None else args.position
    try:
        view = position_view(t, position)
    except ValueError as e:
        raise UsageError(f"--{e}") from None
    if t.dropped:
        print(f"note: dropped characters not in the model's vocabulary: {', '.join(map(repr, t.dropped))}",
              file=sys.stderr)
    if args.json:
        extra = {"completion": t.completion, "stopped_by": t.stopped_by} if agent else {}
        print(json.dumps({**view, "prompt": args.prompt, "length": args.length, "model_runs": model.runs, **extra},
                         ensure_ascii=False))
        return 0
    print(render(view))
    return 0


def _first(values) -> str:
    return " ".join(f"{v:+.4f}" for v in values[:FIRST]) + (" ..." if len(values) > FIRST else "")


def render(view: dict) -> str:
    """The view as the text the terminal prints, stage by stage."""
    text, p = view["text"], view["position"]
    lines = [f"text      {text!r}",
             f"position  {p} (character {p + 1} of {len(text)}, as the page counts): reads {view['char']!r} (id {view['id']})",
             f"embedding ({len(view['embedding'])} numbers)  {_first(view['embedding'])}"]
    names = {"input_gate": "input gate i", "forget_gate": "forget gate f", "output_gate": "output gate o",
             "candidate": "candidate g", "cn": "cell c", "hn": "hidden h"}
    members = view.get("members")
    if members:
        width = len(view["layers"][0]["hn"]) // len(members)
        lines.append(f"ensemble  {len(members)} members of {width} units, side by side in every stage "
                     f"(member k at k*{width}); below, member 0's first numbers")
    for l, layer in enumerate(view["layers"]):
        for key, name in names.items():
            lines.append(f"layer {l} {name:14s} {_first(layer[key])}")
    knobs = f"temperature {view['temperature']:g}, top-k {view['top_k']}, top-p {view['top_p']:g}"
    lines.append(f"logits ({len(view['logits'])} numbers)  {_first(view['logits'])}")
    for m in members or ():
        lines.append(f"member {m['member']}  votes {m['argmax']!r}; top:  "
                     + "  ".join(f"{ch!r} {prob:.4f}" for ch, prob in m["top"][:3]))
    lines.append(f"softmax ({knobs}), top {len(view['top'])}:  "
                 + "  ".join(f"{ch!r} {prob:.4f}" for ch, prob in view["top"]))
    nxt, d = view["next"], view["draw"]
    if d is None:
        lines.append(f"next      {nxt['char']!r}, given by the prompt (nothing drawn)")
        return "\n".join(lines)
    lines.append(f"cut       {len(d['kept'])} characters kept, their weights summing to {d['total']:.6f}")
    if d["uniform"] is None:
        lines.append(f"draw {d['index']}    greedy: the largest logit wins (argmax), no random number -> {d['char']!r}")
    else:
        lines.append(f"draw {d['index']}    u = {d['uniform']:.6f}, target u * total = {d['target']:.6f} "
                     f"-> {d['char']!r}")
    return "\n".join(lines)


# ---- TinyGPT: attention, head by head ------------------------------------------------------------

def run_inside_gpt(args) -> int:
    from lllm.model.gpt_backend import DEFAULT_GPT, GPTBackend
    from lllm.model.gpt_inside import cache_saving, position_view, trace
    try:
        backend = GPTBackend(args.model or DEFAULT_GPT)
    except ValueError as e:
        raise UsageError(f"--model {e}") from None
    t = trace(backend, args.prompt, args.length, args.seed, args.temperature, args.top_k, args.top_p)
    try:
        view = position_view(t, len(t.ids) - 1 if args.position is None else args.position)
    except ValueError as e:
        raise UsageError(f"--{e}") from None
    saving = cache_saving(t.prompt_length, args.length, backend.block, backend.refill)
    if args.json:
        print(json.dumps({**view, "fed": t.fed, "cache": saving}, ensure_ascii=False))
        return 0
    print(f"text      {view['text']!r}\nposition  {view['position']}: reads {view['char']!r}, "
          f"attends over {len(view['keys'])} characters from position {view['first_key']}")
    for l, heads in enumerate(view["layers"]):
        for h, row in enumerate(heads):
            top = sorted(range(len(row)), key=lambda j: -row[j])[:4]
            print(f"layer {l} head {h}  " + "  ".join(
                f"{view['keys'][j]!r}@{view['first_key'] + j} {row[j]:.2f}" for j in top))
    print(f"cache     {t.fed} positions computed ({saving['refills']} refills); without a cache "
          f"{saving['without_cache']}")
    return 0
