"""A learner's first visit, counted as the network serves it: shared by tests/browser/test_first_visit_browser.py
(Chromium, in `make test`) and bench/engine_bench.py (every engine, in `make bench`).

    server = CountingServer(site_dir, port)       # hooks/serve.py, logging every body it sends
    ... drive a browser with first_visit.js (phase "bare" or "visit") ...
    totals(server.between(t0, t1), site_dir)     # -> Totals(requests, raw, gzip, twice, runtime, revalidated)

Bytes are counted as the server sends them: a file served twice counts twice, a revalidation
answered 304 (no body) counts nothing but is listed (`revalidated`: a round trip the visit could
have done without), and what a service worker answers from its cache never reaches the server.
"gzip" is each file's size gzip-compressed (level 6), what a compressing CDN such as Cloudflare
would send for it; the server itself sends files as they are.

The floor of a first agent answer is what it truly needs: Pyodide's core (what a bare loadPyodide()
fetches), onnxruntime-web's wasm, the agent model and the lllm wheel (`floor_gzip`).
"""

from __future__ import annotations

import functools
import gzip
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SCRIPT = Path(__file__).with_name("first_visit.js")
GOAL, ANSWER = "What is 17 * 23?", "391"
# Served only to a running runtime: none of these may arrive before the reader asks for it.
RUNTIME = ("/assets/runtime/vendor/", "/assets/runtime/model/", "/assets/runtime/runtime.json", "/assets/runtime/lllm_learn-")
PYODIDE = "/assets/runtime/vendor/pyodide/"   # what a bare loadPyodide() fetches is under here
REPORT = "/__report"   # where a driver page POSTs back its value (tests/support/webkit_profile.py)
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


@dataclass
class Sent:
    at: float        # s since the epoch, when the server began sending the body
    path: str        # as asked for, query included
    bytes: int
    status: int = 200   # 304: a revalidation, no body (bytes 0)


class CountingServer:
    """hooks/serve.py's server in a thread; `log` holds one Sent per response body and per 304."""

    def __init__(self, directory: Path, port: int):
        from hooks.serve import make_server
        self.directory = Path(directory)
        self.server = make_server(directory, port)
        self.log: list[Sent] = []
        self.extra: dict[str, tuple[str, bytes]] = {}    # path -> (type, body): served, never logged (a test's driver page)
        self.posted: list[bytes] = []                    # bodies POSTed to REPORT (what a driver page sends back)
        partial = self.server.RequestHandlerClass          # functools.partial(Handler, directory=...)
        log, extra, posted = self.log, self.extra, self.posted

        class Counting(partial.func):
            def do_GET(self):
                found = extra.get(self.path.split("?")[0])
                if found is None:
                    return super().do_GET()
                self.send_response(200)
                self.send_header("Content-Type", found[0])
                self.send_header("Content-Length", str(len(found[1])))
                self.end_headers()
                self.wfile.write(found[1])

            def do_POST(self):
                if self.path != REPORT:
                    return self.send_error(405)
                posted.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                self.send_response(204)
                self.end_headers()

            def send_response(self, code, message=None):
                if code == 304:
                    log.append(Sent(time.time(), self.path, 0, 304))
                super().send_response(code, message)

            def copyfile(self, source, outputfile):
                data = source.read()
                log.append(Sent(time.time(), self.path, len(data)))
                outputfile.write(data)

        self.server.RequestHandlerClass = functools.partial(Counting, **partial.keywords)
        report = self.server.handle_error

        def handle_error(request, client_address):   # a browser closing mid-download is not an error
            if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
                report(request, client_address)
        self.server.handle_error = handle_error
        self.url = f"http://127.0.0.1:{port}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def between(self, start: float, end: float = float("inf")) -> list[Sent]:
        return [s for s in self.log if start <= s.at <= end]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@functools.lru_cache(maxsize=None)
def gzip_size(site: Path, path: str) -> int:
    """The gzip-compressed size of the file the server sends for `path` (0 for a missing one)."""
    rel = path.split("?")[0].lstrip("/")
    file = site / rel / "index.html" if rel == "" or rel.endswith("/") else site / rel
    return len(gzip.compress(file.read_bytes(), 6)) if file.is_file() else 0


@dataclass
class Totals:
    requests: int
    raw: int
    gzip: int
    twice: list[str] = field(default_factory=list)     # paths whose body was sent more than once
    runtime: list[str] = field(default_factory=list)   # runtime paths among them
    revalidated: list[str] = field(default_factory=list)   # paths answered 304 (asked again, no body)

    def ratio(self, other: "Totals | int") -> float:
        return self.gzip / (other.gzip if isinstance(other, Totals) else other)


def totals(log: list[Sent], site: Path) -> Totals:
    sent = [s for s in log if s.status != 304]
    counts = Counter(s.path for s in sent)
    return Totals(
        requests=len(sent), raw=sum(s.bytes for s in sent), gzip=sum(gzip_size(site, s.path) for s in sent),
        twice=sorted(p for p, n in counts.items() if n > 1),
        runtime=sorted({s.path for s in sent if s.path.startswith(RUNTIME)}),
        revalidated=sorted({s.path for s in log if s.status == 304}),
    )


def floor_gzip(site: Path) -> int:
    """What a first agent answer truly needs, gzip-sized: Pyodide's core, onnxruntime-web's wasm,
    the agent model and the lllm wheel (file names from runtime.json)."""
    import json
    base = site / "assets" / "runtime"
    manifest = json.loads((base / "runtime.json").read_text(encoding="utf-8"))
    paths = [manifest["pyodide"] + f for f in PYODIDE_CORE] + [manifest["ort"] + "ort-wasm-simd-threaded.wasm",
             manifest["models"]["tinyllm-agent"]["model"], manifest["wheel"]]
    return sum(gzip_size(site, "/assets/runtime/" + p) for p in paths)
