"""Platform adapter · the agent pages' live demos: `run_json(params_json) -> JSON text` — the same functions, as data.

Read `react.py`, `predictors/specs.py`, `labs/reliability.py`, `evaluator.py`, `memory_explainer.py` and
`inference_playground.py` first. This module adds no agent logic: it calls those modules exactly
as `python -m lllm ...` does and turns what they return (trajectories, reports, turns, rows) into
JSON, so a page's widget (`site/assets/agents/demos.mjs`) can draw them. The widget sends one
JSON object:

    {"demo": "react" | "lab" | "evaluate" | "memory" | "playground" | "retrieve" | "versus" | "judge" | "before-after",
     "brain": "rule" | "tinyllm" | "tinyllm-agent" | "scripted" | "echo" | "yourmodel" | "tinyllm-yours", "temperature": 0.8,
     "seed": 0, "script": "replies between --- lines", "endpoint": {"url": ..., "model": ...} (yourmodel),
     ...the demo's own fields (goal, goals, seeds...)}

and gets back `{"ok": true, ...}` or `{"ok": false, "error": "a clear sentence"}` for bad input
(an empty goal, an unknown brain, a script with no replies, a model that is not built). What the
*model* causes is never an error here: it is a visible, capped step inside the trajectory (react.py).

"tinyllm-agent" is the agent-tuned TinyLLM exactly as `--predictor tinyllm-agent` builds it:
greedy (temperature and seed do not apply), stopping at `Observation:` and at a blank line.
"yourmodel" is a server on the reader's computer, called by the page (`lllm.web.yourmodel`);
"tinyllm-yours" is the model the reader trained on /tinyllm/train/, in that browser only (it samples
as "tinyllm" does).
"versus" runs one goal through several brains, all greedy — the agent-model page's story model
next to the agent-tuned one; "judge" runs a goal the reader types on the agent-tuned model and says
whether it was right where that can be known (`lllm.labs.heldout.structure.judge`: one operation in
training's own words, checked with the real calc); "before-after" is `python -m lllm lab --before-after` (the two models
on the factory's held-out goals) for the lab page.

The same params give the same JSON in CPython and in the page (tests compare them literally),
except where the models come from: both resolve a predictor with `make_predictor`, CPython's on
onnxruntime, the page's through `models=browser_models()` (`lllm.web.browser`, which touches the
page's JavaScript only when a model is called, so this module stays importable anywhere). Timings in the playground demo are measured,
so they differ.

Usage:

    >>> import json
    >>> out = json.loads(run_json('{"demo": "react", "goal": "What is 6 times 7?", "brain": "rule"}'))
    >>> out["trajectory"]["answer"], [s["action"] for s in out["trajectory"]["steps"]]
    ('42', [['calc', '6 * 7'], None])
    >>> json.loads(run_json('{"demo": "react", "goal": "  ", "brain": "rule"}'))["error"]
    'goal is empty: ask the agent a question'
"""

from __future__ import annotations

import io
import json
import re
import shlex
from contextlib import redirect_stdout
from dataclasses import asdict
from typing import Callable

from lllm.predictors import make_predictor, parse_script
from lllm.labs.evaluator import evaluate_seeds
from lllm.labs.inference_playground import compare
from lllm.labs.reliability import CATEGORIES, SUITE, run_lab
from lllm.agents.memory import LongTermMemory, format_memories, words
from lllm.labs.memory_explainer import DEMO_GOALS, explain_memory
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.grounding import label
from lllm.agents.react import FORCED_RE, grounding, run_react, terminal_text, trajectory_json
from lllm.agents.tools import DEFAULT_TOOLS, FACTS
from lllm.web.browser import browser_models     # the page's TinyLLMs (re-exported: the page's JS names it here)
from lllm.web.yourmodel import BRAIN as YOUR_MODEL, PageChatPredictor

__all__ = ["BRAINS", "DEMOS", "browser_models", "make_brain", "run_demo", "run_json"]

BRAINS = ("rule", "tinyllm", "tinyllm-agent", "scripted", "echo", YOUR_MODEL,   # yourmodel: params["endpoint"]
          "tinyllm-yours")                                                     # trained in the tab, samples
VERSUS_BRAINS = ("tinyllm", "tinyllm-agent")     # the agent-model page: the story model, then the agent-tuned one
MAX_STEPS_LIMIT = 10               # the page's ceiling: a reader's typo must not start a long run


