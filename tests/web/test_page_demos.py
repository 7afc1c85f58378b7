"""lllm/web/demos.py: the agent pages' demos return exactly what the terminal commands return, as JSON;
bad input is a clear message; what the model causes stays a visible, capped step. Also: every
agent page has a demo that says what it shows, and its runnable cells run in CPython."""

import contextlib
import inspect
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lllm.web import demos as page_demos
from lllm.predictors import TINYLLM_AGENT_STOP, make_predictor, parse_script
from lllm.commands import main
from lllm.labs.reliability import CATEGORIES
from lllm.model.onnx_backend import from_onnx
from lllm.web.demos import run_json
from lllm.model.sampling import Mulberry32
from support.model_files import require_agent_model

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "build" / "model" / "tinyllm.onnx"
AGENT_PAGES = [ROOT / "site" / "agents" / f"{name}.md" for name in           # the pages with live demos
               ["index", "react", "brains", "memory", "memory-explainer", "lab", "evaluator", "inference-playground"]]
from support.runtime import CELL  # noqa: E402
DEMO = re.compile(r'<div class="lllm-demo" data-demo="([\w-]+)"')


def demo(params, **options):
    """What the page's widget receives: run_json's text, parsed."""
    return json.loads(run_json(json.dumps(params), **options))


def terminal(capsys, *argv):
    """What `python -m lllm ARGV` prints (run in-process)."""
    main(list(argv))
    return capsys.readouterr().out


# ---- the same JSON as the terminal -----------------------------------------------------------------

def test_react_is_the_terminal_trajectory_and_trace(capsys):
    out = demo({"demo": "react", "goal": "What is 17 * 23?", "brain": "rule"})
    assert out["ok"] and out["trajectory"]["answer"] == "391"
    assert out["trajectory"] == json.loads(terminal(capsys, "react", "What is 17 * 23?", "--predictor", "rule", "--json"))
    assert out["trace"] == terminal(capsys, "react", "What is 17 * 23?", "--predictor", "rule", "--verbose")


def test_lab_is_the_terminal_report(capsys):
    out = demo({"demo": "lab", "brain": "rule"})
    assert out["report"] == json.loads(terminal(capsys, "lab", "--predictor", "rule", "--json"))
    assert out["text"] == terminal(capsys, "lab", "--predictor", "rule").rstrip("\n")
    assert (out["report"]["passed"], out["report"]["total"]) == (30, 34)


def test_lab_reports_progress_per_case():
    seen = []
    demo({"demo": "lab", "brain": "rule", "categories": ["lookup"]}, progress=seen.append)
    assert seen[0] == "case 1/8: Who is Pip?" and len(seen) == 8


def test_evaluate_is_the_terminal_report(capsys):
    out = demo({"demo": "evaluate", "brain": "rule", "seeds": [0, 1], "categories": ["arithmetic", "lookup"]})
    expected = terminal(capsys, "evaluate", "--predictor", "rule", "--seeds", "0,1", "--category", "arithmetic",
                        "--category", "lookup", "--json")
    assert out["report"] == json.loads(expected)
    assert out["report"]["spread"]["total"] == 0.0


def test_memory_is_the_terminal_session_and_short_term_memory_grows(capsys):
    out = demo({"demo": "memory", "brain": "rule"})
    assert out["trace"] == terminal(capsys, "explain-memory", "--predictor", "rule")
    assert [t["answer"] for t in out["turns"]] == ["391", "400", "Pip is Mira's grey cat.",
                                                   "Lina lives in the white house on Hill Road. She keeps 5 hens and 1 goat."]
    assert out["turns"][1]["memory_block"] == "Recent conversation:\n- user: What is 17 * 23? | agent: 391"
    for n, turn in enumerate(out["turns"], 1):       # the list the terminal prints after every turn
        assert len(turn["short_term_after"]) == n
        assert f"short-term now holds {n} turn(s): {turn['short_term_after']!r}" in out["trace"]


def test_memory_window_drops_the_oldest_turn():
    out = demo({"demo": "memory", "brain": "rule", "window": 2, "goals": ["What is 1 + 1?", "What is 2 + 2?", "What is 3 + 3?"]})
    assert out["turns"][2]["short_term_after"] == ["user: What is 2 + 2? | agent: 4", "user: What is 3 + 3? | agent: 6"]


