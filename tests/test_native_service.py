"""The tactic service and the HTTP invoker, against loopback servers."""

import dataclasses
import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lllm.runtimes.native import Agent, DefaultTagParser, Prompt, Tactic, tool
from lllm.runtimes.native.http_invoker import HTTPInvoker, InvokerError
from lllm.runtimes.native.service import TacticApp, load_factory, make_server


@dataclasses.dataclass
class Sum:
    a: int
    b: int


class Adder(Tactic):
    """Add two numbers."""
    name = "adder"
    input_type = Sum

    def call(self, task: Sum) -> int:
        if task.a < 0:
            raise RuntimeError("negative numbers are not supported")
        return task.a + task.b


# ---- the app, without sockets -------------------------------------------------------------------------

def test_routes_and_the_error_envelope():
    app = TacticApp(Adder())
    assert app.handle("GET", "/health") == (200, {"status": "ok", "tactic": "adder"})
    assert app.handle("GET", "/info")[1]["input_schema"]["required"] == ["a", "b"]
    assert app.handle("POST", "/run", b'{"task": {"a": 2, "b": 3}}') == (200, {"ok": True, "result": 5})
    status, body = app.handle("POST", "/run", b'{"task": {"a": "two", "b": 3}}')
    assert status == 400 and body["error"]["type"] == "invalid_input"
    assert "input does not match its type" in body["error"]["message"] and "a\n" in body["error"]["message"]
    assert app.handle("POST", "/run", b"not json")[0] == 400
    assert app.handle("POST", "/run", b'{"task": {"a": -1, "b": 3}}') == (500, {"ok": False, "error": {
        "type": "runtime_error", "message": "RuntimeError: negative numbers are not supported"}})
    assert app.handle("GET", "/run")[0] == 405
    assert app.handle("GET", "/nope")[0] == 404
    assert "summary" in app.handle("POST", "/run", b'{"task": {"a": 1, "b": 1}, "return_session": true}')[1]


def test_load_factory_accepts_module_colon_name():
    assert load_factory("tests.test_native_service:Adder").name == "adder"
    with pytest.raises(ValueError, match="expected MODULE:FACTORY"):
        load_factory("tests.test_native_service")
    with pytest.raises(ValueError, match="gave int, not a Tactic"):
        load_factory("tests.test_native_service:THE_ANSWER")


THE_ANSWER = 42


# ---- over loopback -----------------------------------------------------------------------------------

@pytest.fixture
def running():
    servers = []

    def start(server):
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def post(url, data):
    request = urllib.request.Request(url, data=json.dumps(data).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_service_over_http(running):
    base = running(make_server(TacticApp(Adder()), port=0))
    with urllib.request.urlopen(base + "/health", timeout=10) as reply:
        assert json.loads(reply.read()) == {"status": "ok", "tactic": "adder"}
    assert post(base + "/run", {"task": {"a": 20, "b": 22}}) == (200, {"ok": True, "result": 42})
    assert post(base + "/run", {"nothing": 1})[0] == 400


class FakeChatServer(BaseHTTPRequestHandler):
    """An OpenAI-compatible server that calls `calc` once, then answers with the tool's result."""
    requests = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeChatServer.requests.append(body)
        if self.path != "/v1/chat/completions":
            self.send_response(404)
            self.end_headers()
            return
        tool_results = [m for m in body["messages"] if m["role"] == "tool"]
        if not tool_results:
            message = {"role": "assistant", "content": None, "tool_calls": [{"id": "abc", "type": "function",
                       "function": {"name": "calc", "arguments": '{"expr": "6*7"}'}}]}
        else:
            message = {"role": "assistant", "content": f"<answer>{tool_results[0]['content']}</answer>"}
        payload = json.dumps({"choices": [{"message": message}],
                              "usage": {"prompt_tokens": 10, "completion_tokens": 3}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def test_the_http_invoker_uses_native_tool_calls_and_reported_usage(running):
    base = running(ThreadingHTTPServer(("127.0.0.1", 0), FakeChatServer))

    @tool(description="Evaluate")
    def calc(expr: str) -> str:
        return str(eval(expr, {"__builtins__": {}}))

    FakeChatServer.requests = []
    agent = Agent("solver", Prompt(path="s", prompt="Solve.", function_list=[calc]), HTTPInvoker(base + "/v1"),
                  model_name="tiny-chat")
    agent.open("main")
    agent.receive_prompt(Prompt(path="q", prompt="6*7?", parser=DefaultTagParser(required_xml_tags=["answer"])))
    assert agent.respond().parsed["xml_tags"]["answer"] == ["42"]
    first, second = FakeChatServer.requests
    assert first["model"] == "tiny-chat" and first["tools"][0]["function"]["name"] == "calc"
    assert second["messages"][-2]["tool_calls"][0]["id"] == "abc"
    assert second["messages"][-1] == {"role": "tool", "content": "42", "tool_call_id": "abc"}
    assert agent.sessions[0].cost.prompt_tokens == 20 and agent.sessions[0].cost.completion_tokens == 6


def test_the_http_invoker_names_the_url_when_the_server_fails(running):
    base = running(ThreadingHTTPServer(("127.0.0.1", 0), FakeChatServer))
    with pytest.raises(InvokerError, match="/wrong/chat/completions answered HTTP 404"):
        HTTPInvoker(base + "/wrong")([], [])
    with pytest.raises(ValueError, match="base_url must start with http"):
        HTTPInvoker("localhost:8080")