# ---- predictors: the page's choice, resolved by the same make_predictor as --predictor ------------


def make_brain(spec: str, seed: int = 0, temperature: float = 0.8, script: str = "", models: dict | None = None):
    """A fresh predictor for `spec` (one of BRAINS): `make_predictor`, except that the page's
    scripted predictor takes its replies from the page, and the agent model is always greedy."""
    if spec not in BRAINS:
        raise ValueError(f"brain {spec!r} is not one of: {', '.join(BRAINS)}")
    if spec == "scripted":
        replies = parse_script(script)
        if not replies:
            raise ValueError("the script has no replies: write one reply per block, blocks separated by --- lines")
        return ScriptedPredictor(replies, cycle=True)
    if spec == "tinyllm-agent":                # greedy: temperature and seed do not apply
        return make_predictor(spec, models=models)
    return make_predictor(spec, temperature=temperature, seed=seed, models=models)


# ---- the demos: each calls the module that does the work and returns plain data ----------------

def react_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """One goal, step by step: the trajectory (as `react --json`), the labelled trace (as `--verbose`), and
    each model call's whole prompt and the random state it started from (`seed`: a sampling TinyLLM's
    stream as it stood before the call, None for a brain with none), so the page can open any character
    the model wrote in its glass box (time travel's drilldown, with that seed)."""
    terminal, calls, model = io.StringIO(), [], make(_int(p, "seed", 0))

    def seen(prompt: str, max_new_tokens: int | None = None) -> str:
        rng = getattr(model, "rng", None)
        calls.append({"prompt": prompt, "seed": rng.state if rng is not None else None})
        return model(prompt, max_new_tokens)
    with redirect_stdout(terminal):
        trajectory = run_react(p.get("goal", ""), seen, max_steps=_steps(p, 5), verbose=True, return_trajectory=True)
    flag = label(grounding(trajectory))                # as `react --verbose` ends, when it applies
    return {"trajectory": trajectory_json(trajectory), "calls": calls,
            "trace": terminal.getvalue() + (f"[AGENT] {flag}\n" if flag else "")}


def lab_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """The reliability lab for one brain (as `lab --json`), with a progress line per case."""
    report = run_lab(make(_int(p, "seed", 0)), _cases(p), _steps(p, 4), p.get("brain", "rule"), progress)
    return {"report": report.to_dict(), "text": report.format()}


def evaluate_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """The trajectory evaluator over several seeds (as `evaluate --json`): means and spreads per criterion."""
    seeds = p.get("seeds", [0, 1, 2])
    if not seeds or not all(isinstance(s, int) and s >= 0 for s in seeds):
        raise ValueError("seeds must be a non-empty list of integers >= 0, e.g. 0,1,2")

    def fresh(seed: int):
        progress(f"seed {seed}")
        return make(seed)
    report = evaluate_seeds(fresh, seeds, _cases(p), _steps(p, 4), name=p.get("brain", "rule"))
    return {"report": report.to_dict(), "text": report.format()}


def memory_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """The memory explainer (as `explain-memory`): per goal, the injected block, the run, and
    short-term memory after it."""
    goals = p.get("goals", DEMO_GOALS)
    if not goals or any(not isinstance(g, str) or not g.strip() for g in goals):
        raise ValueError("a goal is empty: write one question per line")
    window = _int(p, "window", 4)
    terminal = io.StringIO()
    with redirect_stdout(terminal):
        turns = explain_memory(make(_int(p, "seed", 0)), goals, window=window, max_steps=_steps(p, 4))
    remembered = [f"user: {t.goal} | agent: {t.answer}" for t in turns]   # what explain_memory adds
    return {"turns": [{"goal": t.goal, "memory_block": t.memory_block, "answer": t.answer,
                       "trajectory": trajectory_json(t.trajectory),
                       "short_term_after": remembered[max(0, i + 1 - window):i + 1]}
                      for i, t in enumerate(turns)],
            "trace": terminal.getvalue()}


def playground_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """Brains side by side on the same lab cases (as `playground --json`); one brain per name in `brains`."""
    names = p.get("brains", ["rule", "tinyllm"])
    if not names:
        raise ValueError("pick at least one brain to compare")
    predictors = {name: make(_int(p, "seed", 0), name) for name in names}
    progress(f"{len(_cases(p))} cases x {len(names)} brain(s)")
    rows = compare(predictors, _cases(p), max_steps=_steps(p, 4))
    return {"rows": [dict(asdict(r), ms_per_call=r.ms_per_call, chars_per_second=r.chars_per_second)
                     for r in rows]}