def test_playground_counts_are_the_terminal_ones(capsys):
    out = demo({"demo": "playground", "brains": ["rule", "echo"], "categories": ["lookup"]})
    expected = json.loads(terminal(capsys, "playground", "--predictors", "rule,echo", "--category", "lookup", "--json"))
    keep = lambda rows: [(r["name"], r["cases"], r["passed"], r["calls"], r["chars"]) for r in rows]
    assert keep(out["rows"]) == keep(expected) == [("rule", 8, 8, 16, 844), ("echo", 8, 0, 32, 4096)]


def test_retrieve_shows_the_shared_words_and_the_block():
    out = demo({"demo": "retrieve", "context": "Who is Pip?", "recent": ["user: What is 2 + 2? | agent: 4", ""], "k": 1})
    assert out["facts"] == ["Pip is Mira's grey cat."] and out["shared"] == [["pip"]]
    assert out["block"] == "Recent conversation:\n- user: What is 2 + 2? | agent: 4\nThings you remember:\n- Pip is Mira's grey cat."


@pytest.mark.skipif(not MODEL.exists(), reason="run `make model` first")
def test_tinyllm_react_is_the_terminal_one(capsys):
    models = {"tinyllm": lambda **options: from_onnx(MODEL, **options)}
    out = demo({"demo": "react", "goal": "Who is Pip?", "brain": "tinyllm", "seed": 1, "temperature": 0.8,
                    "max_steps": 2}, models=models)
    expected = terminal(capsys, "react", "Who is Pip?", "--predictor", f"tinyllm:{MODEL}", "--seed", "1",
                        "--temperature", "0.8", "--max-steps", "2", "--json")
    assert out["trajectory"] == json.loads(expected)


# ---- what the model causes: visible, capped steps ---------------------------------------------------

def test_a_misbehaving_script_becomes_visible_steps():
    script = "Action: search[x]\n---\ngarbage\n---\nAction: calc[2 ** 100000]\n---\nFinal Answer: 391"
    steps = demo({"demo": "react", "goal": "What is 17 * 23?", "brain": "scripted", "script": script})["trajectory"]["steps"]
    observations = [s["observation"] for s in steps[:3]]
    assert observations[0] == "error: unknown tool 'search'; tools are: calc, lookup"
    assert observations[1].startswith("no Action or Final Answer found")
    assert observations[2].startswith("error:") and "large" in observations[2]
    assert steps[3]["final"] == "391"


def test_garbage_forever_is_capped_by_max_steps():
    out = demo({"demo": "react", "goal": "hi", "brain": "scripted", "script": "lorem ipsum", "max_steps": 3})
    assert len(out["trajectory"]["steps"]) == 3 and out["trajectory"]["stop_reason"] == "max steps"


def test_a_predictor_that_raises_is_a_step_not_a_crash():
    def broken(**options):
        def predictor(prompt, max_new_tokens=None):
            raise RuntimeError("the model could not be loaded")
        return predictor
    out = demo({"demo": "react", "goal": "hi", "brain": "tinyllm"}, models={"tinyllm": broken})
    assert out["ok"] and out["trajectory"]["stop_reason"] == "predictor error"
    assert out["trajectory"]["steps"][0]["observation"] == "predictor error: RuntimeError: the model could not be loaded"


# ---- bad input: a clear message ---------------------------------------------------------------------

