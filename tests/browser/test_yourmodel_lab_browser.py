""""Your model" in the reasoning lab, in Chromium: a real OpenAI-compatible server on loopback
(`python -m lllm serve-model`, the story model) runs chain of thought on one Game-of-24 puzzle.

The model writes whatever it writes (the story model does not know the game), so the test asserts
the run's shape, not its verdict: the lab finishes, draws the search tree and the verdict from the
record `lab_json` returned for the chosen framework and puzzle, counts the calls the page's requests
made (each seen reaching the server and answered 200), and names the model. Then the server is
stopped and the next Run is the ReAct demo's one sentence; a server that lists its model but fails
the completion itself (Python is waiting by then) is its one sentence too, never a recording. One
browser launch.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from support.model_server import ModelServer

pytestmark = pytest.mark.browser
PUZZLE, FRAMEWORK, MODEL = 900, "cot", "tinyllm"


class FailingHandler(BaseHTTPRequestHandler):
    """Lists one model, then answers every completion HTTP 500 with an OpenAI error, allowing any origin."""

    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in (("Content-Type", "application/json"), ("Access-Control-Allow-Origin", "*"),
                            ("Access-Control-Allow-Headers", "Content-Type"), ("Content-Length", str(len(data)))):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self):
        self._json(200, {})

    def do_GET(self):
        self._json(200, {"object": "list", "data": [{"id": "failing", "object": "model"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._json(500, {"error": {"message": "the model ran out of memory"}})

    def log_message(self, *args):
        pass


def wait_until_settled(lab, timeout=300_000):
    from playwright.sync_api import expect
    expect(lab).not_to_have_attribute("data-state", "running", timeout=timeout)
    expect(lab).not_to_have_attribute("data-state", "idle", timeout=timeout)
    return lab.get_attribute("data-state")


@pytest.fixture(scope="module")
def lab_run(browser, site_server):
    """The lab's run on the served story model, then its Run once the server stopped."""
    server = ModelServer("--models", MODEL).wait_until_up()
    context = browser.new_context(service_workers="block")
    seen: list[tuple[str, int]] = []
    try:
        page = context.new_page()
        page.on("response", lambda r: seen.append((r.url, r.status)) if r.url.startswith(server.base) else None)
        page.goto(site_server.url + "reasoning/")
        lab = page.locator(".lllm-reasoning-lab")
        lab.locator("select[name=model]").select_option("yourmodel")
        lab.locator("[name=your_model_url]").fill(server.base)
        lab.locator("[name=your_model_name]").fill(MODEL)
        lab.locator("[name=your_model_name]").press("Tab")             # leaving the field remembers it
        lab.locator("select[name=task]").select_option("game24")
        lab.locator("input[name=puzzle]").fill(str(PUZZLE))
        lab.locator("select[name=framework]").select_option(FRAMEWORK)
        lab.locator(".lllm-reasoning-lab__run").click()
        run = {"state": wait_until_settled(lab), "result": lab.evaluate("el => el.lllmResult"),
               "nodes": lab.locator("li.lllm-reasoning-lab__node").count(),
               "verdict": lab.locator(".lllm-reasoning-lab__verdict").text_content(timeout=5000) if lab.locator(".lllm-reasoning-lab__verdict").count() else None,
               "note": lab.locator(".lllm-reasoning-lab__note").first.text_content(),
               "error": lab.locator(".lllm-reasoning-lab__error").all_text_contents(),
               "stored": page.evaluate("() => localStorage.getItem('lllm.yourmodel.v1')"), "seen": list(seen)}
        server.stop()
        lab.locator(".lllm-reasoning-lab__run").click()
        stopped = {"state": wait_until_settled(lab, 30_000), "error": lab.locator(".lllm-reasoning-lab__error").all_text_contents()}
        failing = ThreadingHTTPServer(("127.0.0.1", 0), FailingHandler)
        threading.Thread(target=failing.serve_forever, daemon=True).start()
        try:
            failing_url = f"http://127.0.0.1:{failing.server_address[1]}"
            lab.locator("[name=your_model_url]").fill(failing_url)
            lab.locator("[name=your_model_name]").fill("failing")
            lab.locator(".lllm-reasoning-lab__run").click()
            mid_run = {"state": wait_until_settled(lab, 120_000), "url": failing_url,
                       "error": lab.locator(".lllm-reasoning-lab__error").all_text_contents()}
        finally:
            failing.shutdown()
            failing.server_close()
        yield {"run": run, "stopped": stopped, "mid_run": mid_run, "url": server.base}
    finally:
        context.close()
        server.stop()


def test_the_lab_runs_a_framework_on_your_model_and_draws_its_run(lab_run):
    run = lab_run["run"]
    assert run["state"] == "done", run
    result = run["result"]
    assert result["ok"] is True and result["task"] == "game24", result
    assert (result["framework"], result["puzzle_idx"]) == (FRAMEWORK, PUZZLE)
    assert result["usage"]["calls"] >= 1 and result["usage"]["tokens_out"] > 0 and result["usage"]["unit"] == "chars"
    assert run["nodes"] == len(result["search"]) == len(result["tree"]) >= 1
    assert result["verification"]["message"] in run["verdict"] and f"{result['usage']['calls']} model calls" in run["verdict"]
    assert run["note"] == f'Model: your model, "{MODEL}" at {lab_run["url"]} (counted in characters).'


def test_the_calls_reached_the_server_and_the_settings_are_remembered(lab_run):
    run = lab_run["run"]
    chats = [status for url, status in run["seen"] if url == lab_run["url"] + "/v1/chat/completions"]
    assert chats == [200] * run["result"]["usage"]["calls"], run["seen"]
    assert (lab_run["url"] + "/v1/models", 200) in run["seen"]          # the check before Python started
    assert json.loads(run["stored"]) == {"url": lab_run["url"], "model": MODEL}     # the ReAct demo's settings


def test_a_stopped_server_is_the_react_demos_one_sentence(lab_run):
    stopped, url = lab_run["stopped"], lab_run["url"]
    assert stopped["state"] == "error"
    assert stopped["error"] == [f"Nothing answers at {url} any more: your model's server stopped, start it again (and press Run)."]


def test_a_completion_the_server_fails_is_one_sentence_from_python(lab_run):
    mid_run = lab_run["mid_run"]
    assert mid_run["state"] == "error"
    assert mid_run["error"] == [f"{mid_run['url']}/v1/chat/completions answered HTTP 500: the model ran out of memory."]
