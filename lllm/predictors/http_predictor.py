"""Layer 2 · a Predictor backed by an OpenAI-compatible server: `HttpPredictor(url)(prompt) -> completion`.

Read `contract.py` first. Many local model servers (llama.cpp's `llama-server`, Ollama, vLLM,
LM Studio) speak the same `POST /v1/chat/completions` protocol. This adapter sends the whole
agent prompt as one user message and returns the reply text — the completion only, as the
contract requires — so every agent in LLLM can run on a real model with no code change.

Stdlib only (`urllib`), CPython only: in the browser (Pyodide) there are no sockets, so
constructing one raises a clear HttpPredictorError instead of failing later. Every failure
(connection refused, timeout, a non-200 answer, a body that is not the expected JSON) is an
HttpPredictorError with a one-line message naming the URL; `run_react` turns it into a visible
"predictor error" step.

Usage (with a server running; `lllm react GOAL --predictor http:http://127.0.0.1:8080`):

    predictor = HttpPredictor("http://127.0.0.1:8080", model="qwen2.5", timeout=30)
    predictor("Question: What is 2 + 2?\\n", max_new_tokens=64)     # -> 'Thought: ...'
"""

from __future__ import annotations

import json
import socket
import sys
import urllib.error
import urllib.request

__all__ = ["HttpPredictor", "HttpPredictorError", "chat_url"]


class HttpPredictorError(RuntimeError):
    """The server could not be reached or did not answer as an OpenAI-compatible server does."""


def chat_url(url: str) -> str:
    """The chat-completions endpoint for a server URL, a `/v1` URL or the endpoint itself."""
    if not url.startswith(("http://", "https://")):
        raise HttpPredictorError(f"--predictor http: expected a URL starting with http:// or https://, got {url!r}")
    url = url.rstrip("/")
    if url.endswith("/chat/completions"):
        return url
    return url + ("/chat/completions" if url.endswith("/v1") else "/v1/chat/completions")


class HttpPredictor:
    """Calls `POST {url}/v1/chat/completions` once per prompt; returns the message content."""

    def __init__(self, url: str, model: str = "default", timeout: float = 60.0,
                 temperature: float = 0.0, stop: tuple[str, ...] = ("Observation:",),
                 api_key: str | None = None):
        if sys.platform == "emscripten":
            raise HttpPredictorError("the HTTP predictor needs CPython sockets; in the page, use TinyLLM")
        self.url, self.model, self.timeout = chat_url(url), model, timeout
        self.temperature, self.stop, self.api_key = temperature, list(stop), api_key

    def request_body(self, prompt: str, max_new_tokens: int | None) -> dict:
        body = {"model": self.model, "messages": [{"role": "user", "content": prompt}],
                "temperature": self.temperature, "stop": self.stop}
        if max_new_tokens is not None:
            body["max_tokens"] = max_new_tokens
        return body

# --8<-- [start:http-call]
    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(self.request_body(prompt, max_new_tokens)).encode("utf-8")
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        return self._content(self._post(request))

# --8<-- [end:http-call]
    def _post(self, request) -> bytes:
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as error:
            detail = " ".join(error.read().decode("utf-8", "replace").split())[:200]
            raise HttpPredictorError(f"{self.url} answered HTTP {error.code}: {detail or error.reason}") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                raise HttpPredictorError(f"{self.url} did not answer within {self.timeout:g}s") from None
            if isinstance(error.reason, ConnectionRefusedError):
                raise HttpPredictorError(f"cannot reach {self.url}: connection refused (is the server running?)") from None
            raise HttpPredictorError(f"cannot reach {self.url}: {error.reason}") from None
        except (TimeoutError, socket.timeout):
            raise HttpPredictorError(f"{self.url} did not answer within {self.timeout:g}s") from None
        except OSError as error:
            raise HttpPredictorError(f"cannot reach {self.url}: {error}") from None

    def _content(self, payload: bytes) -> str:
        try:
            reply = json.loads(payload)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise HttpPredictorError(f"{self.url} returned invalid JSON: {payload[:80]!r}") from None
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise HttpPredictorError(f"{self.url} returned JSON without choices[0].message.content") from None
        if content is not None and not isinstance(content, str):
            raise HttpPredictorError(f"{self.url} returned a {type(content).__name__} as message content")
        return content or ""

    def __repr__(self) -> str:
        return f"HttpPredictor({self.url!r}, model={self.model!r})"