@pytest.mark.parametrize("params, message", [
    ({"demo": "react", "goal": "   ", "brain": "rule"}, "goal is empty: ask the agent a question"),
    ({"demo": "react", "goal": "hi", "brain": "gpt"}, "brain 'gpt' is not one of: rule, tinyllm, tinyllm-agent, scripted, echo"),
    ({"demo": "react", "goal": "hi", "brain": "scripted", "script": "\n---\n"}, "the script has no replies"),
    ({"demo": "react", "goal": "hi", "max_steps": 0}, "max_steps must be between 1 and 10, got 0"),
    ({"demo": "react", "goal": "hi", "max_steps": 11}, "max_steps must be between 1 and 10, got 11"),
    ({"demo": "react", "goal": "hi", "seed": -1}, "seed must be an integer >= 0, got -1"),
    ({"demo": "lab", "categories": ["poems"]}, "unknown category ['poems']"),
    ({"demo": "evaluate", "seeds": []}, "seeds must be a non-empty list"),
    ({"demo": "evaluate", "seeds": [0, "x"]}, "seeds must be a non-empty list"),
    ({"demo": "memory", "goals": ["What is 1 + 1?", ""]}, "a goal is empty"),
    ({"demo": "memory", "goals": []}, "a goal is empty"),
    ({"demo": "playground", "brains": []}, "pick at least one brain to compare"),
    ({"demo": "playground", "brains": ["rule", "gpt"]}, "brain 'gpt' is not one of"),
    ({"demo": "versus", "goal": " "}, "goal is empty: ask the agent a question"),
    ({"demo": "versus", "goal": "calc[48 + 17]"}, "write the goal as a question, not as a tool call (calc[...])"),
    ({"demo": "versus", "goal": "hi", "brains": []}, "pick at least one brain, each once"),
    ({"demo": "versus", "goal": "hi", "brains": ["rule", "rule"]}, "pick at least one brain, each once"),
    ({"demo": "versus", "goal": "hi", "brains": ["rule", "gpt"]}, "brain 'gpt' is not one of"),
    ({"demo": "before-after", "per_group": 0}, "per_group must be between 1 and 10, got 0"),
    ({"demo": "before-after", "per_group": 11}, "per_group must be between 1 and 10, got 11"),
    ({"demo": "before-after", "per_group": "2"}, "per_group must be an integer >= 0, got '2'"),
    ({"demo": "dance"}, "demo must be one of: react, lab, evaluate, memory, playground, retrieve, versus, judge, before-after"),
])
def test_bad_input_is_a_clear_message(params, message):
    out = demo(params)
    assert out["ok"] is False and out["error"].startswith(message)


def test_run_json_answers_json_even_for_broken_json():
    assert json.loads(run_json("{not json"))["error"].startswith("params are not valid JSON")
    assert json.loads(run_json('{"demo": "react", "goal": "What is 2 + 2?"}'))["trajectory"]["answer"] == "4"


def test_parse_script_splits_on_dash_lines():
    assert parse_script("a\n---\nb\n\n---  \n\nc\nd\n") == ["a", "b", "c\nd"]


# ---- the pages ---------------------------------------------------------------------------------------

def test_every_agent_page_has_a_demo_that_says_what_it_shows():
    for page in AGENT_PAGES:
        text = page.read_text(encoding="utf-8")
        kinds = DEMO.findall(text)
        assert kinds and set(kinds) <= set(page_demos.DEMOS), f"{page.name}: no .lllm-demo element"
        assert "**What the demo shows.**" in text, f"{page.name}: say what the demo shows"


@pytest.mark.parametrize("page", AGENT_PAGES, ids=lambda p: p.stem)
def test_runnable_cells_run_in_cpython(page):
    namespace, ran = {}, 0
    for code in CELL.findall(page.read_text(encoding="utf-8")):
        if "lllm.web.browser" in code:        # needs the page's TinyLLM; tests/browser/test_agents_browser.py runs it
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{page.name} cell", "exec"), namespace)
        assert out.getvalue().strip(), f"a cell in {page.name} printed nothing"
        ran += 1
    assert ran > 0


def js_const(source: str, name: str) -> str:
    """The value of `const NAME = ...;` (or `export const`) in a JavaScript source, on one line or laid out
    over several by the formatter (`make format`): up to the first line that ends with `;`."""
    found = re.search(rf"^(?:export )?const {name} = (.*?);$", source, re.M | re.S)
    assert found, f"no `const {name} = ...;` in the source"
    return found.group(1)


def js_strings(text: str) -> list[str]:
    """The double-quoted string literals in a piece of JavaScript, in order."""
    return [json.loads(literal) for literal in re.findall(r'"(?:[^"\\]|\\.)*"', text)]


