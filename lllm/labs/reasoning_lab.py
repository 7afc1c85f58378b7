"""Layer 4 · compare reasoning frameworks on Game of 24: success rate, spread, model calls.

Read `frameworks.py`, `search.py` and `simulated.py` first. A benchmark runs every framework on
every puzzle of a split, once per seed; each (framework, seed) gets a fresh model (seeded) and a
fresh Agent, so rows are independent and the whole table reproduces exactly. The model is the
simulated stand-in unless you pass another `make_model(seed) -> Predictor`.

    python -m lllm reason                                   # all frameworks, test split, 3 seeds
    python -m lllm reason --framework tot-bfs --split test --error-rate 0.3 --seeds 5
    python -m lllm reason --chart                           # also draw success against calls
    python -m lllm reason --framework foa --puzzle 900      # one run, its search tree
    python -m lllm reason --model tinyllm --limit 5         # the real (hopeless) TinyLLM

Usage:

    >>> rows = benchmark(["io", "tot-bfs"], split="test", seeds=[0], error_rate=0.5, limit=10)
    >>> [(r.framework, r.solved, r.puzzles) for r in rows]
    [('io', 1, 10), ('tot-bfs', 10, 10)]
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass

from lllm.model.sampling import Mulberry32
from lllm.reasoning.agent import Agent
from lllm.reasoning.frameworks import IO, CoT, CoTSC, Framework, ReAct, Reflexion, Result
from lllm.reasoning.game24 import Game24
from lllm.reasoning.search import FleetOfAgents, ToTBFS, ToTDFS
from lllm.reasoning.simulated import SimulatedModel

__all__ = ["FRAMEWORKS", "make_framework", "benchmark", "summarize", "format_table", "format_chart", "format_tree",
           "lab_json", "result_record", "Row", "Summary"]

# name -> class; in the order of the published Game-of-24 comparison (weakest first).
FRAMEWORKS = {"io": IO, "cot": CoT, "cot-sc": CoTSC, "react": ReAct, "reflexion": Reflexion,
              "tot-bfs": ToTBFS, "tot-dfs": ToTDFS, "foa": FleetOfAgents}


def make_framework(name: str, seed: int = 0) -> Framework:
    if name not in FRAMEWORKS:
        raise ValueError(f"unknown framework {name!r}; choose from {', '.join(FRAMEWORKS)}")
    cls = FRAMEWORKS[name]
    return cls(seed=seed) if cls is FleetOfAgents else cls()


# ---- running -------------------------------------------------------------------------------------

@dataclass
class Row:
    framework: str
    seed: int
    solved: int
    puzzles: int
    calls: int          # model replies generated
    hits: int           # replies served by the cache


# --8<-- [start:benchmark]
def benchmark(frameworks, split: str = "test", seeds=(0, 1, 2), error_rate: float = 0.5,
              limit: int | None = None, environment=None, make_model=None, max_new_tokens: int | None = None,
              on_result=None) -> list[Row]:
    """One Row per (framework, seed): how many puzzles of the split it solved, at what cost."""
    environment = environment if environment is not None else Game24()
    make_model = make_model or (lambda seed: SimulatedModel(error_rate, Mulberry32(seed)))
    idxs = environment.data.get_set_idxs(split)[:limit]
    rows = []
    for name in frameworks:
        for seed in seeds:
            agent = Agent(make_model(seed), namespace=f"{name}/{seed}", max_new_tokens=max_new_tokens)
            framework = make_framework(name, seed)
            framework.initialize(agent, environment)
            solved = 0
            for idx in idxs:
                result = framework.run(idx)
                solved += result.verification.correct
                if on_result:
                    on_result(result)
            rows.append(Row(name, seed, solved, len(idxs), agent.usage.calls, agent.usage.hits))
    return rows
# --8<-- [end:benchmark]


@dataclass
class Summary:
    framework: str
    success: float          # mean success rate over seeds
    spread: float           # its standard deviation over seeds
    calls: float            # model calls per puzzle
    hits: float             # cache hits per puzzle
    seeds: int


def summarize(rows: list[Row]) -> list[Summary]:
    out = []
    for name in dict.fromkeys(r.framework for r in rows):
        mine = [r for r in rows if r.framework == name]
        rates = [r.solved / r.puzzles for r in mine]
        mean = math.fsum(rates) / len(rates)
        spread = math.sqrt(math.fsum((x - mean) ** 2 for x in rates) / len(rates))
        n = sum(r.puzzles for r in mine)
        out.append(Summary(name, mean, spread, sum(r.calls for r in mine) / n, sum(r.hits for r in mine) / n, len(mine)))
    return out


def format_table(summaries: list[Summary]) -> str:
    lines = [f"{'framework':10} {'success':>8} {'± spread':>9} {'calls/puzzle':>13} {'hits/puzzle':>12}  bar"]
    for s in summaries:
        bar = "#" * round(s.success * 40)
        lines.append(f"{s.framework:10} {s.success:8.1%} {s.spread:9.1%} {s.calls:13.1f} {s.hits:12.1f}  {bar}")
    return "\n".join(lines)


def format_chart(summaries: list[Summary], height: int = 10, width: int = 48) -> str:
    """Success (up) against model calls per puzzle (right, log scale): what search buys, and its price."""
    top = max(max(s.calls for s in summaries), 10.0)
    grid = [[" "] * (width + 1) for _ in range(height + 1)]
    for mark, s in enumerate(summaries, 1):
        x = round(math.log10(max(s.calls, 1.0)) / math.log10(top) * width)
        y = height - round(s.success * height)
        grid[y][x] = str(mark % 10) if grid[y][x] == " " else "*"
    lines = [f"{100 - 100 * i // height:4d}% |" + "".join(row) for i, row in enumerate(grid)]
    lines.append("      +" + "-" * (width + 1))
    right = f"{top:.0f} calls per puzzle"
    lines.append("       1 call" + right.rjust(max(width - 5, len(right) + 2)))
    lines.append("       " + "  ".join(f"{i % 10} {s.framework}" for i, s in enumerate(summaries, 1)) + "  (* = overlap)")
    return "\n".join(lines)


def format_tree(result: Result) -> str:
    """A run as an indented tree: each state with its value and what became of it."""
    children: dict = {}
    for node in result.tree:
        children.setdefault(node.parent, []).append(node)
    lines = []

    def show(node, depth):
        last = node.state.steps[-1] if node.state.steps else node.state.puzzle
        value = "" if node.value is None else f"  value {node.value:g}"
        notes = [node.note] if node.note else []
        if node.state.current_state.startswith("invalid") and node.state.current_state not in notes:
            notes.append(node.state.current_state)                  # a step the environment rejected
        lines.append(f"{'  ' * depth}{last}{value}" + (f"  [{'; '.join(notes)}]" if notes else ""))
        for child in children.get(node.id, []):
            show(child, depth + 1)

    for root in children.get(None, []):
        show(root, 0)
    lines.append(f"-> {result.verification.message} ({'correct' if result.verification.correct else 'wrong'}); "
                 f"{result.usage.calls} model calls, {result.usage.hits} cache hits")
    return "\n".join(lines)


# ---- the command line -----------------------------------------------------------------------------

def add_cli(subparsers) -> None:
    from lllm.cli import finite_float, non_negative_int
    p = subparsers.add_parser("reason", help="compare reasoning frameworks (IO ... ToT, Fleet of Agents) on Game of 24",
                              description="Run reasoning frameworks on Game of 24 and print success rate, spread "
                                          "and model calls. The default model is a simulated stand-in (a solver "
                                          "that errs at --error-rate), not a real LLM.")
    p.add_argument("--framework", default="all", help=f"comma-separated: {', '.join(FRAMEWORKS)}, or all (default)")
    p.add_argument("--split", default="test", help="train, validation or test (default test: rows 900-999)")
    p.add_argument("--model", choices=["simulated", "tinyllm"], default="simulated", help="default simulated")
    p.add_argument("--onnx", default=None, help="the TinyLLM .onnx file for --model tinyllm")
    p.add_argument("--error-rate", type=finite_float, default=0.5, help="simulated model's mistake rate per step, in [0, 1] (default 0.5)")
    p.add_argument("--seeds", type=non_negative_int, default=3, help="how many seeds (0, 1, ...) to average over (default 3)")
    p.add_argument("--limit", type=non_negative_int, default=None, help="only the first N puzzles of the split")
    p.add_argument("--puzzle", type=non_negative_int, default=None, help="run the (first) --framework once on this row and print its search tree")
    p.add_argument("--chart", action="store_true", help="also draw success against model calls")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(run=run_reason)


def _model_factory(args):
    from lllm.cli import UsageError
    if args.model == "simulated":
        if not 0 <= args.error_rate <= 1:
            raise UsageError(f"--error-rate must be in [0, 1], got {args.error_rate}")
        return lambda seed: SimulatedModel(args.error_rate, Mulberry32(seed))
    from lllm.model.onnx_backend import DEFAULT_MODEL, ModelError, from_onnx
    try:
        from_onnx(args.onnx or DEFAULT_MODEL)
    except ModelError as e:
        raise UsageError(f"--onnx {e}") from None
    return lambda seed: from_onnx(args.onnx or DEFAULT_MODEL, temperature=0.8, seed=seed)


def run_reason(args) -> int:
    from lllm.cli import UsageError
    from lllm.reasoning.data import DataError
    names = list(FRAMEWORKS) if args.framework == "all" else [n.strip() for n in args.framework.split(",")]
    unknown = [n for n in names if n not in FRAMEWORKS]
    if unknown:
        raise UsageError(f"--framework {unknown[0]!r} is unknown; choose from {', '.join(FRAMEWORKS)} or all")
    if args.seeds < 1:
        raise UsageError("--seeds must be at least 1")
    make_model = _model_factory(args)
    environment = Game24()
    max_new_tokens = 80 if args.model == "tinyllm" else None
    if args.puzzle is not None:
        if args.puzzle >= len(environment.data):
            raise UsageError(f"--puzzle must be below {len(environment.data)}, got {args.puzzle}")
        framework = make_framework(names[0])
        framework.initialize(Agent(make_model(0), max_new_tokens=max_new_tokens), environment)
        result = framework.run(args.puzzle)
        print(json.dumps(result_record(result)) if args.json else format_tree(result))
        return 0
    try:
        environment.data.get_set_idxs(args.split)
    except DataError as e:
        raise UsageError(f"--split: {e}") from None
    rows = benchmark(names, args.split, range(args.seeds), args.error_rate, args.limit, environment, make_model,
                     max_new_tokens)
    summaries = summarize(rows)
    if args.json:
        print(json.dumps({"split": args.split, "model": args.model, "error_rate": args.error_rate,
                          "rows": [asdict(r) for r in rows], "summary": [asdict(s) for s in summaries]}))
        return 0
    model = f"simulated model, error rate {args.error_rate}" if args.model == "simulated" else "TinyLLM"
    print(f"Game of 24, {args.split} split ({rows[0].puzzles} puzzles), {model}, {args.seeds} seed(s)")
    print(format_table(summaries))
    if args.chart:
        print()
        print(format_chart(summaries))
    if args.model == "simulated":
        print("note: the simulated model is a solver-backed stand-in, not an LLM (see lllm/reasoning/simulated.py)",
              file=sys.stderr)
    return 0


# ---- the page's lab (site/assets/reasoning/lab.mjs sends JSON, gets JSON) --------------------------

def lab_json(params: str) -> str:
    """One lab request: {"kind": "run", "puzzle", "framework", "error_rate", "seed"} or
    {"kind": "benchmark", "frameworks", "limit", "seeds", "error_rate"} -> JSON ({"ok": false,
    "error": ...} for bad input, named by field)."""
    try:
        p = json.loads(params)
        rate = float(p.get("error_rate", 0.5))
        if not 0 <= rate <= 1:
            raise ValueError(f"error rate must be in [0, 1], got {rate}")
        environment = Game24()
        if p.get("kind") == "run":
            puzzle, seed = int(p["puzzle"]), int(p.get("seed", 0))
            if not 0 <= puzzle < len(environment.data):
                raise ValueError(f"puzzle must be a row 0..{len(environment.data) - 1}, got {puzzle}")
            framework = make_framework(p["framework"], seed)
            framework.initialize(Agent(SimulatedModel(rate, Mulberry32(seed))), environment)
            return json.dumps({"ok": True, **result_record(framework.run(puzzle))})
        rows = benchmark(p["frameworks"], "test", range(int(p.get("seeds", 1))), rate, int(p.get("limit", 10)), environment)
        return json.dumps({"ok": True, "summary": [asdict(s) for s in summarize(rows)]})
    except (ValueError, KeyError, TypeError) as e:
        return json.dumps({"ok": False, "error": str(e) if not isinstance(e, KeyError) else f"missing field {e}"})


def result_record(result: Result) -> dict:
    return {"framework": result.framework, "puzzle_idx": result.puzzle_idx, "puzzle": result.state.puzzle,
            "steps": list(result.state.steps), "verification": result.verification._asdict(),
            "usage": asdict(result.usage),
            "tree": [{"id": n.id, "parent": n.parent, "steps": list(n.state.steps), "left": n.state.current_state,
                      "value": n.value, "note": n.note} for n in result.tree]}
