"""The agent-model page in real Chromium: its live demo runs the story model and the agent-tuned
TinyLLM on one goal, and each column is CPython's trajectory character for character.

The oracle is `run_react(goal, make_predictor(...), ...)` in this process: `tinyllm` at temperature
0 and `tinyllm-agent` (greedy by default), both through onnxruntime; the page runs the same Python
on onnxruntime-web. Greedy runs have no seed to agree on, so any difference is a difference in the
predictor (prompt, stops, length) or the model files. One tab boots the runtime once; the tests
that serve a changed manifest or card boot their own.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.predictors import make_predictor
from lllm.agents.react import run_react, terminal_text, trajectory_json
from support.model_files import MODEL, require_agent_model
from support.runtime import CELL, run_demo

pytestmark = pytest.mark.browser
PAGE = "agents/agent-model/"
BRAINS = {"tinyllm": lambda agent: make_predictor(f"tinyllm:{MODEL}", temperature=0),
          "tinyllm-agent": lambda agent: make_predictor(f"tinyllm-agent:{agent}", temperature=0)}


@pytest.fixture(scope="module")
def agent_model():
    return require_agent_model()


@pytest.fixture(scope="module")
def tab(browser, site_server, agent_model):
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    watched.page.goto(site_server.url + PAGE)
    watched.page.evaluate("() => lllm.ready()")
    yield watched
    context.close()


def demo_on(page, kind: str = "versus"):
    """The page's demo of one kind (the agent-model page has two: the typed-goal box, then versus)."""
    selector = f".lllm-demo[data-demo='{kind}']"
    page.wait_for_function("s => Boolean(document.querySelector(s)?.dataset.state)", arg=selector)
    return page.locator(selector)




# ---- the demo: both columns are CPython's runs ----------------------------------------------------

def test_each_model_loads_only_when_asked_for(tab):
    """Python and onnxruntime-web load with the runtime; each model waits until something names it
    (the next test's demo runs both)."""
    assert demo_on(tab.page).locator("[name='goal']").input_value() == "What is 48 plus 17?"
    assert any("ort-wasm-simd-threaded.wasm" in u for u in tab.requests)
    assert not [u for u in tab.requests if "/model/tinyllm" in u]


@pytest.mark.parametrize("goal", ["What is 48 plus 17?", "Who is Pip?", "Say the word tiger."])
def test_both_columns_are_the_cpython_trajectories(tab, agent_model, goal):
    demo = demo_on(tab.page)
    run = run_demo(demo, goal=goal)
    assert run["state"] == "done", demo.text_content()
    assert [r["brain"] for r in run["result"]["runs"]] == ["tinyllm", "tinyllm-agent"]
    for got in run["result"]["runs"]:
        expected = run_react(goal, BRAINS[got["brain"]](agent_model), return_trajectory=True)
        assert got["trajectory"] == json.loads(json.dumps(trajectory_json(expected))), got["brain"]   # raw outputs too
        column = demo.locator(f".lllm-demo__column[data-brain='{got['brain']}']")
        assert column.locator(".lllm-demo__terminal pre").text_content() == terminal_text(expected)
        assert column.locator(".lllm-demo__raw").all_text_contents() == [s.raw for s in expected.steps]
        assert column.locator(".lllm-demo__step-title").all_text_contents() == ["the model's step"] * len(expected.steps)
        summary = column.locator(".lllm-demo__terminal summary").text_content()
        assert summary.endswith(f"--predictor {got['brain']}" + (" --temperature 0" if got["brain"] == "tinyllm" else ""))
    echoed = demo.locator(".lllm-demo__column[data-brain='tinyllm-agent'] .lllm-demo__ungrounded").count()
    assert echoed == (goal == "Say the word tiger.")       # an echo rests on the goal, not on an observation
    assert any("/model/tinyllm-agent.onnx" in u for u in tab.requests)


def test_a_gallery_row_runs_its_goal_in_the_demo_as_the_gallery_says(tab, agent_model):
    """The gallery of failures: each row has a "Try it" button that runs its goal in the demo, and
    the agent column is the trajectory the row records (the terminal's, for the committed model)."""
    from lllm.labs.heldout import grammar as hg
    from test_agent_gallery import gallery_rows, goal_of
    page = tab.page
    buttons = page.locator(".lllm-gallery .lllm-gallery__try")
    goals, rows = gallery_rows()
    assert buttons.count() == len(rows)
    row = rows[-1]
    goal = goals[goal_of(row)]
    demo = demo_on(page)
    buttons.nth(len(rows) - 1).click()
    page.wait_for_function("([el, goal]) => el.lllmParams?.goal === goal && ['done', 'error'].includes(el.dataset.state)",
                           arg=[demo.element_handle(), goal.goal], timeout=300_000)
    assert demo.locator("[name='goal']").input_value() == goal.goal
    result = demo.evaluate("el => el.lllmResult")
    agent = next(r for r in result["runs"] if r["brain"] == "tinyllm-agent")
    expected = run_react(goal.goal, BRAINS["tinyllm-agent"](agent_model), return_trajectory=True)
    assert agent["trajectory"] == json.loads(json.dumps(trajectory_json(expected)))
    assert hg.gallery_row(goal, expected) == row