def test_js_const_reads_a_declaration_on_one_line_or_laid_out_over_several():
    one = 'const A = ["x", "y"];\nexport const B = { b: "1" };\nconst C = 3;\n'
    laid_out = 'const A = [\n  "x",\n  "y",\n];\nexport const B = {\n  b: "1",\n};\nconst C = 3;\n'
    for source in (one, laid_out):
        assert js_strings(js_const(source, "A")) == ["x", "y"] and js_strings(js_const(source, "B")) == ["1"]
        assert js_const(source, "C") == "3"
    with pytest.raises(AssertionError, match="no `const D"):
        js_const(one, "D")


def test_the_widget_offers_the_labs_categories_and_the_brains():
    widget = (ROOT / "site" / "assets" / "agents" / "demos.mjs").read_text(encoding="utf-8")
    assert js_strings(js_const(widget, "CATEGORIES")) == list(CATEGORIES)
    brainlist = (ROOT / "site" / "assets" / "agents" / "brainlist.mjs").read_text(encoding="utf-8")
    labels = js_const(brainlist, "BRAIN_LABELS")
    constants = dict(re.findall(r'^export const (\w+) = "([\w-]+)";', brainlist, re.M))   # [YOUR_MODEL]: ...
    keys = [constants[c] if c else k for k, c in re.findall(r'(?:"?([\w-]+)"?|\[(\w+)\]): "', labels)]
    assert keys == list(page_demos.BRAINS)


def test_a_page_model_that_did_not_load_is_a_clear_message(monkeypatch):
    from lllm.web import browser

    def from_browser(**options):          # what the page's worker answers when the model's file is missing
        raise RuntimeError("Error: Could not download the TinyLLM model: HTTP 404")
    monkeypatch.setattr(browser, "from_browser", from_browser)
    out = demo({"demo": "react", "goal": "hi", "brain": "tinyllm"}, models=page_demos.browser_models())
    assert out == {"ok": False, "error": "TinyLLM could not be loaded in this page: Could not download the TinyLLM model: HTTP 404"}


# ---- the agent-tuned TinyLLM: the page builds it as the terminal does ----------------------------

@pytest.fixture(scope="module")
def agent_model():
    return require_agent_model()


def cpython_models(agent_model):
    """What the page passes as models=, with CPython's onnxruntime standing in for onnxruntime-web."""
    return {"models": {"tinyllm": lambda **options: from_onnx(MODEL, **options),
                       "tinyllm-agent": lambda **options: from_onnx(agent_model, **options)}}


def test_the_page_builds_the_agent_brain_as_make_predictor_does(agent_model):
    from lllm.web.browser import from_browser
    terminal_brain = make_predictor(f"tinyllm-agent:{agent_model}")
    page_defaults = {k: p.default for k, p in inspect.signature(from_browser).parameters.items()}
    assert TINYLLM_AGENT_STOP == terminal_brain.stop == ("Observation:", "\n\n")
    assert terminal_brain.temperature == 0.0         # make_predictor passes temperature=0.0 to either platform
    assert page_defaults["max_new_tokens"] == terminal_brain.max_new_tokens == 200
    assert (page_defaults["top_k"], page_defaults["top_p"]) == (terminal_brain.top_k, terminal_brain.top_p)
    assert terminal_brain.rng.state == Mulberry32(page_defaults["seed"]).state


def test_react_with_the_agent_model_is_the_terminal_one(capsys, agent_model):
    out = demo({"demo": "react", "goal": "Who is Pip?", "brain": "tinyllm-agent", "temperature": 1.5},
               **cpython_models(agent_model))   # greedy: the page's temperature does not apply
    expected = terminal(capsys, "react", "Who is Pip?", "--predictor", f"tinyllm-agent:{agent_model}", "--json")
    assert out["trajectory"] == json.loads(expected)


@pytest.mark.parametrize("goal", ["What is 48 plus 17?", "Say the word tiger."])
def test_versus_shows_what_each_terminal_command_prints(agent_model, goal):
    out = demo({"demo": "versus", "goal": goal}, **cpython_models(agent_model))
    assert [run["brain"] for run in out["runs"]] == ["tinyllm", "tinyllm-agent"]
    assert out["runs"][0]["command"] == f"python -m lllm react {shlex.quote(goal)} --predictor tinyllm --temperature 0"
    for run in out["runs"]:
        assert not any(step["forced"] for step in run["trajectory"]["steps"])
        argv = shlex.split(run["command"])
        assert argv[:3] == ["python", "-m", "lllm"]
        done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.stdout == run["terminal"], run["brain"]
    assert out["runs"][0]["trajectory"]["answer"] is None             # the story model never writes the format
    assert out["runs"][1]["trajectory"]["steps"][0]["thought"]        # the agent model does


