"""Reasoning frameworks on the standard Game-of-24 test split, and over HTTP with a server's token counts.

Not a test: it runs the full split (100 puzzles x 10 repeats by default) and prints what
`python -m lllm reason` prints. With `--serve`, it first starts a small OpenAI-compatible server
on loopback that answers with the stand-in (so the numbers are the stand-in's) and reports
`usage` in whitespace-separated tokens, then runs the benchmark through `--predictor http:URL`,
to show the server's counts arriving in the table.

    .venv/bin/python bench/reasoning_bench.py [--framework got,rap] [--seeds 10]
    .venv/bin/python bench/reasoning_bench.py --serve --framework cot-sc,got --limit 10 --seeds 1
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lllm.commands import main                                     # noqa: E402
from lllm.model.sampling import Mulberry32                    # noqa: E402
from lllm.predictors.standins.game24 import SimulatedModel          # noqa: E402


class StandInHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        with self.server.lock:
            reply = self.server.model(prompt, body.get("max_tokens"))
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(reply.split()),
                 "total_tokens": len(prompt.split()) + len(reply.split())}
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}], "usage": usage}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def serve(error_rate: float) -> str:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), StandInHandler)
    httpd.daemon_threads = True
    httpd.lock = threading.Lock()
    httpd.model = SimulatedModel(error_rate, Mulberry32(0))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", default="all")
    parser.add_argument("--seeds", default="10")
    parser.add_argument("--limit", default=None)
    parser.add_argument("--error-rate", default="0.5")
    parser.add_argument("--serve", action="store_true", help="run through a loopback OpenAI-compatible server")
    args = parser.parse_args()
    argv = ["reason", "--framework", args.framework, "--seeds", args.seeds, "--error-rate", args.error_rate]
    argv += ["--limit", args.limit] if args.limit else []
    if args.serve:
        argv += ["--predictor", "http:" + serve(float(args.error_rate))]
    sys.exit(main(argv))
