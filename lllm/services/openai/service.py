"""Layer 4 · TinyLLM behind OpenAI's API: `OpenAIService(models).handle(method, path, body) -> (status, JSON | Chunks)`.

Read `served_model.py` first. `lllm serve-model` (lllm/commands/serve_model.py) puts this on a
socket (`server.py`); here is the protocol alone, a pure function from a request to an answer,
so any OpenAI client (the `openai` package, LiteLLM, `HttpPredictor`) can use the models.

Routes:
    GET  /v1/models, /v1/models/NAME       the served models (OpenAI's model list / model object)
    POST /v1/chat/completions              {"model", "messages", ...} -> chat.completion
    POST /v1/completions                   {"model", "prompt", ...}   -> text_completion
    with "stream": true, either answers (200, Chunks): server-sent events in OpenAI's chunk
    format, `data: [DONE]` last; "stream_options": {"include_usage": true} adds a usage chunk.
Honoured: max_tokens (or max_completion_tokens; default 200), temperature (0-2; default the
model's: 0.8 for tinyllm, 0 for tinyllm-agent), top_p, top_k, seed (default 0), stop (up to 4).
n must be 1; other OpenAI fields are accepted and ignored. The model "default" is the first served.

Tool calls (`toolcalls.py` has the chat template and the parser): `tools` and `tool_choice` (none,
auto, required or one function) are honoured for a model tuned to write ReAct actions
(tinyllm-agent) and refused for one that was not (400, code tools_not_supported). The model writes
one step (it stops at "Observation:"); an action that fits a tool's schema is the reply's
`tool_calls` (finish_reason "tool_calls", the thought as reasoning_content), a final answer the content.
When tool_choice asks for a call the model did not write, the server writes the start of one
(`Action: ` or `Action: name[`) and lets the model go on from there. Streamed, a tool call is sent
once the model has finished its step (the parser needs the whole action), as OpenAI's deltas:
id and name first, then the arguments in pieces.

The chat template (`chat_prompt`): a character model has no roles, so the prompt is the messages'
text in order, each message after the first on a new line, nothing added after the last. The
ReAct agent over HTTP (`HttpPredictor`) sends its whole prompt as one user message, so the model
reads exactly what `--predictor tinyllm-agent` reads; a last assistant message is continued.

Errors are OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`: 400 for a body that is
not JSON or a field that is wrong, or a prompt over MAX_PROMPT_CHARS (code context_length_exceeded,
refused before the model reads a character), 404 for an unknown model (code model_not_found) or
path, 405. `handle(..., cancel=event)`: setting the event (the client left) stops the model within
a character (or a 1,024-character piece of the prompt).

Usage:

    >>> chat_prompt([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Once"}])
    'Be brief.\\nOnce'
    >>> from lllm.model.tokenizer import CharTokenizer
    >>> from lllm.services.openai.served_model import ServedModel
    >>> ab = ServedModel("ab", lambda ids, state: ([0.0, 5.0], state), CharTokenizer("ab"))
    >>> status, reply = OpenAIService([ab]).handle("POST", "/v1/completions", b'{"model": "ab", "prompt": "a", "max_tokens": 2}')
    >>> status, reply["choices"][0]["text"], reply["usage"]["completion_tokens"]
    (200, 'bb', 2)
    >>> OpenAIService([ab]).handle("POST", "/v1/completions", b'{"model": "gpt-4", "prompt": "a"}')[1]["error"]["code"]
    'model_not_found'
"""

from __future__ import annotations

import json
import math
import threading
import time
import uuid
from dataclasses import replace

from lllm.services.openai.served_model import Cancelled, Completion, ServedModel, Settings
from lllm.services.toolcalls import (ToolRequestError, call_deltas, forced_prefix, parse_reply, read_tool_choice,
                                     read_tools, tool_prompt, uses_tools)

__all__ = ["OpenAIService", "RequestError", "Chunks", "chat_prompt", "error_body", "read_settings", "openapi_schema"]

MAX_TOKENS_LIMIT = 4096     # characters per request: a bound on how long one request may hold the model
MAX_PROMPT_CHARS = 100_000  # the model reads the whole prompt in one pass: bound what one request may ask
ROLES = ("system", "developer", "user", "assistant", "tool")


