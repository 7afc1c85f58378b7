"""Before / after: the story model versus the agent-tuned TinyLLM on the factory's held-out suite.

Both models run greedily (temperature 0) through the ordinary ReAct loop with the default tools;
the goals are questions, never `tool[args]`, so nothing is forced. Scores per group and overall:
format validity, right tool, right arguments, right final answer (lllm/labs/factory/before_after.py).

`--grammar` adds a second table for the agent model alone: per family, the seen grammar (the same
held-out suite: new rows of the training grammar) next to goals held out by grammar — words and
sentence shapes training never uses (lllm/labs/heldout/grammar.py) — scored by one rule: right
tool, right arguments (where a goal has a tool), right final answer exact and lenient.

Usage (after `make model agent-model`):

    .venv/bin/python bench/agent_bench.py [--per-group 20] [--seed 0] [--json FILE]
    .venv/bin/python bench/agent_bench.py --grammar [--per-family 40]     # also the held-out grammar
    .venv/bin/python bench/agent_bench.py --grammar --gallery bench/results/agent-gallery.md
                                          # and the first 3 failures per family, as the page's table
    .venv/bin/python bench/agent_bench.py --structure [--per-family 40]   # --grammar, plus goals held out
                                          # by structure (known words, new shapes) and the three side by side

`--structure` adds goals whose words all occur in training and whose sentence shapes do not
(lllm/labs/heldout/structure.py) to the per-family table, then prints per family, for right
tool, right arguments and right answer (lenient), three columns side by side: the seen grammar's
held-out rows, held-out structure, held-out words.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lllm.predictors import make_predictor  # noqa: E402
from lllm.labs.factory.before_after import CRITERIA, comparison_table, evaluate  # noqa: E402
from lllm.labs.factory.tasks import make_suite  # noqa: E402
from lllm.labs.heldout import grammar, structure  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-group", type=int, default=20, help="goals per (family, phrasing) group")
    parser.add_argument("--seed", type=int, default=0, help="which held-out goals are drawn")
    parser.add_argument("--split", default="test", choices=["test", "validation"])
    parser.add_argument("--json", help="also write the scores to this file")
    parser.add_argument("--grammar", action="store_true",
                        help="also score the agent model on goals held out by grammar (per family)")
    parser.add_argument("--structure", action="store_true",
                        help="with --grammar's table: goals held out by structure, and the three sets side by side")
    parser.add_argument("--per-family", type=int, default=40, help="held-out-grammar (and -structure) goals per family")
    parser.add_argument("--gallery", metavar="FILE",
                        help="with --grammar: write the first 3 failures per family as a markdown table "
                             "(the agent-model page includes bench/results/agent-gallery.md)")
    parser.add_argument("--story", default=str(ROOT / "build/model/tinyllm.onnx"), help="the story model")
    parser.add_argument("--agent", default=str(ROOT / "build/model/tinyllm-agent.onnx"), help="the agent model")
    args = parser.parse_args(argv)
    args.grammar = args.grammar or args.structure
    if args.gallery and not args.grammar:
        parser.error("--gallery needs --grammar (the gallery is the held-out grammar's failures)")
    suite = make_suite(args.split, args.per_group, args.seed)
    reports = []
    models = {"story model (tinyllm)": f"tinyllm:{args.story}",
              "agent model (tinyllm-agent)": f"tinyllm-agent:{args.agent}"}
    for name, spec in models.items():
        try:
            predictor = make_predictor(spec, temperature=0)
        except ValueError as error:
            print(f"skipping {name}: {error}", file=sys.stderr)
            continue
        start = time.perf_counter()
        reports.append(evaluate(predictor, suite, name))
        print(f"{name}: {len(suite)} goals in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    if not reports:
        return 1
    card = Path(args.agent).with_suffix(".json")
    if card.is_file():
        metrics = json.loads(card.read_text())["metrics"]
        print(f"agent model: {metrics['steps']} training steps, {metrics['train_seconds']:.0f} s of training")
    print(f"held-out {args.split} suite, {len(suite)} goals, greedy, no forcing "
          "(format / right tool / right args / right answer, %)")
    print(comparison_table(reports))
    scores = {r.name: {g[0] + ", " + g[1]: {c: r.mean(c, g) for c in CRITERIA} for g in r.groups()}
              | {"all": {c: r.mean(c) for c in CRITERIA}} for r in reports}
    if args.grammar:
        scores["grammar"] = grammar_table(suite, args)
    if args.json:
        Path(args.json).write_text(json.dumps(scores, indent=1))
    return 0


def grammar_table(suite, args) -> dict:
    """The agent model per family: the seen grammar's held-out rows, then goals held out by grammar."""
    try:
        predictor = make_predictor(f"tinyllm-agent:{args.agent}", temperature=0)
    except ValueError as error:
        print(f"skipping the held-out grammar: {error}", file=sys.stderr)
        return {}
    goals = grammar.make_goals(args.per_family, args.seed)
    shapes = structure.make_goals(args.per_family, args.seed) if args.structure else []
    start = time.perf_counter()
    suites = {"seen grammar": grammar.evaluate(predictor, [grammar.from_task(t) for t in suite])}
    if shapes:
        suites["held-out structure"] = grammar.evaluate(predictor, shapes)
    suites["held-out grammar"] = grammar.evaluate(predictor, goals)
    print(f"grammar: {len(suite) + len(goals) + len(shapes)} goals in {time.perf_counter() - start:.0f} s",
          file=sys.stderr)
    print(f"\nagent model, seen grammar ({args.split} suite above) vs held-out grammar "
          f"({len(goals)} goals, seed {args.seed})" + (f" and held-out structure ({len(shapes)} goals)" if shapes else "")
          + ", greedy, no forcing (right tool / right args / answer exact / answer lenient, %)")
    print(grammar.family_table(suites))
    if shapes:
        columns = {"seen grammar (rows)": suites["seen grammar"], "held-out structure": suites["held-out structure"],
                   "held-out words": suites["held-out grammar"]}
        for criterion, title in (("tool", "right tool"), ("args", "right arguments (goals with a tool)"),
                                 ("lenient", "right answer (lenient)")):
            print(f"\n{title}, per family: the three held-out sets side by side")
            print(structure.side_by_side(columns, criterion))
        print("\nheld-out structure per kind of shape (right tool / right args / answer lenient, %)")
        print(structure.shape_table(suites["held-out structure"]))
    for name in ("held-out structure", "held-out grammar")[0 if shapes else 1:]:
        errors = grammar.calc_errors(suites[name])
        print(f"{name}, one-calculation goals: {errors['wrong']} of {errors['goals']} with wrong arguments; "
              f"of those, {errors['operator']} had both numbers right and the wrong operator, {errors['number']} "
              f"the right operator and a wrong number, {errors['other']} other")
    if args.gallery:
        path = Path(args.gallery)
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        stamp = (f"<!-- bench/agent_bench.py --grammar --per-family {args.per_family} --seed {args.seed}: "
                 f"the first failures per family of {Path(args.agent).name} -->\n")
        part.write_text(stamp + grammar.gallery_markdown(suites["held-out grammar"]), encoding="utf-8")
        part.replace(path)                                   # whole or not at all
        print(f"wrote the gallery of failures to {path}", file=sys.stderr)
    return {name: [{"goal": g.goal, "family": g.family, **s, "answer": t.answer} for g, s, t in rows]
            for name, rows in suites.items()}


if __name__ == "__main__":
    sys.exit(main())
