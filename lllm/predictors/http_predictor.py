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

`complete(prompt, max_new_tokens)` returns the reply *and* the server's token counts (its
`usage`: prompt, completion and cached prompt tokens, or None when the server sends none), for
callers that account for tokens (the reasoning Agent). Calling the predictor returns the text.
`max_tokens` is sent whenever a limit is given, by the caller or as `max_tokens=` here.

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
                 api_key: str | None = None, max_tokens: int | None = None):
        if sys.platform == "emscripten":
            raise HttpPredictorError("the HTTP predictor needs CPython sockets; in the page, use TinyLLM")
        self.url, self.model, self.timeout = chat_url(url), model, timeout
        self.temperature, self.stop, self.api_key = temperature, list(stop), api_key
        self.max_tokens = max_tokens        # sent when a call gives no max_new_tokens

    def request_body(self, prompt: str, max_new_tokens: int | None) -> dict:
        body = {"model": self.model, "messages": [{"role": "user", "content": prompt}],
                "temperature": self.temperature, "stop": self.stop}
        limit = max_new_tokens if max_new_tokens is not None else self.max_tokens
        if limit is not None:
            body["max_tokens"] = limit
        return body

# --8<-- [start:http-call]
    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        return self.complete(prompt, max_new_tokens)[0]

    def complete(self, prompt: str, max_new_tokens: int | None = None) -> tuple[str, dict | None]:
        """The reply and the server's token counts (None if it sent no `usage`)."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(self.request_body(prompt, max_new_tokens)).encode("utf-8")
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        reply = self._json(self._post(request))
        return self._content(reply), self._usage(reply)

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

    def _json(self, payload: bytes):
        try:
            return json.loads(payload)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise HttpPredictorError(f"{self.url} returned invalid JSON: {payload[:80]!r}") from None

    def _content(self, reply) -> str:
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise HttpPredictorError(f"{self.url} returned JSON without choices[0].message.content") from None
        if content is not None and not isinstance(content, str):
            raise HttpPredictorError(f"{self.url} returned a {type(content).__name__} as message content")
        return content or ""

    @staticmethod
    def _usage(reply) -> dict | None:
        """OpenAI's usage block as plain counts; None when absent or not numbers."""
        usage = reply.get("usage") if isinstance(reply, dict) else None
        if not isinstance(usage, dict):
            return None
        details = usage.get("prompt_tokens_details") or {}
        counts = {"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                  "cached_tokens": details.get("cached_tokens", 0) if isinstance(details, dict) else 0}
        if not all(isinstance(v, int) for v in counts.values()):
            return None
        return counts

    def __repr__(self) -> str:
        return f"HttpPredictor({self.url!r}, model={self.model!r})"
