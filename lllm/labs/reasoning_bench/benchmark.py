"""Layer 4 · compare reasoning frameworks on a task: success with a 95% interval, and what it cost.

Read `lllm/reasoning/` first, then `report.py` (rows, intervals, tables). A benchmark
runs every framework on every puzzle of a split, once per repeat (seed); each (framework, seed)
gets a fresh model and a fresh Agent, so repeats are independent and the whole table
reproduces. Two tasks: `game24` (the standard 4nums.com ranking; test = rows 900-999) and
`brookfield` (multi-hop questions answered with the lookup tool). The model is the task's
stand-in (`SimulatedModel`, `SimulatedReader`: rule-following programs that err at set rates,
not LLMs) unless you name a predictor: `--predictor http:URL` (any OpenAI-compatible server;
its token counts are reported), `--predictor tinyllm`, ...

    python -m lllm reason                                    # every framework, game24 test split, 3 repeats
    python -m lllm reason --framework got --split test --json
    python -m lllm reason --task brookfield                  # the second task
    python -m lllm reason --sweep value-noise                # search helps only while evaluation is good
    python -m lllm reason --framework rap --puzzle 900       # one run, its search tree
    python -m lllm reason --framework tot-bfs --puzzle 900 --tree   # the same tree the lab draws
    python -m lllm reason --predictor http:http://127.0.0.1:8080 --framework cot --limit 5

Usage:

    >>> rows = benchmark(["io", "tot-bfs"], split="test", seeds=[0], error_rate=0.5, limit=10)
    >>> [(r.framework, r.solved, r.puzzles) for r in rows]
    [('io', 1, 10), ('tot-bfs', 10, 10)]
"""

from __future__ import annotations

import json
from dataclasses import asdict

from lllm.labs.reasoning_bench.report import Row, result_record, summarize
from lllm.model.sampling import Mulberry32
from lllm.reasoning.agent import Agent
from lllm.reasoning.tasks.multihop import BrookfieldQA
from lllm.reasoning.frameworks import IO, CoT, CoTSC, Framework, ReAct, Reflexion
from lllm.reasoning.tasks.game24 import Game24
from lllm.reasoning.graph import GraphOfThoughts
from lllm.reasoning.mcts import RAP
from lllm.reasoning.search import FleetOfAgents, ToTBFS, ToTDFS
from lllm.reasoning.search_tree import search_tree, search_tree_record
from lllm.predictors.standins.game24 import SimulatedModel
from lllm.predictors.standins.multihop import SimulatedReader

__all__ = ["FRAMEWORKS", "TASKS", "make_framework", "make_environment", "stand_in", "benchmark", "sweep", "lab_json"]

# name -> class; in the order of the published Game-of-24 comparisons (weakest first).
FRAMEWORKS = {"io": IO, "cot": CoT, "cot-sc": CoTSC, "react": ReAct, "reflexion": Reflexion,
              "tot-bfs": ToTBFS, "tot-dfs": ToTDFS, "got": GraphOfThoughts, "rap": RAP, "foa": FleetOfAgents}
TASKS = {"game24": Game24, "brookfield": BrookfieldQA}
# Settings a task needs: the questions take up to four actions (three lookups and the answer),
# and Reflexion's attempts there are ReAct episodes (the paper's HotpotQA set-up).
TASK_SETTINGS = {"brookfield": {"reflexion": {"actor": "react"}, "tot-bfs": {"depth": 4, "breadth": 3, "n_evaluate": 1},
                                "got": {"depth": 4, "breadth": 3, "n_evaluate": 1}, "rap": {"n_evaluate": 1}}}
DEFAULT_FRAMEWORKS = {"game24": list(FRAMEWORKS), "brookfield": ["io", "cot", "react", "reflexion", "tot-bfs"]}
SWEEP_LEVELS = [0.0, 0.25, 0.5, 0.75, 1.0]


def make_framework(name: str, seed: int = 0, task: str = "game24") -> Framework:
    if name not in FRAMEWORKS:
        raise ValueError(f"unknown framework {name!r}; choose from {', '.join(FRAMEWORKS)}")
    settings = dict(TASK_SETTINGS.get(task, {}).get(name, {}))
    if FRAMEWORKS[name] is FleetOfAgents:
        settings["seed"] = seed
    return FRAMEWORKS[name](**settings)


def make_environment(task: str):
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    return TASKS[task]()


def stand_in(task: str, error_rate: float, value_noise: float | None = None):
    """seed -> the task's stand-in model (a program, not an LLM) at these error rates."""
    model = SimulatedReader if task == "brookfield" else SimulatedModel
    return lambda seed: model(error_rate, Mulberry32(seed), value_noise=value_noise)


# ---- running -------------------------------------------------------------------------------------