@pytest.mark.parametrize("goal, verdict", [
    ("What is 48 plus 17?", "Right: the goal says 48 + 17, and calc[48 + 17] = 65 is what the model answered."),
    ("What is 48 plus 17, Kim has 3 kites?", "Wrong: the goal says 48 + 17 (calc[48 + 17] = 65); the model "
                                             "called calc[17 + 3] and answered 20."),
    ("How old is Tom?", "The page cannot judge this goal: it knows the right answer only for arithmetic")])
def test_judge_runs_the_agent_model_and_says_whether_it_was_right(agent_model, goal, verdict):
    from lllm.labs.heldout.structure import judge
    from lllm.agents.react import run_react, trajectory_json
    out = demo({"demo": "judge", "goal": goal}, **cpython_models(agent_model))
    assert out["ok"] and out["verdict"].startswith(verdict)
    expected = run_react(goal, make_predictor(f"tinyllm-agent:{agent_model}"), return_trajectory=True)
    assert out["trajectory"] == json.loads(json.dumps(trajectory_json(expected)))
    assert out["judgement"] == judge(goal, expected)
    done = subprocess.run([sys.executable, *shlex.split(out["command"])[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.stdout == out["terminal"]


def test_judge_refuses_a_goal_it_would_force():
    assert demo({"demo": "judge", "goal": "calc[48 + 17]"})["error"].startswith("write the goal as a question")


def test_before_after_is_what_lab_before_after_prints(capsys, agent_model):
    out = demo({"demo": "before-after", "per_group": 1}, **cpython_models(agent_model))
    assert out["ok"] and out["command"] == "python -m lllm lab --before-after --per-group 1"
    assert out["text"] + "\n" == terminal(capsys, "lab", "--before-after", "--per-group", "1")
    assert "held-out test goals: 11, greedy, no forcing" in out["text"]


def test_an_agent_model_that_did_not_load_is_a_clear_message(monkeypatch):
    from lllm.web import browser

    def from_browser(model="tinyllm", **options):      # the story model loads; the agent model was not built
        if model == "tinyllm-agent":
            raise RuntimeError("Error: The agent model is not built: run `make agent-model`")
        return lambda prompt, max_new_tokens=None: ""
    monkeypatch.setattr(browser, "from_browser", from_browser)
    out = demo({"demo": "versus", "goal": "hi"}, models=page_demos.browser_models())
    assert out == {"ok": False, "error": "the agent-tuned TinyLLM could not be loaded in this page: "
                                         "The agent model is not built: run `make agent-model`"}


def test_the_agent_model_page_has_the_side_by_side_demo():
    text = (ROOT / "site" / "agents" / "agent-model.md").read_text(encoding="utf-8")
    assert DEMO.findall(text) == ["judge", "versus"] and 'data-goal="What is 48 plus 17?"' in text
    assert "**What the demo shows.**" in text and "live demo" in text


def test_the_widget_marks_failed_steps_by_their_typed_outcome():
    from lllm.agents.react import FAILED
    widget = (ROOT / "site" / "assets" / "agents" / "demo-render.mjs").read_text(encoding="utf-8")
    assert set(js_strings(js_const(widget, "FAILED"))) == {outcome.value for outcome in FAILED}


@pytest.mark.parametrize("goal", ["What is the capital of France?", "Where does Lina live?"])
def test_react_demo_carries_the_grounding_verdict_of_the_agent_model(agent_model, goal):
    """The page draws the label from this typed list (and the trace's last line), not from the text."""
    out = demo({"demo": "react", "goal": goal, "brain": "tinyllm-agent"}, **cpython_models(agent_model))
    assert out["trajectory"]["ungrounded"] == ["no tool answered", "the answer only repeats words of the goal"]
    assert out["trace"].splitlines()[-1] == ("[AGENT] not grounded in any observation: no tool answered; "
                                             "the answer only repeats words of the goal")
