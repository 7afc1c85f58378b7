"""A chat server that does NOT allow the page's origin: the "refused" case of "your model".

A real OpenAI-compatible answer (GET /v1/models, POST /v1/chat/completions from the rule predictor)
without any CORS header, as Ollama behaves before OLLAMA_ORIGINS names the site: the server runs and
answers, but the browser must not let the page read it. tests/browser/test_yourmodel_engines.py uses
it beside `python -m lllm serve-model` (which does allow the page).

    with plain_chat_server() as url:      # "http://127.0.0.1:PORT"
        ...
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from lllm.predictors.standins.react import RulePredictor


class NoCorsHandler(BaseHTTPRequestHandler):
    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._json(200, {"object": "list", "data": [{"id": "rule", "object": "model"}]})

    def do_OPTIONS(self):                   # a preflight answered without Access-Control-Allow-*
        self.send_response(204)
        self.end_headers()

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        reply = RulePredictor()(request["messages"][-1]["content"])
        self._json(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]})

    def log_message(self, *args):
        pass


@contextmanager
def plain_chat_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), NoCorsHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
