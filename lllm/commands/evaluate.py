"""Command line · `lllm evaluate`: grade whole trajectories with a rubric, over several seeds.

    python -m lllm evaluate --predictor rule --seeds 3
"""

from __future__ import annotations

import json

from lllm.commands.args import UsageError, add_predictor_args, check_sampling_args
from lllm.labs.evaluator import evaluate_seeds
from lllm.labs.reliability import SUITE


def _seeds(text: str) -> list[int]:
    import argparse
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("evaluate", help="grade whole trajectories with a rubric, over several seeds",
                              description="Score every trajectory (format, tool, args, answer, efficiency) and "
                                          "report mean and spread across seeds.")
    add_predictor_args(p)
    p.add_argument("--seeds", type=_seeds, default=[0, 1, 2], help="comma-separated sampling seeds (default 0,1,2)")
    p.add_argument("--category", action="append", choices=sorted({c.category for c in SUITE}),
                   help="grade only this category (repeatable)")
    p.add_argument("--max-steps", type=int, default=4, help="steps per case (default 4)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    from lllm.predictors import make_predictor
    if not args.seeds:
        raise UsageError("--seeds needs at least one seed")
    if args.max_steps < 1:
        raise UsageError(f"--max-steps must be >= 1, got {args.max_steps}")
    check_sampling_args(args)
    try:
        make_predictor(args.predictor, temperature=args.temperature, seed=args.seeds[0])
    except ValueError as error:
        raise UsageError(str(error))
    cases = [c for c in SUITE if not args.category or c.category in args.category]
    report = evaluate_seeds(lambda seed: make_predictor(args.predictor, temperature=args.temperature, seed=seed),
                            args.seeds, cases, args.max_steps, name=args.predictor)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.format())
    return 0
