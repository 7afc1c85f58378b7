""""Your model" in Chromium, Firefox and WebKit: the ReAct demo on a real OpenAI-compatible server on
loopback (`python -m lllm serve-model`, the agent-tuned TinyLLM), its reply streamed into the trace.

One browser launch per engine runs tests/support/yourmodel_scenario.js on the ReAct page: the CSP lets
the page read loopback and refuses any other origin (a violation event names connect-src, even for an
address that would answer); a server that does not allow the page's origin is one sentence naming
OLLAMA_ORIGINS; the story model's prose is a repair step at every turn; "What is 17 * 23?" on the agent-tuned model ends in 391 while the page showed the
reply growing; the server is stopped (by a control server the page calls) and the next run is one
sentence within 5 s; unreadable settings fall back to the defaults with a message. Chromium also
runs the predictors page's side-by-side demo (the agent-tuned TinyLLM in the page beside your model,
with the prompt both saw) and checks the keyboard, 390 px and axe-core.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from support import engines
from support.axe import serious_violations
from support.model_files import require_agent_model
from support.model_server import ModelServer
from support.plain_chat_server import plain_chat_server

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "support" / "yourmodel_scenario.js"
PAGE = "agents/react/"
GOAL = "What is 17 * 23?"
WITHIN_MS = 5000          # the brief's bound for a failure's sentence (the page's check gives up at 5 s)


class Control(BaseHTTPRequestHandler):
    """POST /stop ends the model server (the page asks, so one scenario call covers the whole story)."""
    stop = staticmethod(lambda: None)

    def do_POST(self):
        self.stop()
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(b"stopped")

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module", params=["chromium", "firefox", "webkit"])
def engine_run(request, site_server):
    """The scenario's report in one engine, with the servers it talked to (one browser launch per engine)."""
    require_agent_model()
    server = ModelServer("--models", "tinyllm-agent,tinyllm").wait_until_up()
    port, model = server.port, "tinyllm-agent"

    def stop():
        server.stop()
    control = ThreadingHTTPServer(("0.0.0.0", 0), type("StopServer", (Control,), {"stop": staticmethod(stop)}))
    threading.Thread(target=control.serve_forever, daemon=True).start()
    try:
        with plain_chat_server() as refusing:
            arg = {"url": f"http://127.0.0.1:{port}", "model": model, "prose": "tinyllm", "refusing": refusing, "goal": GOAL,
                   "control": f"http://127.0.0.1:{control.server_address[1]}",
                   "offsite": f"http://127.0.0.2:{control.server_address[1]}/stop-nothing"}
            url = site_server.url + PAGE
            if request.param == "chromium":
                run = engines.chromium(request.getfixturevalue("browser"), url, arg, SCRIPT, before=keyboard_and_side_by_side(url, arg),
                                       context={"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True})
                run = {"report": {**run["report"], **run["before"]}, "console": run["console"]}
            else:
                run = getattr(engines, request.param)(url, arg, script=SCRIPT)
        yield {**run, "arg": arg, "page_origin": site_server.url.rstrip("/")}
    finally:
        control.shutdown()
        control.server_close()
        server.stop()


VERSUS = """async ({url, model, goal}) => {      // the predictors page: the agent-tuned TinyLLM beside your model
  const demo = document.querySelector('.lllm-demo[data-demo="versus"][data-brains~="yourmodel"]');
  for (let waited = 0; !demo.querySelector("[name=your_model_url]"); waited += 50) {   // drawn once its module loads
    if (waited > 30000) throw new Error("the side-by-side demo was not drawn within 30 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  demo.querySelector("[name=your_model_url]").value = url;
  demo.querySelector("[name=your_model_name]").value = model;
  demo.querySelector("[name=goal]").value = goal;
  demo.querySelector(".lllm-demo__run").click();
  while (demo.dataset.state !== "done" && demo.dataset.state !== "error") await new Promise((r) => setTimeout(r, 100));
  return {state: demo.dataset.state, error: demo.querySelector(".lllm-demo__error")?.textContent ?? null,
    columns: [...demo.querySelectorAll(".lllm-demo__column")].map((c) => [c.dataset.brain, c.querySelector(".lllm-demo__answer")?.textContent]),
    prompt: demo.querySelector(".lllm-your-model__prompt pre")?.textContent ?? null};
}"""


def keyboard_and_side_by_side(url: str, arg: dict):
    """engines.chromium's `before`: the predictors page's side-by-side demo in a second tab, then the keyboard
    path and axe-core on the ReAct demo with its fields shown (the scenario runs after, at 390 px)."""
    def before(page) -> dict:
        side_by_side = page.context.new_page()
        side_by_side.goto(url.replace(PAGE, "agents/brains/"))
        versus = side_by_side.evaluate(VERSUS, arg)
        side_by_side.close()
        demo = page.locator('.lllm-demo[data-demo="react"]')
        demo.locator("[name=brain]").focus()
        page.keyboard.type("your")                    # a closed select takes type-ahead
        keyboard = {"brain": demo.locator("[name=brain]").input_value()}
        demo.locator("[name=your_model_url]").wait_for(timeout=30_000)   # drawn once picking the brain has imported its module
        page.keyboard.press("Tab")
        page.keyboard.press("Control+a")              # the address field holds the default
        page.keyboard.type(arg["url"])
        page.keyboard.press("Tab")
        page.keyboard.type(arg["model"])
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")                  # "Check server"
        said = demo.locator(".lllm-your-model__said")
        said.filter(has_text="answered").wait_for(timeout=10_000)
        keyboard["said"] = said.text_content()
        keyboard["axe"] = serious_violations(page, ".lllm-demo")
        keyboard["scrollWidth"] = page.evaluate("() => document.documentElement.scrollWidth")
        return {"keyboard": keyboard, "versus": versus}
    return before


def report_of(engine_run) -> dict:
    report = engine_run["report"]
    assert "fatal" not in report, report.get("fatal")
    return report


def test_the_page_reads_loopback_and_the_csp_refuses_every_other_origin(engine_run):
    report, arg = report_of(engine_run), engine_run["arg"]
    assert report["reach"] == {"loopback": "read 200", "localhost": "read 200",
                               "offsite": "refused: TypeError", "internet": "refused: TypeError"}
    blocked = [v["blocked"] for v in report["violations"] if v["directive"].startswith("connect-src")]
    for origin in (arg["offsite"].rsplit("/", 1)[0], "https://example.com"):    # the first would answer, but for the CSP
        assert any(b.startswith(origin) for b in blocked), (origin, report["violations"])


def test_a_server_that_refuses_the_origin_is_one_sentence_naming_ollama_origins(engine_run):
    run, origin = report_of(engine_run)["runs"]["refusing"], engine_run["page_origin"]
    assert run["state"] == "error" and run["ms"] < WITHIN_MS, run
    assert run["error"].startswith(f"Nothing at {engine_run['arg']['refusing']} answered this page: start your model's server there")
    assert f"OLLAMA_ORIGINS={origin} ollama serve" in run["error"] and run["error"].count(". ") == 0


def test_a_model_the_server_does_not_have_is_one_sentence_listing_the_ones_it_has(engine_run):
    run = report_of(engine_run)["runs"]["unknown"]
    assert run["state"] == "error" and run["ms"] < WITHIN_MS, run
    assert run["error"] == ('Your server has no model named "no-such-model": it has "tinyllm-agent", "tinyllm"; '
                            "write one of those as the model.")


def test_the_agent_tuned_model_answers_391_and_the_reply_streams_into_the_trace(engine_run):
    run = report_of(engine_run)["runs"]["served"]
    assert run["state"] == "done", run
    assert run["answer"] == "Final answer: 391" and run["result"]["trajectory"]["answer"] == "391"
    assert ["calc", "17 * 23"] in [s["action"] for s in run["result"]["trajectory"]["steps"]]
    first_reply = run["raw"][0]
    growing = [text for text in run["seen"] if "\n---\n" not in text and text != first_reply]
    assert len(growing) >= 2 and all(first_reply.startswith(text) for text in growing), run["seen"]
    assert f"Question: {GOAL}" in run["prompt"]


def test_a_reply_without_the_react_format_is_a_repair_step_as_for_any_model(engine_run):
    run = report_of(engine_run)["runs"]["prose"]           # the story model, served: it writes prose
    trajectory = run["result"]["trajectory"]
    assert run["state"] == "done" and trajectory["stop_reason"] == "max steps", run
    assert {step["outcome"] for step in trajectory["steps"]} == {"repair"} and len(trajectory["steps"]) == 5
    assert run["answer"] == "Stopped without an answer (max steps)."


def test_a_stopped_server_is_one_sentence_within_5_s(engine_run):
    report = report_of(engine_run)
    run, url = report["runs"]["stopped"], engine_run["arg"]["url"]
    assert report["stopped"] == "stopped"
    assert run["state"] == "error" and run["ms"] < WITHIN_MS, run
    assert run["error"] == f"Nothing answers at {url} any more: your model's server stopped, start it again (and press Run)."


def test_the_settings_are_remembered_and_unreadable_ones_fall_back_with_a_message(engine_run):
    report, arg = report_of(engine_run), engine_run["arg"]
    assert json.loads(report["stored"]) == {"url": arg["url"], "model": arg["model"]}
    for corrupt in (report["corrupt"], report["offsiteSaved"]):
        assert corrupt["url"] == "http://127.0.0.1:11434" and corrupt["model"] == ""
        assert corrupt["notice"].startswith("The saved address of your model could not be read, so the defaults are back")


def test_chromium_keyboard_small_screen_and_axe(engine_run):
    keyboard = report_of(engine_run).get("keyboard")
    if keyboard is None:
        pytest.skip("Chromium alone checks the keyboard, 390 px and axe-core")
    assert keyboard["brain"] == "yourmodel"
    assert keyboard["said"] == f'The server answered; the demos will use "{engine_run["arg"]["model"]}".'
    assert keyboard["axe"] == []
    assert keyboard["scrollWidth"] <= 391


def test_chromium_sets_your_model_beside_the_agent_tuned_tinyllm_with_the_prompt_both_saw(engine_run):
    versus = report_of(engine_run).get("versus")
    if versus is None:
        pytest.skip("Chromium alone runs the predictors page's side-by-side demo")
    assert versus["state"] == "done", versus
    assert versus["columns"] == [["tinyllm-agent", "Final answer: 391"], ["yourmodel", "Final answer: 391"]]
    assert versus["prompt"].startswith("Answer the question. You can use these tools:\ncalc:") and versus["prompt"].endswith(f"Question: {GOAL}\n"), versus["prompt"]


def test_the_console_shows_only_the_refusals_the_scenario_asked_for(engine_run):
    arg = engine_run["arg"]                   # WebKit: console.error and uncaught errors only
    expected = ("127.0.0.2", "example.com", arg["refusing"].rsplit(":", 1)[1], arg["url"].rsplit(":", 1)[1],
                "Content-Security-Policy", "Failed to load resource")
    unexpected = [line for line in engine_run["console"] if not any(word in line for word in expected)]
    assert unexpected == [], engine_run["console"]
