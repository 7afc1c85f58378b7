"""HttpPredictor against a real OpenAI-compatible server on loopback, started by the test."""

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lllm.predictors import make_predictor
from lllm.predictors.http_predictor import HttpPredictor, HttpPredictorError, chat_url
from lllm.agents.react import run_react


class ChatHandler(BaseHTTPRequestHandler):
    """Answers like a chat server; the test decides how through `server.behaviour`."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        status, payload = self.server.behaviour(body)
        if payload == "SLOW":
            time.sleep(1.0)
            status, payload = 200, {"choices": [{"message": {"content": "late"}}]}
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass                                   # the client gave up first (the timeout test)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ChatHandler)
    httpd.daemon_threads = True
    httpd.requests = []
    httpd.behaviour = lambda body: (200, {"choices": [{"message": {"content": "Final Answer: 4"}}]})
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def url_of(httpd):
    return f"http://127.0.0.1:{httpd.server_address[1]}"


def test_chat_url_accepts_a_server_a_v1_or_the_endpoint():
    assert chat_url("http://h:1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("https://h/v1/chat/completions") == "https://h/v1/chat/completions"
    with pytest.raises(HttpPredictorError, match="expected a URL starting with http://"):
        chat_url("h:1")


def test_sends_the_prompt_and_returns_the_completion_only(server):
    predictor = HttpPredictor(url_of(server), model="tiny", timeout=5)
    assert predictor("Question: 2+2?\n", max_new_tokens=32) == "Final Answer: 4"
    path, body = server.requests[0]
    assert path == "/v1/chat/completions"
    assert body == {"model": "tiny", "messages": [{"role": "user", "content": "Question: 2+2?\n"}],
                    "temperature": 0.0, "stop": ["Observation:"], "max_tokens": 32}


def test_drives_the_react_loop_through_make_predictor(server):
    replies = iter(["Thought: add\nAction: calc[2+2]", "Final Answer: 4"])
    server.behaviour = lambda body: (200, {"choices": [{"message": {"content": next(replies)}}]})
    predictor = make_predictor(f"http:{url_of(server)}")
    assert run_react("What is 2 + 2?", predictor) == "4"
    assert "Observation: 4" in server.requests[1][1]["messages"][0]["content"]


def test_non_200_is_a_clear_error(server):
    server.behaviour = lambda body: (500, {"error": "model not loaded"})
    with pytest.raises(HttpPredictorError, match=r"/v1/chat/completions answered HTTP 500: .*model not loaded"):
        HttpPredictor(url_of(server), timeout=5)("hi")


def test_bad_json_is_a_clear_error(server):
    server.behaviour = lambda body: (200, b"<html>hello</html>")
    with pytest.raises(HttpPredictorError, match="returned invalid JSON"):
        HttpPredictor(url_of(server), timeout=5)("hi")


def test_wrong_json_shape_is_a_clear_error(server):
    server.behaviour = lambda body: (200, {"choices": []})
    with pytest.raises(HttpPredictorError, match=r"without choices\[0\].message.content"):
        HttpPredictor(url_of(server), timeout=5)("hi")


def test_timeout_is_a_clear_error(server):
    server.behaviour = lambda body: (200, "SLOW")
    start = time.perf_counter()
    with pytest.raises(HttpPredictorError, match=r"did not answer within 0.2s"):
        HttpPredictor(url_of(server), timeout=0.2)("hi")
    assert time.perf_counter() - start < 0.9


def test_connection_refused_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]          # a port nobody listens on once the socket closes
    with pytest.raises(HttpPredictorError, match="connection refused"):
        HttpPredictor(f"http://127.0.0.1:{port}", timeout=5)("hi")


def test_a_dead_server_is_a_visible_step_in_the_agent():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    trajectory = run_react("What is 2 + 2?", HttpPredictor(f"http://127.0.0.1:{port}"), return_trajectory=True)
    assert trajectory.stop_reason == "predictor error"
    assert "connection refused" in trajectory.steps[0].observation


def test_complete_returns_the_servers_token_counts_and_sends_max_tokens(server):
    server.behaviour = lambda body: (200, {"choices": [{"message": {"content": "hi"}}],
                                           "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8,
                                                     "prompt_tokens_details": {"cached_tokens": 3}}})
    predictor = HttpPredictor(url_of(server), max_tokens=64)
    assert predictor.complete("hello") == ("hi", {"prompt_tokens": 7, "completion_tokens": 1, "cached_tokens": 3})
    assert predictor("hello", max_new_tokens=5) == "hi"
    assert [body["max_tokens"] for _, body in server.requests] == [64, 5]


def test_a_server_without_usage_gives_no_counts(server):
    assert HttpPredictor(url_of(server)).complete("hello") == ("Final Answer: 4", None)