@pytest.mark.parametrize("goal, verdict", [("What is 48 plus 17, Kim has 3 kites?", "wrong"), ("WHAT IS 31 MULTIPLIED BY 4?", "right"),
                                           ("How old is Tom?", "unknown")])
def test_the_typed_goal_box_runs_the_agent_model_and_judges_it_as_cpython_does(tab, agent_model, goal, verdict):
    """The gallery's write-your-own box: the agent model's run is CPython's, and the verdict is the
    one `lllm.labs.heldout.structure.judge` gives in CPython (right / wrong against the real calc, or none)."""
    from lllm.labs.heldout.structure import judge
    from lllm.web.demos import _verdict
    demo = demo_on(tab.page, "judge")
    assert demo.get_attribute("data-goal") == "Quick one: 48 plus 7?"     # the box's first goal
    run = run_demo(demo, goal=goal)
    assert run["state"] == "done", demo.text_content()
    expected = run_react(goal, BRAINS["tinyllm-agent"](agent_model), return_trajectory=True)
    assert run["result"]["trajectory"] == json.loads(json.dumps(trajectory_json(expected)))
    assert run["result"]["judgement"] == judge(goal, expected)
    shown = demo.locator(".lllm-demo__verdict")
    assert shown.get_attribute("data-verdict") == verdict
    assert shown.text_content() == _verdict(judge(goal, expected), expected)
    assert demo.locator(".lllm-demo__terminal pre").text_content() == terminal_text(expected)


def test_the_terminal_command_prints_the_column(tab, agent_model):
    """The command under each column, typed into a terminal (at the repo root), prints its text."""
    demo = demo_on(tab.page)
    run = run_demo(demo, goal="What is 48 plus 17?")
    for got in run["result"]["runs"]:
        python, *argv = shlex.split(got["command"])
        assert python == "python" and argv[:4] == ["-m", "lllm", "react", "What is 48 plus 17?"]
        done = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
        column = demo.locator(f".lllm-demo__column[data-brain='{got['brain']}']")
        assert done.stdout == got["terminal"] == column.locator(".lllm-demo__terminal pre").text_content()


@pytest.mark.parametrize("goal, message", [
    ("   ", "goal is empty: ask the agent a question"),
    ("calc[48 + 17]", "write the goal as a question, not as a tool call (calc[...])"),
])
def test_a_bad_goal_is_a_clear_message(tab, goal, message):
    demo = demo_on(tab.page)
    run = run_demo(demo, goal=goal)
    assert run["state"] == "error"
    assert demo.locator(".lllm-demo__error").text_content().startswith(message)
    assert demo.locator(".lllm-demo__column").count() == 0


def test_the_cell_runs_the_agent_model_as_cpython_does(tab, agent_model):
    from lllm.model.onnx_backend import from_onnx
    cells = CELL.findall((ROOT / "site" / "agents" / "agent-model.md").read_text(encoding="utf-8"))
    code = next(c for c in cells if 'model="tinyllm-agent"' in c)
    namespace = {"from_browser": lambda model, **options: from_onnx(agent_model, **options)}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace("from lllm.web.browser import from_browser\n", ""), "agent-model.md", "exec"), namespace)
    result = tab.page.evaluate("code => lllm.run(code, {namespace: 'test-agent-model'})", code)
    assert result["stdout"] == out.getvalue() and "Question: Tell me about Pip." in result["stdout"]


