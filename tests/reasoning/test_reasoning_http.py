"""`reason --predictor http:URL` (lllm/reasoning/agent.py's token billing) against a real OpenAI-compatible server on loopback, started here.

The server answers with the Game-of-24 stand-in and reports token counts (words, in this test)
in `usage`, the way llama.cpp, vLLM or Ollama do; the benchmark must report the server's counts,
not its own character count, and send `max_tokens`.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lllm.commands import main
from lllm.model.sampling import Mulberry32
from lllm.predictors.standins.game24 import SimulatedModel


class StandInServer(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        with self.server.lock:                      # the stand-in's generator is not thread-safe
            reply = self.server.model(prompt)
            usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(reply.split()),
                     "prompt_tokens_details": {"cached_tokens": 1}}
            self.server.bodies.append(body)
            self.server.usage.append(usage)
        data = json.dumps({"choices": [{"message": {"content": reply}}], "usage": usage}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), StandInServer)
    httpd.daemon_threads = True
    httpd.lock, httpd.bodies, httpd.usage = threading.Lock(), [], []
    httpd.model = SimulatedModel(error_rate=0.0, rng=Mulberry32(0))
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_the_benchmark_reports_the_servers_token_counts(server, capsys):
    url = f"http:http://127.0.0.1:{server.server_address[1]}"
    assert main(["reason", "--predictor", url, "--framework", "cot-sc", "--limit", "2", "--seeds", "1", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    row = record["rows"][0]
    assert record["model"] == f"predictor {url}"
    assert (row["calls"], row["unit"], row["puzzles"]) == (10, "tokens", 2)      # 5 samples per puzzle
    assert row["tokens_in"] == sum(u["prompt_tokens"] for u in server.usage)
    assert row["tokens_out"] == sum(u["completion_tokens"] for u in server.usage)
    assert row["cached_in"] == 10
    assert {body["max_tokens"] for body in server.bodies} == {256}
    assert record["summary"][0]["unit"] == "tokens"


def test_a_server_that_is_not_there_is_one_line(capsys):
    with socket_closed() as port, pytest.raises(SystemExit) as exit_:
        main(["reason", "--predictor", f"http:http://127.0.0.1:{port}", "--framework", "io", "--limit", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("lllm reason: error: --predictor: cannot reach http://127.0.0.1:") and err.count("\n") == 1


class socket_closed:
    """A loopback port with nothing listening on it."""

    def __enter__(self):
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        return self.port

    def __exit__(self, *exc):
        return False
