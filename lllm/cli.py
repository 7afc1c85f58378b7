"""The `python -m lllm` command line: one dispatcher, one subcommand per module.

Each command module defines `add_cli(subparsers)`, which adds its subparser and sets
`run=callable(args) -> exit status`. Errors in what the user typed are one line on stderr
(`lllm generate: error: ...`) and exit status 2 (`main` raises `SystemExit(2)`, as argparse
does for an unknown option) — never a traceback wall.

Usage:

    python -m lllm generate --prompt "Once" --seed 1
    python -m lllm generate --prompt "Once" --temperature 0 --json
    python -m lllm --help
"""

from __future__ import annotations

import argparse
import importlib
import ipaddress
import json
import sys

# Modules that add a subcommand (each defines add_cli). Listed, not discovered: no import magic.
COMMAND_MODULES = [
    "lllm.cli",
    "lllm.labs.reasoning_bench.benchmark",
    "lllm.agents.react",
    "lllm.labs.reliability",
    "lllm.labs.evaluator",
    "lllm.labs.inference_playground",
    "lllm.labs.memory_explainer",
    "lllm.labs.factory.episodes",
    "lllm.labs.typed_workflow",
    "lllm.labs.human_in_loop",
    "lllm.labs.debate.panel",
    "lllm.runtimes.native.create",
    "lllm.runtimes.native.inspection",
    "lllm.runtimes.native.service",
]


# ---- a parser whose errors are one line ----------------------------------------------------------

class UsageError(Exception):
    """Raised by a command for bad input; printed as one line, exit status 2."""


class ArgParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default prints the whole usage block first
        self.exit(2, f"{self.prog}: error: {message}\n")


def int_at_least(low: int):
    """An argparse `type` accepting integers >= low, with a message naming the problem."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value
    return parse


non_negative_int = int_at_least(0)
positive_int = int_at_least(1)


def finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def argument_type(check, keep: bool = False):
    """An argparse `type` from a checker that raises ValueError; `keep` returns the text unchanged."""
    def parse(text: str):
        try:
            value = check(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        return text if keep else value
    parse.__name__ = getattr(check, "__name__", "value")
    return parse


# ---- serving: where to listen, how much to log -----------------------------------------------------

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def serve_host(text) -> str:
    """A host name or address to listen on: `127.0.0.1`, `localhost`, `::1`; not a URL, path or host:port."""
    if not isinstance(text, str) or not text or text != text.strip():
        raise ValueError(f"serve host must be a non-empty name or address without surrounding spaces, got {text!r}")
    if any(ch.isspace() or ch in "/\\" for ch in text):
        raise ValueError(f"serve host must be a host name or address, not a URL or path: {text!r}")
    if ":" in text:
        try:
            ipaddress.IPv6Address(text)
        except ValueError:
            raise ValueError(f"serve host must be a host name or address, not host:port ({text!r}); "
                             "give the port with --port") from None
    return text


def serve_port(text) -> int:
    try:
        port = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"serve port must be an integer between 1 and 65535, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise ValueError(f"serve port must be an integer between 1 and 65535, got {port}")
    return port


def serve_log_level(text) -> str:
    if not isinstance(text, str) or text.lower() not in LOG_LEVELS:
        raise ValueError(f"serve log level must be one of {', '.join(LOG_LEVELS)}, got {text!r}")
    return text.lower()


# lllm-core's names for the checks above (its tests import them from here).
_serve_host, _serve_log_level = serve_host, serve_log_level


def load_tactic_entrypoint(entrypoint):
    """`module:attribute` -> a protocol Tactic (lllm.runtimes.native.entrypoints, loaded when used)."""
    from lllm.runtimes.native.entrypoints import load_tactic_entrypoint as load
    return load(entrypoint)


# ---- `generate` ------------------------------------------------------------------------------------

def add_cli(subparsers) -> None:
    from lllm.model.onnx_backend import DEFAULT_MODEL
    p = subparsers.add_parser("generate", help="continue a prompt with TinyLLM (onnxruntime)",
                              description="Continue a prompt with TinyLLM. Prints the prompt followed by the "
                                          "completion, or a JSON object with --json.")
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"the .onnx file; its card is the .json beside it (default {DEFAULT_MODEL})")
    p.add_argument("--prompt", default="Once", help="text to continue (default 'Once')")
    p.add_argument("--max-new-tokens", type=non_negative_int, default=200, help="characters to generate (default 200)")
    p.add_argument("--temperature", type=finite_float, default=0.8, help="0 = greedy; higher = more random (default 0.8)")
    p.add_argument("--top-k", type=non_negative_int, default=0, help="sample only from the k likeliest (0 = off)")
    p.add_argument("--top-p", type=finite_float, default=1.0, help="nucleus sampling mass in (0, 1] (1 = off)")
    p.add_argument("--seed", type=non_negative_int, default=0, help="random seed; the page gives the same text for the same seed")
    p.add_argument("--mode", choices=["carry", "window"], default="carry", help="carry the LSTM state (default) or re-run a window")
    p.add_argument("--show-probs", action="store_true", help="show the top-5 next-character probabilities at each step")
    p.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    p.set_defaults(run=run_generate)


def run_generate(args) -> int:
    from lllm.model.generate import generate
    from lllm.model.onnx_backend import ModelError, OnnxBackend
    if args.temperature < 0:
        raise UsageError(f"--temperature must be >= 0, got {args.temperature}")
    if not 0 < args.top_p <= 1:
        raise UsageError(f"--top-p must be in (0, 1], got {args.top_p}")
    try:
        backend = OnnxBackend(args.model)
    except ModelError as e:
        raise UsageError(f"--model {e}") from None
    result = generate(backend, backend.tokenizer, args.prompt, args.max_new_tokens, args.temperature,
                      args.top_k, args.top_p, seed=args.seed, mode=args.mode, show_top=5 if args.show_probs else 0)
    if result.dropped:
        shown = ", ".join(repr(c) for c in result.dropped)
        print(f"note: dropped characters not in the model's vocabulary: {shown}", file=sys.stderr)
    if args.json:
        record = {"prompt": args.prompt, "completion": result.completion, "dropped": result.dropped,
                  "model": args.model, "seed": args.seed, "temperature": args.temperature,
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


# ---- dispatch --------------------------------------------------------------------------------------

def build_parser() -> ArgParser:
    parser = ArgParser(prog="lllm", description="LLLM: learn how LLM agents work, layer by layer.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgParser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_cli(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status; a usage error exits with status 2, as argparse's own do.

    So `main([...])` returns 0 (or a command's other status) when the input was understood, and
    raises `SystemExit(2)` after one line on stderr when it was not (lllm-core's `main` does the same).
    """
    parser = build_parser()
    args = parser.parse_args(argv)                  # argparse: SystemExit(2) for an unknown option
    if not getattr(args, "run", None):
        parser.print_help()
        raise SystemExit(2)
    try:
        return args.run(args)
    except UsageError as e:
        print(f"lllm {args.command}: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print(f"lllm {args.command}: interrupted", file=sys.stderr)
        return 130
