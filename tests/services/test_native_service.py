"""The protocol service on http.server (lllm/services/protocol_service.py, lllm/services/http_server.py), where-to-listen
checks, and the native runtime's HTTP invoker (lllm/runtimes/native/invokers/http.py), against loopback servers."""

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lllm.runtimes.native import Agent, DefaultTagParser, Prompt, tool
from lllm.runtimes.native.invokers.http import HTTPInvoker, InvokerError
from lllm.runtimes.function_tactic import as_tactic
from lllm.services.app import check_host, check_log_level, check_port
from lllm.services.http_server import make_server
from lllm.services.protocol_service import ProtocolService


# ---- where to listen: the checks `lllm serve` turns into usage errors ---------------------------------

@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "0.0.0.0"])
def test_a_host_name_or_address_is_accepted(host):
    assert check_host(host) == host


@pytest.mark.parametrize("host, problem", [("", "non-empty"), (" localhost", "surrounding spaces"),
                                           ("http://localhost", "not a URL"), ("localhost:8000", "host:port")])
def test_a_host_that_is_not_one_is_named(host, problem):
    with pytest.raises(ValueError, match=problem):
        check_host(host)


def test_ports_and_log_levels_are_checked():
    assert check_port("8000") == 8000 and check_log_level("DEBUG") == "debug"
    for bad in ("0", "65536", "http"):
        with pytest.raises(ValueError, match="between 1 and 65535"):
            check_port(bad)
    with pytest.raises(ValueError, match="one of critical, error"):
        check_log_level("loud")


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


def double(n: int) -> int:
    return 2 * n


def test_the_protocol_service_over_http_server(running):
    base = running(make_server(ProtocolService([as_tactic(double)]), port=0))
    with urllib.request.urlopen(base + "/health", timeout=10) as reply:
        assert json.loads(reply.read()) == {"ok": True, "tactics": ["double"]}
    status, body = post(base + "/run", {"input": 21})
    assert status == 200 and body["output"] == 42 and body["tactic"] == "double"
    status, body = post(base + "/run", {"input": "twenty"})
    assert status == 400 and body["detail"]["error"]["tactic"] == "double"


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