def retrieve_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """Long-term memory on its own: which story facts share words with the text, and the block."""
    text, k = p.get("context", ""), _int(p, "k", 2)
    short = [t for t in p.get("recent", []) if t.strip()]
    facts = LongTermMemory(FACTS.values()).retrieve(short + [text], k=k)
    query = words(" ".join(short + [text]))
    return {"query_words": sorted(query), "facts": facts,
            "shared": [sorted(query & words(f)) for f in facts],
            "block": format_memories(short, facts)}


def _question(p: dict) -> str:
    """The goal of a demo that shows a model on its own: a question, never a tool call it would force."""
    goal = p.get("goal", "")
    if not isinstance(goal, str) or not goal.strip():
        raise ValueError("goal is empty: ask the agent a question")
    forced = FORCED_RE.fullmatch(goal)
    if forced and forced.group(1) in {t.name for t in DEFAULT_TOOLS}:
        raise ValueError(f"write the goal as a question, not as a tool call ({forced.group(1)}[...]): "
                         "the agent would run that tool itself, and this demo shows the models on their own")
    return goal


def versus_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """One goal, several brains side by side, all greedy and without forcing: each trajectory, and
    what `python -m lllm react GOAL --predictor BRAIN` prints for it (`command`)."""
    goal, names = _question(p), p.get("brains", list(VERSUS_BRAINS))
    if not names or len(set(names)) != len(names):
        raise ValueError("pick at least one brain, each once")
    max_steps = _steps(p, 5)
    predictors = {name: make(0, name, 0.0) for name in names}   # every model loads before any runs
    runs = []
    for name, predictor in predictors.items():
        progress(f"{name}: {goal}")
        trajectory = run_react(goal, predictor, max_steps=max_steps, return_trajectory=True)
        runs.append({"brain": name, "trajectory": trajectory_json(trajectory), "terminal": terminal_text(trajectory),
                     "command": _react_command(goal, name, max_steps)})
    return {"runs": runs}


JUDGE_BRAIN = "tinyllm-agent"


def judge_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """A goal the reader types, run on the agent-tuned model (greedy, no forcing), and the verdict
    `lllm.labs.heldout.structure.judge` gives: right or wrong against the real calc when the goal says one
    operation in training's words, else that the page cannot judge it. `verdict` is the sentence shown."""
    from lllm.labs.heldout.structure import judge
    goal, max_steps = _question(p), _steps(p, 5)
    predictor = make(0, JUDGE_BRAIN, 0.0)
    progress(f"{JUDGE_BRAIN}: {goal}")
    trajectory = run_react(goal, predictor, max_steps=max_steps, return_trajectory=True)
    judged = judge(goal, trajectory)
    return {"brain": JUDGE_BRAIN, "trajectory": trajectory_json(trajectory), "terminal": terminal_text(trajectory),
            "command": _react_command(goal, JUDGE_BRAIN, max_steps), "judgement": judged,
            "verdict": _verdict(judged, trajectory)}


def _verdict(judged: dict, trajectory) -> str:
    if not judged["judged"]:
        return ("The page cannot judge this goal: it knows the right answer only for arithmetic that says one "
                "operation in words training uses (plus, minus, times, multiplied by, the sum of, the difference "
                "between, the product of, reduced by, ...), with its two numbers.")
    s, oracle = judged["scores"], f"calc[{judged['calc']}] = {judged['expected']}"
    if s["lenient"] and s["args"]:
        return f"Right: the goal says {judged['calc']}, and {oracle} is what the model answered."
    calls = ", ".join(f"{name}[{args}]" for name, args in trajectory.tool_calls()) or "no tool"
    answer = "no final answer" if trajectory.answer is None else f"answered {trajectory.answer}"
    verdict = "Right answer, wrong call" if s["lenient"] else "Wrong"
    return f"{verdict}: the goal says {judged['calc']} ({oracle}); the model called {calls} and {answer}."


MAX_PER_GROUP = 10                 # before-after: 7 groups, so at most 70 goals per model in the page


