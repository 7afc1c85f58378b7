"""Layer 3 · the HTTP invoker: an OpenAI-compatible chat server (llama.cpp, vLLM, Ollama, ...), stdlib only.

Read `invokers.py` first. Unlike a Predictor, a chat server takes the messages and the tool
schemas natively and answers with native tool calls, so no text template is involved.

Contract: `HTTPInvoker(base_url, api_key=None, api_key_env=None, timeout=60)` is an invoker:
POST `<base_url>/chat/completions` with `model`, `messages`, `tools` (when any are offered),
`response_format` (a JSON schema, when the prompt has a `format`) and the agent's `model_args`.
Costs are the server's reported `usage`. Tool-call arguments that are not valid JSON come back as
`InvokeResult.error` (a repair turn); a transport or HTTP error raises `InvokerError` naming the
URL and status. CPython only: Pyodide has no sockets (use a predictor invoker in the page).

Usage:

    invoker = HTTPInvoker("http://127.0.0.1:8080/v1")          # needs a running server
    result = invoker([Message(Role.USER, "Hi")], [], model_name="qwen2.5-0.5b")

    >>> to_openai(Message(Role.TOOL, "5", name="calc", call_id="call-0"))
    {'role': 'tool', 'content': '5', 'tool_call_id': 'call-0'}
"""

from __future__ import annotations

import json
import os

from lllm.runtimes.native.core.dialog import Message, Role
from lllm.runtimes.native.invokers.base import Cost, InvokeResult
from lllm.runtimes.native.core.tools import FunctionCall

__all__ = ["HTTPInvoker", "InvokerError", "to_openai"]


class InvokerError(RuntimeError):
    """The model server could not be reached or answered with an error."""


def to_openai(message: Message) -> dict:
    """One Message in the Chat Completions format."""
    if message.role is Role.TOOL:
        return {"role": "tool", "content": message.content, "tool_call_id": message.call_id}
    data = {"role": message.role.value, "content": message.content}
    if message.function_calls:
        data["tool_calls"] = [{"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                              for c in message.function_calls]
    return data


class HTTPInvoker:
    def __init__(self, base_url: str, api_key: str | None = None, api_key_env: str | None = None, timeout: float = 60):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"invoker_config.base_url must start with http:// or https://, got {base_url!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key or (os.environ.get(api_key_env) if api_key_env else None)
        self.timeout = timeout

    # --8<-- [start:call]
    def __call__(self, messages, functions, format_schema=None, model_name="", model_args=None) -> InvokeResult:
        body = {"model": model_name, "messages": [to_openai(m) for m in messages], **(model_args or {})}
        if functions:
            body["tools"] = [f.schema() for f in functions]
        if format_schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": format_schema}}
        reply = self._post(body)
        choice = (reply.get("choices") or [{}])[0].get("message") or {}
        usage = reply.get("usage") or {}
        cost = Cost(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0), 1)
        calls, error = [], None
        for i, call in enumerate(choice.get("tool_calls") or []):
            function = call.get("function", {})
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError as exc:
                arguments, error = {}, f"Arguments of tool call {function.get('name')!r} are not valid JSON ({exc.msg})"
            calls.append(FunctionCall(name=function.get("name", ""), arguments=arguments, id=call.get("id") or f"call-{i}"))
        message = Message(Role.ASSISTANT, choice.get("content") or "", function_calls=tuple(calls))
        return InvokeResult(message, cost, json.dumps(body), error)
    # --8<-- [end:call]

    def _post(self, body: dict) -> dict:
        from urllib.error import HTTPError, URLError
        from urllib.request import Request, urlopen
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = Request(self.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        try:
            with urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except HTTPError as exc:
            raise InvokerError(f"{self.url} answered HTTP {exc.code}: {exc.read()[:300].decode('utf-8', 'replace')}") from None
        except (URLError, OSError) as exc:
            raise InvokerError(f"cannot reach {self.url}: {exc}") from None
        except json.JSONDecodeError:
            raise InvokerError(f"{self.url} did not answer with JSON") from None