# --8<-- [start:benchmark]
def benchmark(frameworks, split: str = "test", seeds=(0, 1, 2), error_rate: float = 0.5,
              limit: int | None = None, environment=None, make_model=None, max_new_tokens: int | None = None,
              on_result=None, task: str = "game24", value_noise: float | None = None, workers: int = 1) -> list[Row]:
    """One Row per (framework, seed): which puzzles of the split it solved, at what cost."""
    environment = environment if environment is not None else make_environment(task)
    make_model = make_model or stand_in(task, error_rate, value_noise)
    idxs = environment.data.get_set_idxs(split)[:limit]
    rows = []
    for name in frameworks:
        for seed in seeds:
            agent = Agent(make_model(seed), namespace=f"{name}/{seed}", max_new_tokens=max_new_tokens, workers=workers)
            framework = make_framework(name, seed, task)
            framework.initialize(agent, environment)
            outcomes = []
            for idx in idxs:
                result = framework.run(idx)
                outcomes.append(int(result.verification.correct))
                if on_result:
                    on_result(result)
            u = agent.usage
            rows.append(Row(name, seed, tuple(outcomes), u.calls, u.hits, u.tokens_in, u.tokens_out, u.cached_in,
                            u.unit, u.seconds))
    return rows
# --8<-- [end:benchmark]


def sweep(frameworks, levels=SWEEP_LEVELS, error_rate: float = 0.5, task: str = "game24", **options) -> dict:
    """framework -> one Summary per value-noise level (the stand-in's evaluator, from perfect to random)."""
    table = {name: [] for name in frameworks}
    for level in levels:
        rows = benchmark(frameworks, error_rate=error_rate, task=task, value_noise=level, **options)
        for s in summarize(rows):
            table[s.framework].append(s)
    return table


# ---- the page's lab (site/assets/reasoning/lab.mjs sends JSON, gets JSON) --------------------------

def _rate(p: dict, key: str, default):
    value = p.get(key, default)
    if value is None:
        return None
    value = float(value)
    if not 0 <= value <= 1:
        raise ValueError(f"{key.replace('_', ' ')} must be in [0, 1], got {value:g}")
    return value


def lab_json(params: str, tinyllm=None, yourmodel=None) -> str:
    """One lab request -> JSON ({"ok": false, "error": ...} for bad input, named by field):
    {"kind": "run", "task", "puzzle", "framework", "error_rate", "value_noise", "seed", "model"},
    {"kind": "benchmark", "task", "frameworks", "limit", "seeds", "error_rate", "value_noise", "model"},
    {"kind": "sweep", "task", "frameworks", "limit", "error_rate"}. "model" is "stand-in" (default),
    "tinyllm", served by `tinyllm(seed) -> Predictor` (the page passes its in-page TinyLLM), or
    "yourmodel", served by `yourmodel(seed) -> Predictor` (the page passes the learner's server)."""
    try:
        p = json.loads(params)
        task = p.get("task", "game24")
        rate, noise = _rate(p, "error_rate", 0.5), _rate(p, "value_noise", None)
        environment = make_environment(task)
        makers = {"stand-in": stand_in(task, rate, noise), "tinyllm": tinyllm, "yourmodel": yourmodel}
        if makers.get(p.get("model", "stand-in")) is None:
            offered = " or ".join(name for name, maker in makers.items() if maker is not None)
            raise ValueError(f"model must be {offered}, got {p.get('model')!r}")
        make_model = makers[p.get("model", "stand-in")]
        max_tokens = 80 if p.get("model") == "tinyllm" else None
        if p.get("kind") == "run":
            puzzle, seed = int(p["puzzle"]), int(p.get("seed", 0))
            if not 0 <= puzzle < len(environment.data):
                raise ValueError(f"puzzle must be a row 0..{len(environment.data) - 1}, got {puzzle}")
            framework = make_framework(p["framework"], seed, task)
            framework.initialize(Agent(make_model(seed), max_new_tokens=max_tokens), environment)
            result = framework.run(puzzle)
            search = search_tree_record(search_tree(result, environment))     # the same labels as `reason --tree`
            return json.dumps({"ok": True, "task": task, **result_record(result), "search": search})
        options = dict(split="test", limit=int(p.get("limit", 10)), environment=environment, task=task)
        if p.get("kind") == "sweep":
            table = sweep(p["frameworks"], SWEEP_LEVELS, rate, seeds=range(int(p.get("seeds", 1))), **options)
            return json.dumps({"ok": True, "task": task, "levels": SWEEP_LEVELS,
                               "sweep": {n: [asdict(s) for s in ss] for n, ss in table.items()}})
        rows = benchmark(p["frameworks"], seeds=range(int(p.get("seeds", 1))), make_model=make_model,
                         max_new_tokens=max_tokens, **options)
        return json.dumps({"ok": True, "task": task, "summary": [asdict(s) for s in summarize(rows)]})
    except (ValueError, KeyError, TypeError) as e:
        return json.dumps({"ok": False, "error": str(e) if not isinstance(e, KeyError) else f"missing field {e}"})