def test_the_lab_offers_the_agent_model_without_sampling_controls(tab, site_server, agent_model):
    page = tab.page
    page.evaluate("url => { const a = document.createElement('a'); a.href = url; document.body.append(a); a.click(); }",
                  site_server.url + "agents/lab/")
    page.wait_for_url(site_server.url + "agents/lab/*")
    page.wait_for_function("() => document.querySelector('.lllm-demo')?.dataset.demo === 'lab'")
    demo = demo_on(page, "lab")
    demo.locator("[name='brain']").select_option("tinyllm-agent")
    assert demo.locator(".lllm-demo__sampling").is_hidden()
    run = run_demo(demo, category="lookup")
    assert run["state"] == "done"
    done = subprocess.run([sys.executable, "-m", "lllm", "lab", "--predictor", f"tinyllm-agent:{agent_model}",
                           "--category", "lookup", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = dict(json.loads(done.stdout), predictor="tinyllm-agent")   # the page names the brain, the terminal its spec
    assert run["result"]["report"] == report
    demo.locator("[name='brain']").select_option("tinyllm")
    assert demo.locator(".lllm-demo__sampling").is_visible()


def test_the_lab_pages_before_after_table_is_the_terminals(tab, site_server, agent_model):
    """The lab page's before/after demo: the table text equals `lllm lab --before-after` for N."""
    page = tab.page
    if "/agents/lab/" not in page.url:
        page.goto(site_server.url + "agents/lab/")
        page.evaluate("() => lllm.ready()")
    page.wait_for_function("() => document.querySelector(\".lllm-demo[data-demo='before-after']\")?.dataset.state")
    demo = page.locator(".lllm-demo[data-demo='before-after']")
    run = run_demo(demo, per_group=1)
    assert run["state"] == "done"
    done = subprocess.run([sys.executable, "-m", "lllm", "lab", "--before-after", "--per-group", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert run["result"]["text"] + "\n" == done.stdout
    assert demo.locator(".lllm-demo__terminal pre").text_content() == run["result"]["text"]
    cells = demo.locator(".lllm-demo__before-after tr").last.locator("td").all_text_contents()
    overall = run["result"]["rows"][-1]
    assert cells[:2] == ["all held-out goals", "11"]
    assert cells[2:] == [f"{s[c]:.1f}%" for s in overall["scores"] for c in run["result"]["criteria"]]
    assert run["result"]["command"] == "python -m lllm lab --before-after --per-group 1"
    assert "agent model" in run["result"]["text"] and "held-out test goals: 11," in run["result"]["text"]


def test_the_pages_stayed_clean(tab):
    tab.assert_clean()


# ---- a site built without the agent model: the demo says what to run ------------------------------

def test_a_missing_agent_model_is_a_clear_message(browser, site_server):
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    manifest = json.loads((site_server.dir / "assets" / "runtime" / "runtime.json").read_text(encoding="utf-8"))
    manifest["models"]["tinyllm-agent"] = {"missing": "the agent model is not built: run `make agent-model`",
                                           "build": "make agent-model"}   # what hooks/runtime.py writes then
    context.route(re.compile(r"/runtime\.json$"), lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(manifest)))
    watched.page.goto(site_server.url + PAGE)
    demo = demo_on(watched.page)
    run = run_demo(demo, goal="What is 48 plus 17?")
    assert run["state"] == "error"
    message = demo.locator(".lllm-demo__error").text_content()
    assert message == "the agent-tuned TinyLLM could not be loaded in this page: The agent model is not built: run `make agent-model`"
    assert not [u for u in watched.requests if "tinyllm-agent" in u]
    watched.assert_clean()
    context.close()


@pytest.mark.parametrize("field", ["reads_from", "number_slots"])
def test_the_cards_reading_fields_are_honoured_as_in_cpython(browser, site_server, agent_model, tmp_path, field):
    """A card's `reads_from` ("Question: ": where the agent model's training text starts) makes both
    predictors feed the model from the last such line; its `number_slots` makes both read the
    prompt's numbers as #1, #2... and put them back into the reply (`generate.NumberSlots`). The
    built card's choices are checked above; here the page is served the card with one field
    toggled, against CPython on the same card (the trajectory both show has the real numbers)."""
    from lllm.model.generate import NumberSlots
    card = json.loads((ROOT / "build" / "model" / "tinyllm-agent.json").read_text(encoding="utf-8"))
    if card.pop(field, None) is None:
        card[field] = "Question: " if field == "reads_from" else NumberSlots().to_card()
    shutil.copy(agent_model, tmp_path / "tinyllm-agent.onnx")
    (tmp_path / "tinyllm-agent.json").write_text(json.dumps(card), encoding="utf-8")
    goal = "What is 48 plus 17?"
    expected = run_react(goal, make_predictor(f"tinyllm-agent:{tmp_path / 'tinyllm-agent.onnx'}"), return_trajectory=True)
    as_built = run_react(goal, make_predictor(f"tinyllm-agent:{agent_model}"), return_trajectory=True)
    assert expected.steps[0].raw != as_built.steps[0].raw, f"pick a goal where {field} changes the run"
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    context.route(re.compile(r"/model/tinyllm-agent\.json"), lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(card)))
    watched.page.goto(site_server.url + PAGE)
    run = run_demo(demo_on(watched.page), goal=goal)
    assert run["state"] == "done"
    assert run["result"]["runs"][1]["trajectory"] == json.loads(json.dumps(trajectory_json(expected)))
    watched.assert_clean()
    context.close()
