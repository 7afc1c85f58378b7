"""Command line · `lllm playground`: the same goals for many brains — latency, speed, success.

    python -m lllm playground
"""

from __future__ import annotations

import json

from lllm.commands.args import UsageError, check_sampling_args, finite_float, non_negative_int
from dataclasses import asdict
from lllm.labs.inference_playground import compare, format_table
from lllm.labs.reliability import SUITE


def add_cli(subparsers) -> None:
    from lllm.predictors import PREDICTOR_SPECS
    p = subparsers.add_parser("playground", help="compare brains on the same goals: latency, speed, success",
                              description="Run the lab's goals through several predictors and compare "
                                          "latency, characters per second and lab success.")
    p.add_argument("--predictors", default="rule,tinyllm", metavar="SPEC,SPEC",
                   help=f"comma-separated brains, each one of: {PREDICTOR_SPECS} (default rule,tinyllm)")
    p.add_argument("--temperature", type=finite_float, default=None, help="sampling temperature (TinyLLM)")
    p.add_argument("--seed", type=non_negative_int, default=None, help="sampling seed (TinyLLM)")
    p.add_argument("--category", action="append", choices=sorted({c.category for c in SUITE}),
                   help="use only this category (repeatable)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    from lllm.predictors import make_predictor
    specs = [s.strip() for s in args.predictors.split(",") if s.strip()]
    if not specs:
        raise UsageError("--predictors needs at least one SPEC")
    check_sampling_args(args)
    try:
        predictors = {s: make_predictor(s, temperature=args.temperature, seed=args.seed) for s in specs}
    except ValueError as error:
        raise UsageError(str(error).replace("--predictor ", "--predictors ", 1))
    cases = [c for c in SUITE if not args.category or c.category in args.category]
    rows = compare(predictors, cases)
    if args.json:
        print(json.dumps([dict(asdict(r), ms_per_call=r.ms_per_call, chars_per_second=r.chars_per_second)
                          for r in rows], indent=2))
    else:
        print(f"Inference playground: {len(cases)} lab cases per predictor\n")
        print(format_table(rows))
    return 0
