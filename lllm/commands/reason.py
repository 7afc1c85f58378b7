"""Command line · `lllm reason`: reasoning frameworks compared on Game of 24 (or the multi-hop task), with 95% intervals and costs.

    python -m lllm reason
    python -m lllm reason --task brookfield --frameworks io,cot,react
    python -m lllm reason --framework tot-bfs --puzzle 900 --tree
"""

from __future__ import annotations

import json

from lllm.commands.args import UsageError, finite_float, non_negative_int
from dataclasses import asdict
from lllm.labs.reasoning_bench.benchmark import DEFAULT_FRAMEWORKS, FRAMEWORKS, SWEEP_LEVELS, TASKS, benchmark, make_environment, make_framework, stand_in, sweep
from lllm.labs.reasoning_bench.report import format_chart, format_sweep, format_table, format_tree, format_verdict, result_record, summarize
from lllm.reasoning.agent import Agent
from lllm.reasoning.search_tree import format_search_tree, search_tree, search_tree_record


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("reason", help="compare reasoning frameworks (IO ... ToT, GoT, RAP, Fleet of Agents)",
                              description="Run reasoning frameworks on Game of 24 or the Brookfield questions and "
                                          "print success (with a bootstrap 95%% interval) and what the model cost. "
                                          "The default model is a stand-in (a program that errs at --error-rate), "
                                          "not an LLM; --predictor names a real one.")
    p.add_argument("--task", default="game24", help=f"{' or '.join(TASKS)} (default game24)")
    p.add_argument("--framework", default="all", help=f"comma-separated: {', '.join(FRAMEWORKS)}, or all (default)")
    p.add_argument("--split", default="test", help="game24: train, validation or test (rows 900-999, default); brookfield: test")
    p.add_argument("--model", choices=["simulated", "tinyllm"], default="simulated", help="default simulated (the stand-in)")
    p.add_argument("--predictor", default=None, metavar="SPEC", help="a real model instead: http:URL, tinyllm[:PATH], scripted:FILE, ...")
    p.add_argument("--onnx", default=None, help="the TinyLLM .onnx file for --model tinyllm")
    p.add_argument("--error-rate", type=finite_float, default=0.5, help="stand-in's mistake rate per step, in [0, 1] (default 0.5)")
    p.add_argument("--value-noise", type=finite_float, default=None, help="stand-in's chance of a random value judgment (default: the error rate)")
    p.add_argument("--seeds", type=non_negative_int, default=3, help="repeats (seeds 0, 1, ...) (default 3)")
    p.add_argument("--limit", type=non_negative_int, default=None, help="only the first N puzzles of the split")
    p.add_argument("--puzzle", type=non_negative_int, default=None, help="run the (first) --framework once on this row and print its tree")
    p.add_argument("--tree", action="store_true", help="run the (first) --framework once (on --puzzle, else the split's first row) "
                                                       "and print the search tree the reasoning lab draws, the answer's path marked")
    p.add_argument("--seed", type=non_negative_int, default=0, help="the model's seed for a --puzzle or --tree run (default 0; the lab's seed)")
    p.add_argument("--max-tokens", type=non_negative_int, default=None, help="reply limit sent to the model (default 256 for http, 80 for TinyLLM)")
    p.add_argument("--workers", type=non_negative_int, default=None, help="parallel samples of one prompt (default 4 for http, else 1)")
    p.add_argument("--sweep", choices=["value-noise"], default=None, help="success as the stand-in's evaluator worsens")
    p.add_argument("--chart", action="store_true", help="also draw success against model calls")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(run=run_reason)


