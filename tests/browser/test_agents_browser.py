"""The agent pages' live demos in real Chromium: each produces the same JSON as the terminal.

One tab boots the runtime once (Pyodide + TinyLLM, ≈10 s) and moves between the agent pages with
Material's instant navigation, so the worker — and the boot — is shared by every test here. The
oracles are `python -m lllm ... --json` (run as a subprocess, exactly what a reader types) and
`lllm.web.demos.run_json` in CPython with the same params the widget sent. Timings (the
playground's) are the only numbers allowed to differ.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.predictors import make_predictor
from lllm.web.demos import run_json

pytestmark = pytest.mark.browser
MODEL = ROOT / "build" / "model" / "tinyllm.onnx"
TIMEOUT = 240_000   # ms: a cold boot plus a TinyLLM batch on a busy 2-core machine
from support.runtime import CELL, run_demo  # noqa: E402
from support.model_files import require_agent_model  # noqa: E402
AGENT_PAGES = ["index", "react", "brains", "tool-calls", "memory", "memory-explainer", "lab", "evaluator",
               "inference-playground"]


def lllm_cli(*argv) -> str:
    """What the terminal prints for `python -m lllm ARGV`."""
    done = subprocess.run([sys.executable, "-m", "lllm", *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def cpython(params: dict) -> dict:
    """The oracle for a widget run: the same params through page_demos in CPython (TinyLLM on onnxruntime)."""
    from lllm.model.onnx_backend import from_onnx
    return json.loads(run_json(json.dumps(params), models={"tinyllm": lambda **options: from_onnx(MODEL, **options)}))


@pytest.fixture(scope="module")
def tab(browser, site_server):
    assert MODEL.is_file(), "run `make model` first"
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    watched.page.goto(site_server.url + "agents/react/")
    watched.page.evaluate("() => lllm.ready()")
    yield watched
    context.close()


def visit(tab, site_server, path: str):
    """Go to an agent page by instant navigation (the runtime worker survives it); its first demo."""
    page = tab.page
    url = site_server.url + path
    if page.url.split("#")[0] != url:               # navigation.tracking adds the heading in view as #hash
        page.evaluate("() => { window.__same_tab = true; }")
        page.evaluate("url => [...document.querySelectorAll('a')].find((a) => a.href === url).click()", url)
        page.wait_for_url(url + "*")
        page.wait_for_function("() => document.querySelector('.lllm-demo')?.dataset.state === 'idle'")
        assert page.evaluate("() => window.__same_tab") is True, "the click reloaded the page"
    page.wait_for_function("() => Boolean(document.querySelector('.lllm-demo')?.dataset.state)")
    return page.locator(".lllm-demo").first


# ---- ReAct: the trace is the terminal's --------------------------------------------------------------

def test_react_demo_is_the_terminal_trace_with_the_rule_brain(tab, site_server):
    demo = visit(tab, site_server, "agents/react/")
    run = run_demo(demo, goal="What is 6 times 7?", brain="rule")
    assert run["state"] == "done"
    trajectory = run["result"]["trajectory"]
    assert trajectory == json.loads(lllm_cli("react", "What is 6 times 7?", "--predictor", "rule", "--json"))
    assert run["result"]["trace"] == lllm_cli("react", "What is 6 times 7?", "--predictor", "rule", "--verbose")
    steps = demo.locator(".lllm-demo__step")
    assert steps.count() == 2
    assert "calc[6 * 7]" in steps.nth(0).locator(".lllm-demo__action").text_content()
    assert steps.nth(0).locator(".lllm-demo__obs").text_content() == "42"
    assert "Question: What is 6 times 7?" in steps.nth(0).locator(".lllm-demo__tail").text_content()
    assert demo.locator(".lllm-demo__answer").text_content() == "Final answer: 42"     # grounded: no label
    assert demo.locator(".lllm-demo__ungrounded").count() == 0


def test_react_demo_is_the_terminal_trace_with_tinyllm(tab, site_server):
    demo = visit(tab, site_server, "agents/react/")
    run = run_demo(demo, goal="Who is Pip?", brain="tinyllm", temperature=0.8, seed=1, max_steps=3)
    assert run["state"] == "done"
    expected = lllm_cli("react", "Who is Pip?", "--predictor", f"tinyllm:{MODEL}", "--temperature", "0.8",
                        "--seed", "1", "--max-steps", "3", "--json")
    assert run["result"]["trajectory"] == json.loads(expected)
    assert demo.locator(".lllm-demo__raw").count() == len(json.loads(expected)["steps"])


def open_character(demo, step: int, c: int) -> dict:
    """In the demo's trace, "Look inside" step `step` and open its character `c`: the drilldown's state and view."""
    item = demo.locator(".lllm-demo__step").nth(step - 1)
    item.locator(".lllm-demo__inside").evaluate("b => b.click()")      # a DOM click: the trace may still be settling
    chars = item.locator(f".lllm-demo__drill .lllm-tt__chars[data-settled] .lllm-tt__char[data-char='{c}']")
    chars.wait_for(timeout=TIMEOUT)                                   # the buttons show the model's own count
    chars.evaluate("b => b.click()")
    slot = item.locator(".lllm-demo__drill")
    demo.page.wait_for_function("el => ['done', 'error'].includes(el.dataset.state)", arg=slot.element_handle(), timeout=TIMEOUT)
    return slot.evaluate("el => ({state: el.dataset.state, view: el.lllmView ?? null, text: el.textContent})")


def test_a_character_of_the_demos_trace_opens_and_another_goes_to_time_travel(tab, site_server):
    """The agent-tuned TinyLLM's run in the demo: a character of its Thought opens the forward pass that drew
    it, the numbers `python -m lllm replay RUN.json --inside 1:1:C --json` prints for the same run (greedy,
    so time travel's branch 1 is this run); "write another character here" hands the run to time travel
    with that prefix, which computes it as branch 2."""
    require_agent_model()
    from lllm.timetravel.react import travel
    demo = visit(tab, site_server, "agents/react/")
    run = run_demo(demo, goal="What is 17 * 23?", brain="tinyllm-agent", max_steps=2)
    assert run["state"] == "done" and [c["prompt"] for c in run["result"]["calls"]] == [
        s["prompt"] for s in travel({"inputs": {"goal": "What is 17 * 23?", "brain": "tinyllm-agent", "max_steps": 2}})["branches"][0]["steps"]]
    assert demo.locator(".lllm-demo__inside").count() == 2            # both steps the model wrote
    opened = open_character(demo, 1, 3)
    assert opened["state"] == "done", opened["text"][:300]
    params = run["params"]                     # the seed and temperature boxes as the reader left them (no effect: greedy)
    inputs = {"goal": "What is 17 * 23?", "brain": "tinyllm-agent", "max_steps": 2, "seed": params["seed"],
              "temperature": params["temperature"]}
    run_file = ROOT / "build" / "demo-drill-run.json"
    run_file.write_text(json.dumps(travel({"inputs": inputs})), encoding="utf-8")
    want = json.loads(lllm_cli("replay", str(run_file), "--inside", "1:1:3", "--json"))
    view = opened["view"]
    assert view["drawn"] == want["drawn"] and view["draw"]["char"] == want["draw"]["char"]
    assert view["logits"] == pytest.approx(want["logits"], abs=1e-4)
    assert [m["argmax"] for m in view["members"]] == [m["argmax"] for m in want["members"]]
    write = demo.locator(".lllm-demo__drill .lllm-tt__write").first
    chosen = write.get_attribute("data-write")
    write.evaluate("b => b.click()")
    widget = tab.page.locator(".lllm-timetravel")
    tab.page.wait_for_function("el => el.querySelectorAll('[role=treeitem]').length === 2 && el.dataset.state === 'done'",
                               arg=widget.element_handle(), timeout=TIMEOUT)
    record = widget.evaluate("el => el.lllmRecord")
    raw = travel({"inputs": inputs})["branches"][0]["steps"][0]["raw"]
    edit = {"parent": 1, "step": 1, "prefix": raw[:2] + chosen}           # "Th" and another third character
    assert chosen != raw[2]
    assert record["edits"] == [edit] and record == json.loads(json.dumps(travel({"inputs": inputs, "edits": [edit]})))


def test_a_sampled_character_of_the_demos_trace_is_drawn_from_where_its_stream_stood(tab, site_server):
    """TinyLLM samples one random stream across the run's calls: a character of step 2 opens with the state
    that call began from, so its draw is the run's character and its numbers are `python -m lllm inside`'s
    for that prompt, seed and position; time travel (a seed per step) is offered instead of another character."""
    demo = visit(tab, site_server, "agents/react/")
    run = run_demo(demo, goal="Who is Pip?", brain="tinyllm", temperature=0.8, seed=1, max_steps=3)
    assert run["state"] == "done"
    steps, calls = run["result"]["trajectory"]["steps"], run["result"]["calls"]
    assert len(steps) >= 2 and len(steps[1]["raw"]) >= 4 and calls[1]["seed"] not in (None, 1)
    opened = open_character(demo, 2, 4)
    assert opened["state"] == "done", opened["text"][:300]
    view = opened["view"]
    assert view["seed"] == calls[1]["seed"] and view["draw"]["char"] == steps[1]["raw"][3]
    want = json.loads(lllm_cli("inside", "--prompt", calls[1]["prompt"], "--seed", str(calls[1]["seed"]), "--temperature", "0.8",
                               "--length", "4", "--position", str(view["position"]), "--json"))
    assert want["draw"]["char"] == view["draw"]["char"] and want["draw"]["uniform"] == view["draw"]["uniform"]
    assert view["logits"] == pytest.approx(want["logits"], abs=1e-4)
    assert demo.locator(".lllm-demo__drill .lllm-tt__write").count() == 0
    assert "time travel below" in opened["text"]


def test_what_the_model_causes_is_a_visible_capped_step(tab, site_server):
    demo = visit(tab, site_server, "agents/react/")
    run = run_demo(demo, goal="What is 17 * 23?", brain="scripted", max_steps=5)   # the default script misbehaves
    assert run["state"] == "done" and run["result"] == cpython(run["params"])
    errors = demo.locator(".lllm-demo__row--error")
    assert errors.count() == 2
    assert errors.nth(0).text_content().endswith("error: unknown tool 'search'; tools are: calc, lookup")
    assert demo.locator(".lllm-demo__answer").text_content() == "Final answer: 391"

    run = run_demo(demo, goal="What is 2 + 2?", brain="scripted", script="lorem ipsum", max_steps=2)
    assert run["state"] == "done" and demo.locator(".lllm-demo__step").count() == 2
    assert demo.locator(".lllm-demo__answer").text_content() == "Stopped without an answer (max steps)."


@pytest.mark.parametrize("goal, copied", [("What is the capital of France?", "capital"),
                                          ("Where does Lina live?", "Where")])
def test_an_answer_resting_on_nothing_is_labelled_on_the_agent_tuned_brain(tab, site_server, goal, copied):
    """The agent-tuned TinyLLM copies a goal word; the page says so, from Python's typed verdict."""
    require_agent_model()
    demo = visit(tab, site_server, "agents/react/")
    run = run_demo(demo, goal=goal, brain="tinyllm-agent", max_steps=5)
    assert run["state"] == "done"
    assert run["result"]["trajectory"] == json.loads(lllm_cli("react", goal, "--predictor", "tinyllm-agent", "--json"))
    assert run["result"]["trace"] == lllm_cli("react", goal, "--predictor", "tinyllm-agent", "--verbose")
    assert demo.locator(".lllm-demo__answer").text_content() == (
        f"Final answer: {copied} — not grounded in any observation: no tool answered; "
        "the answer only repeats words of the goal")
    assert demo.locator(".lllm-demo__ungrounded").is_visible()


@pytest.mark.parametrize("fields, message", [
    ({"goal": "   ", "brain": "rule"}, "goal is empty: ask the agent a question"),
    ({"goal": "hi", "brain": "scripted", "script": "---"}, "the script has no replies"),
    ({"goal": "hi", "brain": "rule", "max_steps": 0}, "max_steps must be between 1 and 10, got 0"),
])
def test_bad_input_shows_a_clear_message(tab, site_server, fields, message):
    demo = visit(tab, site_server, "agents/react/")
    run = run_demo(demo, **fields)
    assert run["state"] == "error"
    assert demo.locator(".lllm-demo__error").text_content().startswith(message)
    assert demo.locator(".lllm-demo__step").count() == 0


# ---- the lab, the evaluator, memory, the playground -------------------------------------------------

def test_lab_table_is_the_cpython_lab(tab, site_server):
    demo = visit(tab, site_server, "agents/lab/")
    run = run_demo(demo, brain="rule", category="")
    report = run["result"]["report"]
    assert report == json.loads(lllm_cli("lab", "--predictor", "rule", "--json"))
    rows = [[td.strip() for td in row.split("\t")] for row in demo.locator("tbody tr").all_inner_texts()]
    for row in rows[:-1]:
        c = report["by_category"][row[0]]
        assert row[1:6] == [str(c["tool"]), str(c["args"]), str(c["answer"]), str(c["ungrounded"]), f"{c['passed']}/{c['total']}"]
    assert rows[-1][0] == "overall" and rows[-1][5] == "30/34" and rows[-1][6] == "88.2%"
    assert demo.locator(".lllm-demo__failures li").count() == 4


def test_lab_with_tinyllm_is_the_cpython_lab(tab, site_server):
    demo = visit(tab, site_server, "agents/lab/")
    run = run_demo(demo, brain="tinyllm", temperature=0.8, seed=0, category="direct")
    expected = lllm_cli("lab", "--predictor", f"tinyllm:{MODEL}", "--category", "direct", "--json")
    report = json.loads(expected)
    report["predictor"] = "tinyllm"                  # the page names the brain, the terminal its spec
    assert run["result"]["report"] == report


def test_evaluator_chart_is_the_cpython_report(tab, site_server):
    demo = visit(tab, site_server, "agents/evaluator/")
    run = run_demo(demo, seeds="0,1")                # the page's default: TinyLLM on the arithmetic cases
    expected = lllm_cli("evaluate", "--predictor", f"tinyllm:{MODEL}", "--seeds", "0,1", "--category", "arithmetic", "--json")
    report = dict(json.loads(expected), predictor="tinyllm")
    assert run["result"]["report"] == report
    bars = demo.locator("rect.lllm-demo__chart-bar")
    assert bars.count() == 6
    width = float(demo.locator("rect.lllm-demo__chart-track").first.get_attribute("width"))
    total = float(bars.nth(5).get_attribute("width"))
    assert total == pytest.approx(width * report["mean"]["total"])


def test_memory_explainer_is_the_terminal_session(tab, site_server):
    demo = visit(tab, site_server, "agents/memory-explainer/")
    run = run_demo(demo, brain="rule")
    assert run["result"]["trace"] == lllm_cli("explain-memory", "--predictor", "rule")
    assert run["result"] == cpython(run["params"])
    blocks = demo.locator(".lllm-demo__block").all_text_contents()
    assert blocks[0].startswith("(empty") and blocks[1] == "Recent conversation:\n- user: What is 17 * 23? | agent: 391"
    assert [demo.locator(".lllm-demo__memory").nth(i).locator("li").count() for i in range(4)] == [1, 2, 3, 4]


def test_playground_table_counts_are_the_terminal_ones(tab, site_server):
    demo = visit(tab, site_server, "agents/inference-playground/")
    demo.locator("input[value='tinyllm']").uncheck()
    demo.locator("input[value='echo']").check()
    run = run_demo(demo, category="lookup")
    expected = json.loads(lllm_cli("playground", "--predictors", "rule,echo", "--category", "lookup", "--json"))
    keep = lambda rows: [(r["name"], r["cases"], r["passed"], r["calls"], r["chars"]) for r in rows]
    assert keep(run["result"]["rows"]) == keep(expected)
    assert demo.locator("tbody tr").first.inner_text().split("\t")[:3] == ["rule", "8/8", "16"]


@pytest.mark.parametrize("path", ["agents/", "agents/brains/", "agents/memory/"])
def test_the_other_pages_demos_match_cpython(tab, site_server, path):
    demo = visit(tab, site_server, path)
    run = run_demo(demo)                              # the page's defaults (brains: TinyLLM)
    assert run["state"] == "done" and run["result"] == cpython(run["params"])


# ---- the runnable cells on the agent pages ----------------------------------------------------------

def test_runnable_cells_print_what_cpython_prints(tab):
    """Cells with the page's TinyLLM only run in the page: they must print something."""
    for name in AGENT_PAGES:
        namespace = {}
        page = ROOT / "site" / "agents" / f"{name}.md"
        for code in CELL.findall(page.read_text(encoding="utf-8")):
            result = tab.page.evaluate("([code, ns]) => lllm.run(code, {namespace: ns})", [code, f"test-{name}"])
            if "lllm.web.browser" in code:
                assert result["stdout"].strip(), f"{page.name}: a TinyLLM cell printed nothing"
                continue
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, page.name, "exec"), namespace)
            assert result["stdout"] == out.getvalue(), page.name