# ---- errors --------------------------------------------------------------------------------------

class RequestError(Exception):
    """A request this server cannot use: its status and OpenAI's error fields."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None,
                 kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.message, self.param, self.code, self.kind = status, message, param, code, kind


def error_body(error: RequestError) -> dict:
    return {"error": {"message": error.message, "type": error.kind, "param": error.param, "code": error.code}}


# ---- the chat template ----------------------------------------------------------------------------

def message_text(message, index: int) -> str:
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise RequestError(400, f"{where} must be an object with a role and content", where)
    if message.get("role") not in ROLES:
        raise RequestError(400, f"{where}.role must be one of {', '.join(ROLES)}, got {message.get('role')!r}",
                           f"{where}.role")
    content = message.get("content")
    if content is None and message["role"] in ("assistant", "tool"):
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text"
                                         and isinstance(p.get("text"), str) for p in content):
        return "".join(p["text"] for p in content)       # text parts, as newer clients send them
    raise RequestError(400, f"{where}.content must be text (a string or a list of text parts)", f"{where}.content")


def chat_prompt(messages) -> str:
    """The prompt a character model reads for `messages`: their text in order, each after the
    first starting on a new line; nothing is added after the last (so an assistant message last is continued)."""
    if not isinstance(messages, list) or not messages:
        raise RequestError(400, "messages must be a non-empty list", "messages")
    prompt = ""
    for i, message in enumerate(messages):
        text = message_text(message, i)
        prompt += ("\n" if prompt and not prompt.endswith("\n") else "") + text
    return prompt


# ---- reading a request ----------------------------------------------------------------------------

def number(body: dict, name: str, default, low: float, high: float, integer: bool = False, low_open: bool = False):
    value = body.get(name)
    if value is None:
        return default
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)) or \
            (isinstance(value, float) and not math.isfinite(value)):
        raise RequestError(400, f"{name} must be {kind}, got {value!r}", name)
    if value < low or value > high or (low_open and value == low):
        bounds = f"in ({low:g}, {high:g}]" if low_open else f"between {low:g} and {high:g}"
        raise RequestError(400, f"{name} must be {bounds}, got {value!r}", name)
    return value


def stop_strings(value) -> tuple[str, ...]:
    if value is None:
        return ()
    stops = [value] if isinstance(value, str) else value
    if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops) or len(stops) > 4:
        raise RequestError(400, "stop must be a string or a list of at most 4 strings", "stop")
    return tuple(s for s in stops if s)


def read_settings(body: dict, model: ServedModel) -> Settings:
    """The generation settings in a request body; RequestError naming the field that is wrong."""
    if body.get("n") not in (None, 1) or body.get("n") is True:
        raise RequestError(400, "n must be 1: this server writes one completion per request", "n")
    limit = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    return Settings(max_tokens=number(body, limit, 200, 0, MAX_TOKENS_LIMIT, integer=True),
                    temperature=float(number(body, "temperature", model.temperature, 0, 2)),
                    top_p=float(number(body, "top_p", 1.0, 0, 1, low_open=True)),
                    top_k=number(body, "top_k", 0, 0, 1 << 20, integer=True),
                    seed=number(body, "seed", 0, -(1 << 63), (1 << 64) - 1, integer=True),
                    stop=stop_strings(body.get("stop")))


def completion_prompt(body: dict) -> str:
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        prompt = prompt[0]
    if not isinstance(prompt, str):
        raise RequestError(400, "prompt must be a string (or a list holding one string)", "prompt")
    return prompt


# ---- the service ----------------------------------------------------------------------------------

class Chunks:
    """A streamed answer: `frames()` yields server-sent events, bytes, `data: [DONE]` last; the
    model's pieces (`ServedModel.stream`) become OpenAI's chunks on the way."""

    def __init__(self, chat: bool, head: dict, pieces, with_usage: bool, cancel: threading.Event | None = None):
        self.chat, self.pieces, self.with_usage = chat, pieces, with_usage
        self.cancel = cancel or threading.Event()       # set it (from any thread) to stop the model
        self.head = {**head, "object": "chat.completion.chunk" if chat else "text_completion"}

    def chunks(self):
        if self.chat:                          # a chat stream opens with the assistant's role
            yield {**self.head, "choices": [choice(True, "", None, role=True)]}
        for piece in self.pieces:
            if isinstance(piece, dict):        # a delta as it is (a tool call's, toolcalls.call_deltas)
                yield {**self.head, "choices": [{"index": 0, "delta": piece, "logprobs": None, "finish_reason": None}]}
                continue
            if isinstance(piece, str):
                yield {**self.head, "choices": [choice(self.chat, piece, None)]}
                continue
            yield {**self.head, "choices": [choice(self.chat, "", piece.finish_reason)]}
            if self.with_usage:
                yield {**self.head, "choices": [], "usage": usage(piece)}

    def frames(self):
        try:
            for chunk in self.chunks():
                yield f"data: {json.dumps(chunk)}\n\n".encode("utf-8")
        except Cancelled:                     # the client left: nobody reads what would follow
            return
        except Exception as error:            # the model failed mid-stream: the status is already 200
            body = error_body(RequestError(500, f"the model failed: {error}", kind="server_error"))
            yield f"data: {json.dumps(body)}\n\n".encode("utf-8")
        finally:
            self.pieces.close()                # stops the model if the client left
        yield b"data: [DONE]\n\n"


class OpenAIService:
    """`handle(method, path, body)` for the served models; the first one also answers to "default"."""

    def __init__(self, models: list[ServedModel], start=None):
        if not models:
            raise ValueError("serve at least one model")
        self.models = {m.name: m for m in models}
        self.first = models[0]
        self.start = start          # where a stream's model work runs (ServedModel.stream); a server passes its pool's

    def model(self, name) -> ServedModel:
        if name is None:
            raise RequestError(400, f"model is required: one of {', '.join(self.models)} (or default)", "model")
        if name == "default":
            return self.first
        if not isinstance(name, str) or name not in self.models:
            raise RequestError(404, f"The model {name!r} does not exist; this server has "
                                    f"{', '.join(self.models)}", "model", "model_not_found")
        return self.models[name]

    def handle(self, method: str, path: str, body: bytes = b"", cancel: threading.Event | None = None):
        """(status, JSON or Chunks). Setting `cancel` (the client left) stops the model between two characters."""
        try:
            return self.route(method, path.rstrip("/") or "/", body, cancel)
        except RequestError as error:
            return error.status, error_body(error)
        except Cancelled:                   # nobody is left to read this answer
            return 499, error_body(RequestError(499, "the client left", code="client_closed_request"))
        except Exception as error:          # the model failed, not the request: still OpenAI's shape
            return 500, error_body(RequestError(500, f"the model failed: {type(error).__name__}: {error}",
                                                kind="server_error"))

    def route(self, method: str, path: str, body: bytes, cancel=None):
        if path == "/v1/models" or path.startswith("/v1/models/"):
            self.allow(method, "GET")
            if path == "/v1/models":
                return 200, {"object": "list", "data": [self.card(m) for m in self.models.values()]}
            return 200, self.card(self.model(path[len("/v1/models/"):]))
        if path in ("/v1/chat/completions", "/v1/completions"):
            self.allow(method, "POST")
            return self.complete(path == "/v1/chat/completions", self.json(body), cancel)
        if path == "/health":
            return 200, {"ok": True, "models": list(self.models)}
        raise RequestError(404, f"no route {path}: this server answers /v1/models, /v1/chat/completions "
                                "and /v1/completions", code="not_found")

    @staticmethod
    def allow(method: str, expected: str) -> None:
        if method != expected:
            raise RequestError(405, f"{method} is not allowed here; use {expected}", code="method_not_allowed")

    @staticmethod
    def json(body: bytes) -> dict:
        try:
            data = json.loads(body or b"")
        except (ValueError, RecursionError) as error:   # not JSON, not UTF-8, nested too deep, a 5000-digit number
            raise RequestError(400, f"the request body is not valid JSON ({str(error)[:200]})") from None
        if not isinstance(data, dict):
            raise RequestError(400, "the request body must be a JSON object")
        return data

    @staticmethod
    def card(model: ServedModel) -> dict:
        return {"id": model.name, "object": "model", "created": model.created, "owned_by": "lllm"}

    def complete(self, chat: bool, body: dict, cancel=None):
        model = self.model(body.get("model"))
        tooled = self.tool_request(body, model) if chat else None
        if tooled:
            prompt = checked(tool_prompt, body.get("messages"), *tooled)
        else:
            prompt = chat_prompt(body.get("messages")) if chat else completion_prompt(body)
        if len(prompt) > MAX_PROMPT_CHARS:
            raise RequestError(400, f"the prompt is {len(prompt)} characters; this server reads at most "
                                    f"{MAX_PROMPT_CHARS}", "messages" if chat else "prompt", "context_length_exceeded")
        settings = read_settings(body, model)
        stream = body.get("stream")
        stream = False if stream is None else stream
        if not isinstance(stream, bool):
            raise RequestError(400, f"stream must be true or false, got {stream!r}", "stream")
        options = body.get("stream_options") or {}
        if not isinstance(options, dict):
            raise RequestError(400, "stream_options must be an object", "stream_options")
        head = {"id": ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex[:24], "created": int(time.time()),
                "model": model.name}
        if tooled:
            return self.call_tools(model, prompt, settings, tooled, head, stream, options.get("include_usage") is True,
                                   cancel)
        if not stream:
            done = model.run(prompt, settings, cancel=cancel)
            return 200, {**head, "object": "chat.completion" if chat else "text_completion",
                         "choices": [choice(chat, done.text, done.finish_reason, whole=True)], "usage": usage(done)}
        cancel = cancel or threading.Event()
        return 200, Chunks(chat, head, model.stream(prompt, settings, cancel, self.start),
                           options.get("include_usage") is True, cancel)


    # ---- tool calls (toolcalls.py) ----

    @staticmethod
    def tool_request(body: dict, model: ServedModel):
        """(tools, tool_choice) for a chat with tools or tool turns and a model that can call them; None for a plain chat."""
        tools = checked(read_tools, body.get("tools"))
        tool_choice = checked(read_tool_choice, body.get("tool_choice"), tools)
        if tools and not model.calls_tools:
            raise RequestError(400, f"the model {model.name} cannot call tools: it was never tuned to write actions "
                                    "(tinyllm-agent was)", "tools", "tools_not_supported")
        return (tools, tool_choice) if model.calls_tools and (tools or uses_tools(body.get("messages"))) else None

    @staticmethod
    def call_tools(model: ServedModel, prompt: str, settings: Settings, tooled, head: dict, stream: bool,
                   with_usage: bool, cancel=None):
        """One step of the model, parsed into a tool call or an answer (toolcalls.parse_reply)."""
        tools, tool_choice = tooled
        settings = replace(settings, stop=(*settings.stop, "Observation:"))     # one step, then wait for the tool
        done = model.run(prompt, settings, cancel=cancel)
        reply = parse_reply(done.text, tools, tool_choice)
        prefix = forced_prefix(done.text, tool_choice) if reply.tool_call is None else None
        if prefix:                  # tool_choice asks for a call the model did not write: start one, let it go on
            more = model.run(prompt + prefix, settings, cancel=cancel)
            reply = parse_reply(prefix + more.text, tools, tool_choice)
            done = Completion(prefix + more.text, more.finish_reason, done.prompt_tokens + more.prompt_tokens,
                              done.completion_tokens + more.completion_tokens)
        done = replace(done, finish_reason="tool_calls") if reply.tool_call else done
        message = {"role": "assistant", "content": reply.content} | (
            {"reasoning_content": reply.thought} if reply.thought else {}) | (
            {"tool_calls": [reply.tool_call]} if reply.tool_call else {})
        if not stream:
            return 200, {**head, "object": "chat.completion", "usage": usage(done), "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": done.finish_reason}]}

        def pieces():
            if reply.thought:
                yield {"reasoning_content": reply.thought}
            if reply.content:
                yield reply.content
            if reply.tool_call:
                yield from call_deltas(reply.tool_call)
            yield done
        return 200, Chunks(True, head, pieces(), with_usage, cancel)


def checked(read, *args):
    """`read(*args)` with a ToolRequestError as a 400 naming its field."""
    try:
        return read(*args)
    except ToolRequestError as error:
        raise RequestError(400, error.message, error.param) from None


def choice(chat: bool, text: str, finish_reason: str | None, whole: bool = False, role: bool = False) -> dict:
    """One entry of `choices`: a message (whole chat answer), a delta (chat chunk) or text."""
    if not chat:
        return {"index": 0, "text": text, "logprobs": None, "finish_reason": finish_reason}
    if whole:
        return {"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                "finish_reason": finish_reason}
    delta = ({"role": "assistant"} if role else {}) | ({"content": text} if text or role else {})
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def usage(done: Completion) -> dict:
    return {"prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens,
            "total_tokens": done.prompt_tokens + done.completion_tokens}


# ---- describing the routes ---------------------------------------------------------------------------

def openapi_schema(names) -> dict:
    """OpenAPI 3.1 for what `handle` answers, with the request fields it honours and their bounds."""
    fields = {"model": {"enum": [*names, "default"]},
              "max_tokens": {"type": "integer", "minimum": 0, "maximum": MAX_TOKENS_LIMIT},
              "temperature": {"type": "number", "minimum": 0, "maximum": 2},
              "top_p": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
              "top_k": {"type": "integer", "minimum": 0, "maximum": 1 << 20},
              "seed": {"type": "integer", "minimum": -(1 << 63), "maximum": (1 << 64) - 1},
              "stop": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "maxItems": 4}]},
              "n": {"const": 1}, "stream": {"type": "boolean"},
              "stream_options": {"type": "object", "properties": {"include_usage": {"type": "boolean"}}}}
    call = {"type": "object", "required": ["id", "type", "function"],
            "properties": {"id": {"type": "string"}, "type": {"const": "function"}, "function": {
                "type": "object", "required": ["name", "arguments"],
                "properties": {"name": {"type": "string"}, "arguments": {"type": "string"}}}}}
    message = {"type": "object", "required": ["role", "content"],
               "properties": {"role": {"enum": list(ROLES)}, "content": {"type": "string"},
                              "tool_calls": {"type": "array", "items": call}, "tool_call_id": {"type": "string"}}}
    function = {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}, "description": {"type": "string"},
        "parameters": {"type": "object"}}}
    tools = {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["type", "function"], "properties": {
        "type": {"const": "function"}, "function": function}}}
    tool_choice = {"anyOf": [{"enum": ["none", "auto", "required"]}, {
        "type": "object", "required": ["type", "function"], "properties": {
            "type": {"const": "function"}, "function": {"type": "object", "required": ["name"],
                                                        "properties": {"name": {"type": "string"}}}}}]}
    chat = {"type": "object", "required": ["model", "messages"],
            "properties": {**fields, "messages": {"type": "array", "items": message, "minItems": 1},
                           "tools": tools, "tool_choice": tool_choice}}
    text = {"type": "object", "required": ["model", "prompt"],
            "properties": {**fields, "prompt": {"type": "string", "maxLength": MAX_PROMPT_CHARS}}}

    def op(summary: str, body: dict | None = None) -> dict:
        answer = {"responses": {"200": {"description": "success"}, "400": {"description": "OpenAI's error shape"},
                                "404": {"description": "no such model or path"}, "503": {"description": "busy"}}}
        return {"summary": summary, **answer, **({"requestBody": {"content": {"application/json": {"schema": body}}}}
                                                 if body else {})}
    return {"openapi": "3.1.0", "info": {"title": "lllm serve-model", "version": "0.1.0"},
            "paths": {"/health": {"get": op("Health")}, "/v1/models": {"get": op("List Models")},
                      "/v1/models/{model}": {"get": op("Retrieve Model")},
                      "/v1/chat/completions": {"post": op("Create Chat Completion", chat)},
                      "/v1/completions": {"post": op("Create Completion", text)}}}
