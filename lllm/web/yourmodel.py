"""Platform adapter · "your model" in the page: `PageChatPredictor(endpoint)(prompt) -> completion`, a server on the learner's computer.

Read `predictors/http_predictor.py` (the same request from CPython, over a socket) and `browser.py`
(how a page predictor blocks until JavaScript answers) first. A page has no sockets, so this
predictor hands each prompt to the page (`site/assets/runtime/chat.mjs`, through worker.mjs's
`_lllm_page.chat`): the page calls `POST {url}/v1/chat/completions` with `stream: true`, shows the
text in the trace as it arrives, and answers with the whole reply. The request is the HTTP
predictor's: the agent prompt as one user message, greedy, stopping at `Observation:` (the tool
writes that, never the model).

The endpoint comes from the page as `{"url": "http://127.0.0.1:11434", "model": "qwen2.5:0.5b"}`;
`endpoint()` checks it and says what is wrong in one sentence (a bad endpoint is the reader's
input: ValueError). What the *server* does wrong (not running, refusing the page's origin, no such
model, a timeout) arrives as the page's sentence and is raised as `YourModelError`: inside the ReAct
loop that is a visible "predictor error" step, and a reply without the ReAct format is a repair
step, as for any model.

The native runtime's cells choose it with one line, `your_model()`: the predictor on the endpoint the
page remembers (the address and name last set in any "your model" fields, localStorage
`lllm.yourmodel.v1`; the server's first model when no name was set), for `PredictorInvoker(your_model())`
or a config's `"invoker_config": {"predictor": your_model()}`. The page checks the server first, so
one that is not running is its one sentence, raised at once as `YourModelError`.

Usage (the checks run anywhere; calling the predictor needs the page):

    >>> endpoint({"url": "http://127.0.0.1:11434/v1/", "model": "qwen2.5:0.5b"})
    {'url': 'http://127.0.0.1:11434', 'model': 'qwen2.5:0.5b'}
    >>> endpoint({"url": "https://example.com", "model": ""})
    Traceback (most recent call last):
    ...
    ValueError: your model's address must be a server on this computer, http://127.0.0.1:PORT or http://localhost:PORT, got 'https://example.com'
    >>> PageChatPredictor({"url": "http://localhost:8080", "model": "tinyllm-agent"}).question("Question: hi\\n", 64)["stop"]
    ['Observation:']
    >>> your_model()
    Traceback (most recent call last):
    ...
    lllm.web.yourmodel.YourModelError: your model is remembered by the page; in a terminal use the http invoker (invoker_config {"base_url": "http://127.0.0.1:PORT/v1"})
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["BRAIN", "PageChatPredictor", "YourModelError", "endpoint", "your_model"]

BRAIN = "yourmodel"                     # the brain's name in the page's demos (lllm/web/demos.py)
STOP = ("Observation:",)                # as HttpPredictor: the observation is the tool's to write
MAX_TOKENS = 256                        # a ReAct step is one or two lines; a chatty model is cut here
LOOPBACK = re.compile(r"http://(127\.0\.0\.1|localhost)(:\d{1,5})?")


class YourModelError(RuntimeError):
    """The learner's server could not be used: the page's one sentence, with its fix."""


def endpoint(raw: Any) -> dict:
    """{"url": base URL on loopback without /v1, "model": name or "" (the server's first)}, checked."""
    if not isinstance(raw, dict):
        raise ValueError("your model needs an endpoint: {\"url\": \"http://127.0.0.1:11434\", \"model\": \"NAME\"}")
    url, model = raw.get("url"), raw.get("model", "")
    base = re.sub(r"/v1(/chat/completions|/models)?$", "", url.strip().rstrip("/")) if isinstance(url, str) else ""
    if not LOOPBACK.fullmatch(base):
        raise ValueError("your model's address must be a server on this computer, http://127.0.0.1:PORT or "
                         f"http://localhost:PORT, got {url!r}")
    if not isinstance(model, str) or len(model) > 200 or any(c in model for c in "\n\r\t"):
        raise ValueError(f"your model's name must be one line of text (the server's name for it), got {model!r}")
    return {"url": base, "model": model.strip()}


def _settle(answer: Any) -> Any:
    """As browser.py: a Promise (the JSPI path) is blocked on; a value is already the answer."""
    if not hasattr(answer, "then"):
        return answer
    from pyodide.ffi import run_sync
    return run_sync(answer)


class PageChatPredictor:
    """The learner's server, called by the page: one streamed chat completion per prompt."""

    def __init__(self, raw_endpoint: Any, max_tokens: int = MAX_TOKENS, stop: tuple[str, ...] = STOP):
        self.endpoint, self.max_tokens, self.stop = endpoint(raw_endpoint), max_tokens, list(stop)
        self.calls = 0

    def question(self, prompt: str, max_new_tokens: int | None) -> dict:
        """What the page sends the server (chat.mjs turns it into the OpenAI request body)."""
        return {**self.endpoint, "prompt": prompt, "stop": self.stop, "temperature": 0,
                "max_tokens": self.max_tokens if max_new_tokens is None else max_new_tokens, "call": self.calls}

# --8<-- [start:page-call]
    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        try:
            import _lllm_page               # registered by worker.mjs; exists only in the page
        except ImportError:
            raise YourModelError("your model is called by the page; in a terminal use --predictor http:URL") from None
        self.calls += 1
        try:
            return str(_settle(_lllm_page.chat(json.dumps(self.question(prompt, max_new_tokens)))))
        except Exception as error:          # the page's sentence (a JavaScript Error) as ours
            raise YourModelError(str(error).removeprefix("Error: ")) from None

# --8<-- [end:page-call]

    def __repr__(self) -> str:
        return f"PageChatPredictor(url={self.endpoint['url']!r}, model={self.endpoint['model']!r})"


def your_model(max_tokens: int = MAX_TOKENS, stop: tuple[str, ...] = STOP) -> PageChatPredictor:
    """The learner's model as the page remembers it: a PageChatPredictor on the saved endpoint, checked."""
    try:
        import _lllm_page                   # registered by worker.mjs; exists only in the page
    except ImportError:
        raise YourModelError("your model is remembered by the page; in a terminal use the http invoker "
                             '(invoker_config {"base_url": "http://127.0.0.1:PORT/v1"})') from None
    try:                                    # chat.mjs reads localStorage and asks the server for its models
        saved = json.loads(str(_settle(_lllm_page.chat(json.dumps({"saved": True})))))
    except Exception as error:              # the page's sentence (a JavaScript Error) as ours
        raise YourModelError(str(error).removeprefix("Error: ")) from None
    return PageChatPredictor(saved, max_tokens, stop)