def before_after_demo(p: dict, make: Callable[..., object], progress) -> dict:
    """The story model and the agent-tuned one, greedy, on `per_group` held-out goals per group:
    the text `python -m lllm lab --before-after --per-group N` prints."""
    from lllm.labs.factory.before_after import BEFORE_AFTER, before_after_reports, before_after_text
    from lllm.labs.factory.before_after import CRITERIA, table_rows
    per_group = _int(p, "per_group", 2)
    if not 1 <= per_group <= MAX_PER_GROUP:
        raise ValueError(f"per_group must be between 1 and {MAX_PER_GROUP}, got {per_group}")
    models = {name: make(0, spec, 0.0) for name, spec in BEFORE_AFTER}   # both load before any runs
    command = "python -m lllm lab --before-after" + (f" --per-group {per_group}" if per_group != 10 else "")
    reports = before_after_reports(models, per_group, 0, progress)
    return {"models": [name for name, _ in BEFORE_AFTER], "criteria": list(CRITERIA),
            "rows": table_rows(reports), "text": before_after_text(reports), "command": command}


def _react_command(goal: str, brain: str, max_steps: int) -> str:
    """The terminal command for one greedy run (the story model samples unless told --temperature 0)."""
    flags = ["--predictor", brain] + (["--temperature", "0"] if brain == "tinyllm" else [])
    if brain == YOUR_MODEL:                          # the same server from CPython: the HTTP predictor
        flags = ["--predictor", "http:URL"]
    flags += ["--max-steps", str(max_steps)] if max_steps != 5 else []
    return " ".join(["python -m lllm react", shlex.quote(goal), *flags])


DEMOS = {"react": react_demo, "lab": lab_demo, "evaluate": evaluate_demo, "memory": memory_demo,
         "playground": playground_demo, "retrieve": retrieve_demo, "versus": versus_demo,
         "judge": judge_demo, "before-after": before_after_demo}


# ---- the entry point the page calls ------------------------------------------------------------

def run_demo(params: dict, models: dict | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Run one demo; bad input (ValueError) becomes {"ok": False, "error": ...}, never a traceback."""
    if not isinstance(params, dict) or params.get("demo") not in DEMOS:
        return {"ok": False, "error": f"demo must be one of: {', '.join(DEMOS)}"}

    def make(seed: int, spec: str | None = None, temperature: float | None = None):
        """A fresh predictor: the page's chosen brain, or `spec` (the playground and versus compare several)."""
        temperature = params.get("temperature", 0.8) if temperature is None else temperature
        if (spec or params.get("brain")) == YOUR_MODEL:        # the learner's server, called by the page
            return PageChatPredictor(params.get("endpoint"))
        return make_brain(spec or params.get("brain", "rule"), seed, temperature, params.get("script", ""), models)
    try:
        if params.get("brain", "rule") not in BRAINS:
            raise ValueError(f"brain {params.get('brain')!r} is not one of: {', '.join(BRAINS)}")
        result = DEMOS[params["demo"]](params, make, progress or (lambda text: None))
    except ValueError as error:
        return {"ok": False, "error": str(error)}
    return {"ok": True, "demo": params["demo"], **result}


def run_json(params_json: str, models: dict | None = None, progress: Callable[[str], None] | None = None) -> str:
    """`run_demo` from JSON text to JSON text (the page's widget sends and parses these)."""
    try:
        params = json.loads(params_json)
    except json.JSONDecodeError as error:
        return json.dumps({"ok": False, "error": f"params are not valid JSON: {error.msg}"})
    return json.dumps(run_demo(params, models, progress))


# ---- checking the page's numbers ---------------------------------------------------------------

def _int(p: dict, key: str, default: int) -> int:
    value = p.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{key} must be an integer >= 0, got {value!r}")
    return value


def _steps(p: dict, default: int) -> int:
    steps = _int(p, "max_steps", default)
    if not 1 <= steps <= MAX_STEPS_LIMIT:
        raise ValueError(f"max_steps must be between 1 and {MAX_STEPS_LIMIT}, got {steps}")
    return steps


def _cases(p: dict):
    wanted = p.get("categories") or list(CATEGORIES)
    unknown = [c for c in wanted if c not in CATEGORIES]
    if unknown:
        raise ValueError(f"unknown categor{'y' if len(unknown) == 1 else 'ies'} {unknown}; the lab has: {', '.join(CATEGORIES)}")
    return [c for c in SUITE if c.category in wanted]


if __name__ == "__main__":
    print(run_json('{"demo": "react", "goal": "What is 17 * 23?", "brain": "rule"}'))
