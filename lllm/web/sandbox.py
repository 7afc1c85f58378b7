"""Platform adapter · run_python in the page: the model's code runs in another interpreter, in an opaque-origin frame.

Read `lllm/runtimes/native/sandbox/worker.py` first (the budget and `run_code`), then the page side,
`site/assets/runtime/sandbox.mjs`. The page's own Python (this side) holds the proxies, the
learner's progress is in the page's localStorage, and its caches hold the site for offline use.
Code a model wrote must reach none of them, so it does not run here: `FrameInterpreter.run(code)`
sends it to a second Pyodide, started ahead while the page is idle (or on the first call) and
restored from a memory snapshot of a Python that has only started, in a Web Worker of an
`<iframe sandbox="allow-scripts">`, whose origin is opaque ("null"): no localStorage, no Cache
Storage, no IndexedDB, no service worker, and the site's files are cross-origin to it. That
interpreter runs the same `run_code` under the same budget, and `CALL_API` is its one channel out:
a message this side answers by calling the proxy here (the protocol of `process.py`:
`{"call_api": [path, params]}` out, `{"result": ...}` or `{"error": [type, message]}` back,
`{"done": text}` at the end; the page passes CALL_API's JSON on as text, so a float stays a float). Variables persist per interpreter (one `session` each). The page's
Stop ends that frame with the rest of the runtime.

Usage (`ask` is the page's channel; here a list of replies stands in for it):

    >>> from lllm.runtimes.native.sandbox.worker import BUDGET
    >>> replies = iter([{"call_api_json": '{"call_api": ["demo/n", {}]}'}, {"done": "42"}])
    >>> python = FrameInterpreter(lambda path, params: 21, BUDGET, ask=lambda message: next(replies))
    >>> answer = python.run('print(CALL_API("demo/n", {}) * 2)')
    >>> answer, answer.metadata
    ('42', {'boundary': 'opaque-origin frame'})
"""

from __future__ import annotations

import itertools
import json
import pathlib

__all__ = ["FrameInterpreter", "use_page_sandbox"]

_SESSIONS = itertools.count(1)


def _worker_source() -> str:
    from lllm.runtimes.native.sandbox import worker
    return pathlib.Path(worker.__file__).read_text(encoding="utf-8")


class FrameInterpreter:
    boundary = "opaque-origin frame"

    def __init__(self, call_api, budget: dict, ask):
        self.call_api, self.budget, self.ask = call_api, dict(budget), ask
        self.session = f"session-{next(_SESSIONS)}"
        self.source = _worker_source()         # sent with every run: a frame started anew needs it (6 KB)

    def run(self, code: str):
        reply = self.send({"run": code, "budget": self.budget, "source": self.source})
        while "call_api_json" in reply:        # the sandboxed code is blocked in CALL_API: answer it
            path, params = json.loads(reply["call_api_json"])["call_api"]
            try:
                answer = {"result": self.call_api(path, params)}
            except Exception as exc:           # the model's mistake: it becomes that code's exception
                answer = {"error": [type(exc).__name__, str(exc)]}
            reply = self.send(answer)
        from lllm.runtimes.native.sandbox.boundary import Answer
        return Answer(reply["done"], self.boundary)

    def send(self, message: dict) -> dict:
        return self.ask({**message, "session": self.session})

    def close(self) -> None:
        try:
            self.send({"close": True})
        except Exception:                      # the page's runtime is gone (Stop): nothing to close
            pass


def use_page_sandbox(send) -> None:
    """Make "frame" run_python's interpreter in this page; `send(text) -> text` is one blocking question
    to the page's sandbox.mjs (the code-cell runner passes it). Only once Pydantic is installed: the
    sandbox package sits inside the native runtime, which imports it."""
    import importlib.util
    if importlib.util.find_spec("pydantic") is None:
        return
    from lllm.runtimes.native.sandbox import use_platform_sandbox

    def ask(message: dict) -> dict:
        return json.loads(send(json.dumps(message, default=repr)))
    use_platform_sandbox("frame", lambda call_api, budget: FrameInterpreter(call_api, budget, ask))