def test_stop_ends_a_long_run_with_a_message(tab, site_server):
    """Last: Stop restarts the runtime worker, so later tests would pay for another boot."""
    demo = visit(tab, site_server, "agents/lab/")
    demo.locator("[name='brain']").select_option("tinyllm")
    demo.locator("[name='category']").select_option("")
    demo.get_by_role("button", name="Run").click()
    demo.page.wait_for_function("el => el.dataset.state === 'running' && /case [2-9]/.test(el.textContent)",
                                arg=demo.element_handle(), timeout=TIMEOUT)
    demo.get_by_role("button", name="Stop").click()
    demo.page.wait_for_function("el => el.dataset.state === 'error'", arg=demo.element_handle(), timeout=30_000)
    assert demo.locator(".lllm-demo__error").text_content() == "Stopped. (Python was restarted.)"
    assert demo.get_by_role("button", name="Run").is_enabled()


def test_the_pages_stayed_clean(tab):
    tab.assert_clean()


# ---- browsers and models that cannot run the demo: a sentence, not a hang ---------------------------

def test_without_jspi_or_isolation_the_demo_names_the_browsers_that_work(browser, site_server):
    """It plays the run recorded at build time (tests/browser/test_course_recorded_browser.py) and names the browsers."""
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    context.add_init_script("delete WebAssembly.Suspending; delete globalThis.SharedArrayBuffer")
    watched.page.goto(site_server.url + "agents/lab/")
    demo = watched.page.locator(".lllm-demo").first
    assert run_demo(demo)["state"] == "recorded"
    message = demo.locator(".lllm-recorded__browsers").text_content()
    assert "JavaScript Promise Integration" in message and "SharedArrayBuffer" in message and "Chrome" in message
    watched.assert_clean()
    context.close()


def test_a_model_that_does_not_load_is_a_clear_message(browser, site_server):
    context = browser.new_context(service_workers="block")
    context.route(re.compile(r"tinyllm\.onnx"), lambda route: route.fulfill(status=200, body=b"not a model"))
    page = context.new_page()
    page.goto(site_server.url + "agents/react/")
    demo = page.locator(".lllm-demo").first
    run = run_demo(demo, brain="tinyllm")
    assert run["state"] == "error"
    message = demo.locator(".lllm-demo__error").text_content()
    assert message.startswith("TinyLLM could not be loaded in this page:") and "does not match its card" in message
    assert run_demo(demo, brain="rule")["result"]["trajectory"]["answer"] == "391"   # the rule brain needs no model
    context.close()
