"""Command line · `lllm generate`: continue a prompt with TinyLLM or TinyGPT (onnxruntime), as text or JSON.

    python -m lllm generate --prompt "Once" --seed 1
    python -m lllm generate --predictor tinygpt --prompt "Once" --seed 1
    python -m lllm generate --prompt "Once" --temperature 0 --json
    python -m lllm generate --prompt "The" --show-probs --max-new-tokens 20
"""

from __future__ import annotations

import json
import sys

from lllm.commands.args import UsageError, check_sampling_args, finite_float, non_negative_int


def add_cli(subparsers) -> None:
    from lllm.model.onnx_backend import DEFAULT_MODEL
    p = subparsers.add_parser("generate", help="continue a prompt with TinyLLM (onnxruntime)",
                              description="Continue a prompt with TinyLLM. Prints the prompt followed by the "
                                          "completion, or a JSON object with --json.")
    p.add_argument("--predictor", choices=["tinyllm", "tinygpt"], default="tinyllm",
                   help="the model: TinyLLM (an LSTM, the default) or TinyGPT (a transformer, with a key/value cache)")
    p.add_argument("--model", help=f"the .onnx file; its card is the .json beside it (default {DEFAULT_MODEL}, "
                                   "or build/model/tinygpt.onnx with --predictor tinygpt)")
    p.add_argument("--prompt", default="Once", help="text to continue (default 'Once')")
    p.add_argument("--max-new-tokens", type=non_negative_int, default=200, help="characters to generate (default 200)")
    p.add_argument("--temperature", type=finite_float, default=0.8, help="0 = greedy; higher = more random (default 0.8)")
    p.add_argument("--top-k", type=non_negative_int, default=0, help="sample only from the k likeliest (0 = off)")
    p.add_argument("--top-p", type=finite_float, default=1.0, help="nucleus sampling mass in (0, 1] (1 = off)")
    p.add_argument("--seed", type=non_negative_int, default=0, help="random seed; the page gives the same text for the same seed")
    p.add_argument("--mode", choices=["carry", "window"], default="carry", help="carry the state: LSTM (h, c) or TinyGPT's cache (default); or re-run a window")
    p.add_argument("--show-probs", action="store_true", help="show the top-5 next-character probabilities at each step")
    p.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    p.set_defaults(run=run_generate)


def run_generate(args) -> int:
    from lllm.model.generate import generate
    from lllm.model.gpt_backend import DEFAULT_GPT, GPTBackend
    from lllm.model.onnx_backend import DEFAULT_MODEL, ModelError, OnnxBackend
    check_sampling_args(args)
    gpt = args.predictor == "tinygpt"
    args.model = args.model or (DEFAULT_GPT if gpt else DEFAULT_MODEL)
    try:
        backend = GPTBackend(args.model) if gpt else OnnxBackend(args.model)
    except (ModelError, ValueError) as e:
        raise UsageError(f"--model {e}") from None
    result = generate(backend, backend.tokenizer, args.prompt, args.max_new_tokens, args.temperature,
                      args.top_k, args.top_p, seed=args.seed, mode=args.mode, show_top=5 if args.show_probs else 0)
    if result.dropped:
        shown = ", ".join(repr(c) for c in result.dropped)
        print(f"note: dropped characters not in the model's vocabulary: {shown}", file=sys.stderr)
    if args.json:
        record = {"prompt": args.prompt, "completion": result.completion, "dropped": result.dropped,
                  "predictor": args.predictor, "model": args.model, "seed": args.seed, "temperature": args.temperature,
                  "top_k": args.top_k, "top_p": args.top_p, "max_new_tokens": args.max_new_tokens,
                  "mode": args.mode}
        if args.show_probs:
            record["top"] = [[[ch, round(p, 6)] for ch, p in step] for step in result.top]
        print(json.dumps(record, ensure_ascii=False))
        return 0
    print(args.prompt + result.completion)
    if args.show_probs:
        print("\nstep  chosen  top-5 next characters (probability)")
        for step, (chosen, top) in enumerate(zip(result.completion, result.top), 1):
            row = "  ".join(f"{ch!r} {p:.2f}" for ch, p in top)
            print(f"{step:4d}  {chosen!r:6}  {row}")
    return 0
