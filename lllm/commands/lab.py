"""Command line · `lllm lab`: how often the agent really succeeds, by category, and the before/after table.

    python -m lllm lab --predictor tinyllm
    python -m lllm lab --before-after
    python -m lllm lab --order --also rule
"""

from __future__ import annotations

import json

from lllm.commands.args import UsageError, add_predictor_args, predictor_from_args
from lllm.labs.reliability import CATEGORIES, SUITE, run_lab


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("lab", help="measure how often the agent really succeeds",
                              description=f"Run the ReAct agent on {len(SUITE)} goals and report success "
                                          "overall, per category, and every failure.")
    add_predictor_args(p)
    p.add_argument("--category", action="append", choices=sorted(CATEGORIES),
                   help="run only this category (repeatable)")
    p.add_argument("--max-steps", type=int, default=4, help="steps per case (default 4)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--before-after", action="store_true",
                   help="instead: the story model versus the agent-tuned TinyLLM on the factory's held-out "
                        "goals, greedy, no forcing (needs `make model agent-model`)")
    p.add_argument("--per-group", type=int, default=10,
                   help="with --before-after: held-out goals per (family, phrasing) group (default 10)")
    p.add_argument("--order", action="store_true",
                   help="instead: the agent-tuned brains on stories told out of order (five held-out families) and "
                        "on the held-out structure set, per family, with 95%% intervals (needs `make agent-model`)")
    p.add_argument("--also", action="append", default=[], metavar="SPEC",
                   help="with --order: one more brain to measure beside them (repeatable), e.g. rule")
    p.add_argument("--per-family", type=int, default=30,
                   help="with --order: goals per family (default 30)")
    p.set_defaults(run=run)


ORDER_BRAINS = (("agent-tuned TinyLLM", "tinyllm-agent"),)     # the brains trained to act


def print_order(per_family: int, seed: int, also: list[str]) -> int:
    """Each brain, greedy, on the order families and the structure set: right answers (exact) with 95% intervals."""
    from lllm.labs.heldout import grammar, order, structure
    from lllm.predictors import make_predictor
    try:
        brains = {name: make_predictor(spec, temperature=0) for name, spec in ORDER_BRAINS + tuple((s, s) for s in also)}
    except ValueError as error:
        raise UsageError(f"--order: {error}") from None
    goals, shapes = order.make_goals(per_family, seed), structure.make_goals(per_family, seed)
    print(f"Stories told out of order: {per_family} goals per family (seed {seed}), the right answer exactly, "
          "95% Wilson intervals")
    print(order.order_table({name: grammar.evaluate(p, goals) for name, p in brains.items()}))
    print(f"\nThe held-out structure set: {per_family} goals per family (seed {seed}), scored the same way")
    print(order.order_table({name: grammar.evaluate(p, shapes) for name, p in brains.items()}, grammar.FAMILIES))
    return 0


def run(args) -> int:
    if args.max_steps < 1:
        raise UsageError(f"--max-steps must be >= 1, got {args.max_steps}")
    if args.order:
        if args.per_family < 1:
            raise UsageError(f"--per-family must be >= 1, got {args.per_family}")
        return print_order(args.per_family, args.seed or 0, args.also)
    if args.before_after:
        if args.per_group < 1:
            raise UsageError(f"--per-group must be >= 1, got {args.per_group}")
        from lllm.commands.factory import print_before_after
        return print_before_after(args.per_group, args.seed or 0, flag="--before-after")
    try:
        predictor = predictor_from_args(args)
    except ValueError as error:
        raise UsageError(str(error))
    cases = [c for c in SUITE if not args.category or c.category in args.category]
    report = run_lab(predictor, cases, max_steps=args.max_steps, name=args.predictor)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.format())
    return 0
