"""Command line · `lllm factory`: verified ReAct trajectories, the synthetic training data, written whole to a folder.

    python -m lllm factory --n 20 --out build/factory
    python -m lllm factory --evaluate
"""

from __future__ import annotations

import os

from lllm.commands.args import UsageError, add_predictor_args, non_negative_int, predictor_from_args
from lllm.labs.factory.episodes import PredictorCritic, rule_critique, run_factory, write_run


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("factory", help="make verified ReAct trajectories (synthetic training data)",
                              description="Run a predictor on fresh tasks, critique and verify every run, and "
                                          "write the kept episodes, the rejected ones and a training corpus.")
    p.add_argument("--episodes", type=non_negative_int, default=200, help="training tasks to try (default 200)")
    p.add_argument("--out", required=True, help="output folder")
    add_predictor_args(p, default="teacher")
    p.epilog = "--predictor teacher (the default) demonstrates each task's own plan; any other spec acts instead."
    p.add_argument("--critic", default="rule", help="'rule' (the written heuristic) or 'self' (ask the predictor)")
    p.add_argument("--min-score", type=float, default=0.5, help="lowest critique score kept (default 0.5)")
    p.add_argument("--held-out", type=non_negative_int, default=10, help="goals per held-out group (default 10)")
    p.add_argument("--pairs", action="store_true", help="also write chosen / rejected pairs")
    p.add_argument("--evaluate", action="store_true",
                   help="then compare the story model and the agent-tuned model on the held-out test goals")
    p.set_defaults(run=run)


def run(args) -> int:
    if not 0 <= args.min_score <= 1:
        raise UsageError(f"--min-score must be between 0 and 1, got {args.min_score}")
    if args.critic not in ("rule", "self"):
        raise UsageError(f"--critic must be 'rule' or 'self', got {args.critic!r}")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} exists and is not a folder")
    if args.predictor == "teacher" and args.critic == "self":
        raise UsageError("--critic self asks the predictor to critique: choose a --predictor other than teacher")
    try:
        predictor = None if args.predictor == "teacher" else predictor_from_args(args)
    except ValueError as error:
        raise UsageError(str(error))
    critic = rule_critique if args.critic == "rule" else PredictorCritic(predictor)
    run = run_factory(args.episodes, predictor, seed=args.seed or 0, critic=critic,
                      min_score=args.min_score, held_out=args.held_out)
    files = write_run(run, args.out, pairs=args.pairs, seed=args.seed or 0)
    print(run.summary())
    print(f"wrote {', '.join(files)} to {args.out}")
    if not run.kept:
        print("lllm factory: kept no episode: the corpus is empty (see rejected.jsonl for why)")
        return 1
    if args.evaluate:
        return print_before_after(args.held_out or 10, args.seed or 0)
    return 0


def print_before_after(per_group: int, seed: int, flag: str = "--evaluate") -> int:
    """The story model and the agent-tuned model, greedy, on the held-out test goals (also `lllm lab --before-after`)."""
    from lllm.labs.factory.before_after import BEFORE_AFTER, before_after_reports, before_after_text
    from lllm.predictors import make_predictor
    try:
        models = {name: make_predictor(spec, temperature=0) for name, spec in BEFORE_AFTER}
    except ValueError as error:
        raise UsageError(f"{flag}: {error}") from None
    print(before_after_text(before_after_reports(models, per_group, seed)))
    return 0