def _model_factory(args):
    """seed -> Predictor, a label for it, and the reply limit and workers it wants."""
    for name, p in (("--error-rate", args.error_rate), ("--value-noise", args.value_noise)):
        if p is not None and not 0 <= p <= 1:
            raise UsageError(f"{name} must be in [0, 1], got {p}")
    spec = args.predictor
    if spec is None and args.model == "tinyllm":
        spec = f"tinyllm:{args.onnx}" if args.onnx else "tinyllm"
    if spec is None:
        noise = args.error_rate if args.value_noise is None else args.value_noise
        label = f"stand-in (a program, not an LLM), error rate {args.error_rate}, value noise {noise}"
        return stand_in(args.task, args.error_rate, args.value_noise), label, None, 1
    from lllm.predictors.specs import make_predictor
    http = spec.startswith(("http:", "https:"))
    try:
        first = make_predictor(spec)                           # a bad spec fails here, in one line
    except ValueError as e:
        raise UsageError(str(e)) from None
    if http:
        return (lambda seed: first), f"predictor {spec}", 256, 4          # one server; a fresh cache per repeat
    return (lambda seed: make_predictor(spec, temperature=0.8, seed=seed)), f"predictor {spec}", 80, 1


def run_reason(args) -> int:
    from lllm.reasoning.data import DataError
    if args.task not in TASKS:
        raise UsageError(f"--task {args.task!r} is unknown; choose from {', '.join(TASKS)}")
    names = DEFAULT_FRAMEWORKS[args.task] if args.framework == "all" else [n.strip() for n in args.framework.split(",")]
    unknown = [n for n in names if n not in FRAMEWORKS]
    if unknown:
        raise UsageError(f"--framework {unknown[0]!r} is unknown; choose from {', '.join(FRAMEWORKS)} or all")
    if args.seeds < 1:
        raise UsageError("--seeds must be at least 1")
    make_model, label, max_tokens, workers = _model_factory(args)
    max_tokens = args.max_tokens if args.max_tokens is not None else max_tokens
    workers = args.workers or workers
    environment = make_environment(args.task)
    try:
        first_row = environment.data.get_set_idxs(args.split)[0]
    except DataError as e:
        raise UsageError(f"--split: {e}") from None
    if args.puzzle is not None or args.tree:
        puzzle = first_row if args.puzzle is None else args.puzzle
        if puzzle >= len(environment.data):
            raise UsageError(f"--puzzle must be below {len(environment.data)}, got {puzzle}")
        framework = make_framework(names[0], args.seed, args.task)
        framework.initialize(Agent(make_model(args.seed), max_new_tokens=max_tokens, workers=workers), environment)
        result = framework.run(puzzle)
        if args.tree:
            search = search_tree(result, environment)
            print(json.dumps(search_tree_record(search)) if args.json else format_search_tree(search) + "\n" + format_verdict(result))
        else:
            print(json.dumps(result_record(result)) if args.json else format_tree(result))
        return 0
    options = dict(split=args.split, seeds=range(args.seeds), limit=args.limit, environment=environment,
                   max_new_tokens=max_tokens, task=args.task, workers=workers)
    if args.sweep:
        if args.predictor or args.model != "simulated":
            raise UsageError("--sweep varies the stand-in's evaluator; it cannot be used with a real model")
        table = sweep(names, SWEEP_LEVELS, args.error_rate, **options)
        if args.json:
            print(json.dumps({"task": args.task, "split": args.split, "error_rate": args.error_rate, "levels": SWEEP_LEVELS,
                              "sweep": {n: [asdict(s) for s in ss] for n, ss in table.items()}}))
        else:
            print(f"{args.task}, {args.split} split, stand-in error rate {args.error_rate}: success as value noise grows")
            print(format_sweep(SWEEP_LEVELS, table))
        return 0
    try:
        rows = benchmark(names, make_model=make_model, error_rate=args.error_rate, value_noise=args.value_noise, **options)
    except RuntimeError as e:              # HttpPredictorError: the server is down or answers wrongly
        raise UsageError(f"--predictor: {e}") from None
    summaries = summarize(rows)
    if args.json:
        print(json.dumps({"task": args.task, "split": args.split, "model": label, "error_rate": args.error_rate,
                          "rows": [{**asdict(r), "solved": r.solved, "puzzles": r.puzzles} for r in rows],
                          "summary": [asdict(s) for s in summaries]}))
        return 0
    print(f"{args.task}, {args.split} split ({rows[0].puzzles} puzzles), {label}, {args.seeds} repeat(s)")
    print(format_table(summaries))
    print(f"wall time per puzzle: " + ", ".join(f"{s.framework} {s.seconds:.3f}s" for s in summaries))
    if args.chart:
        print()
        print(format_chart(summaries))
    return 0
