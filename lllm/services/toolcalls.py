"""Layer 4 · JSON tool calls for a model that writes ReAct text: `tool_prompt(messages, tools) -> prompt`, `parse_reply(text, tools) -> Reply`.

Read `lllm/agents/react.py` (the prompt and the parser of ReAct text) and `schema_check.py` first.
OpenAI's chat API (which Ollama, vLLM and llama.cpp's server speak too) gives tools as JSON:

    request:  "tools": [{"type": "function", "function": {"name": "calc", "description": "...",
                         "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}]
    reply:    "tool_calls": [{"id": "call_1", "type": "function",
                              "function": {"name": "calc", "arguments": "{\\"expression\\": \\"17 * 23\\"}"}}]
    next:     {"role": "tool", "tool_call_id": "call_1", "content": "391"}

A model never sees that JSON. Every local server does two translations, and here they are:

1. **The chat template** (`tool_prompt`) turns the messages and the tools' schemas into the text
   the model was trained on. The agent-tuned TinyLLM was tuned on ReAct text, so the tools become
   the ReAct header's tool list, the user's message the `Question:`, each answered call an
   `Action: name[argument]` line and its `tool` message the `Observation:`.
2. **The parser** (`parse_reply`) turns what the model wrote back into JSON: `Action: calc[17 * 23]`
   becomes a call of `calc` with `{"expression": "17 * 23"}` (the argument text fills the tool's one
   property, or its one required property; text that is a JSON object is taken as the arguments),
   checked against the tool's schema. `Final Answer: X` becomes the reply's text, X. The model's
   `Thought:` travels as `reasoning_content`, the field vLLM and DeepSeek use for a model's
   reasoning (Pydantic AI and LiteLLM read it and send it back), so the next prompt has it again:
   the agent model needs its thought to read its observation right. `content` stays empty beside
   a call, as OpenAI's models leave it: a framework that streams takes early text for the answer.

What the parser cannot turn into a valid call (an unknown tool, arguments that break the schema, a
reply with no action) is returned as text, with the reason in `Reply.problem`: the model wrote
it, so it is the model's answer, as llama.cpp's and vLLM's servers return it. Mistakes in the
*request* (a schema that is not one, an unknown `tool_choice`, a `tool` message answering no call)
raise ToolRequestError naming the field: the server answers 400.

Usage:

    >>> tools = read_tools([{"type": "function", "function": {"name": "calc", "description": "arithmetic",
    ...     "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}])
    >>> print(tool_prompt([{"role": "user", "content": "What is 17 * 23?"}], tools).split("answer\\n")[-1])
    Question: What is 17 * 23?
    <BLANKLINE>
    >>> reply = parse_reply("Thought: compute 17 * 23\\nAction: calc[17 * 23]\\n", tools, call_id="call_1")
    >>> reply.content, reply.thought, reply.tool_call["function"]
    (None, 'compute 17 * 23', {'name': 'calc', 'arguments': '{"expression": "17 * 23"}'})
    >>> parse_reply("Action: weather[Paris]", tools).problem
    "the model called weather, which is not among the request's tools (calc)"
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from dataclasses import dataclass

from lllm.agents.react import MAX_OBSERVATION_CHARS, PROMPT_HEADER, parse_step
from lllm.services.schema_check import check_schema, problems

__all__ = ["ToolSpec", "ToolRequestError", "Reply", "CHOICES", "read_tools", "read_tool_choice", "uses_tools",
           "tool_prompt", "parse_reply", "arguments_from_text", "argument_text", "forced_prefix", "call_deltas"]

NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")   # OpenAI's rule for a function's name
TEXT_CALLS = "Calling tools:"                   # how smolagents writes its agent's calls back into the history
ANSWER_TOOL = "final_answer"                    # smolagents' agents end by calling a tool of this name
CHOICES = ("none", "auto", "required")


class ToolRequestError(ValueError):
    """A request whose tools or tool messages cannot be used; `param` names the field (a 400)."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.message, self.param = message, param


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the request describes it: its name, what it does, its arguments' JSON Schema."""

    name: str
    description: str
    parameters: dict

    def slot(self) -> str | None:
        """The property the model's argument text fills: the only one, or the only required one."""
        properties, required = list(self.parameters.get("properties", {})), self.parameters.get("required", [])
        return properties[0] if len(properties) == 1 else required[0] if len(required) == 1 else None


# ---- reading the request ------------------------------------------------------------------------------

def read_tools(value) -> tuple[ToolSpec, ...]:
    """The request's `tools`, checked: () when there are none; ToolRequestError naming the first bad field."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise ToolRequestError("tools must be a non-empty list of {\"type\": \"function\", \"function\": {...}}", "tools")
    specs = []
    for i, tool in enumerate(value):
        where = f"tools[{i}]"
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
            raise ToolRequestError(f"{where} must be {{\"type\": \"function\", \"function\": {{\"name\": ...}}}}", where)
        function = tool["function"]
        name, description = function.get("name"), function.get("description", "")
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            raise ToolRequestError(f"{where}.function.name must be 1-64 letters, digits, _ or -, got {name!r}",
                                   f"{where}.function.name")
        if not isinstance(description, str):
            raise ToolRequestError(f"{where}.function.description must be text", f"{where}.function.description")
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        try:
            check_schema(parameters, f"{where}.function.parameters")
        except ValueError as error:
            raise ToolRequestError(f"the schema of {name}: {error}", f"{where}.function.parameters") from None
        if not isinstance(parameters, dict) or parameters.get("type") != "object":
            raise ToolRequestError(f"the schema of {name} must be of \"type\": \"object\" (a tool takes named "
                                   "arguments)", f"{where}.function.parameters")
        if name in (spec.name for spec in specs):
            raise ToolRequestError(f"two tools are named {name}", f"{where}.function.name")
        specs.append(ToolSpec(name, description, parameters))
    return tuple(specs)


def read_tool_choice(value, tools: tuple[ToolSpec, ...]) -> str:
    """"none", "auto", "required" or a tool's name (OpenAI's {"type": "function", "function": {"name"}})."""
    if value is None:
        return "auto" if tools else "none"
    if not tools:
        raise ToolRequestError("tool_choice is only allowed when tools are given", "tool_choice")
    if isinstance(value, str):
        if value not in CHOICES:
            raise ToolRequestError(f"tool_choice must be none, auto, required or {{\"type\": \"function\", "
                                   f"\"function\": {{\"name\": ...}}}}, got {value!r}", "tool_choice")
        return value
    name = value.get("function", {}).get("name") if isinstance(value, dict) and value.get("type") == "function" \
        and isinstance(value.get("function"), dict) else None
    if not isinstance(name, str):
        raise ToolRequestError("tool_choice must be none, auto, required or {\"type\": \"function\", "
                               "\"function\": {\"name\": ...}}", "tool_choice")
    if name not in (spec.name for spec in tools):
        raise ToolRequestError(f"tool_choice names {name}, which is not among the tools "
                               f"({', '.join(spec.name for spec in tools)})", "tool_choice")
    return name


def uses_tools(messages) -> bool:
    """Whether the conversation has tool turns (an assistant's tool_calls or a tool message)."""
    return isinstance(messages, list) and any(isinstance(m, dict) and (m.get("role") == "tool" or m.get("tool_calls"))
                                              for m in messages)


# ---- the chat template: messages and schemas -> ReAct text -------------------------------------------------

def text_of(message: dict, where: str) -> str:
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in content):
        content = "".join(p["text"] for p in content)
    if not isinstance(content, str):
        raise ToolRequestError(f"{where}.content must be text (a string or a list of text parts)", f"{where}.content")
    return " ".join(content.split())


def thought_of(message: dict, where: str) -> str:
    """The reasoning an assistant message carries back (`reasoning_content`, or `reasoning`), one line."""
    value = message.get("reasoning_content", message.get("reasoning"))
    return " ".join(value.split()) if isinstance(value, str) else text_of({"content": value}, where) if value else ""


def calls_of(message: dict, where: str) -> list[tuple[str, str, str]]:
    """An assistant message's tool calls as (id, name, arguments text), checked."""
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ToolRequestError(f"{where}.tool_calls must be a list", f"{where}.tool_calls")
    found = []
    for j, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not (isinstance(function, dict) and isinstance(call.get("id"), str) and isinstance(function.get("name"), str)
                and isinstance(function.get("arguments", ""), str)):
            raise ToolRequestError(f"{where}.tool_calls[{j}] must have an id and a function with a name and "
                                   "arguments (a JSON string)", f"{where}.tool_calls[{j}]")
        found.append((call["id"], function["name"], function.get("arguments", "")))
    return found


def tool_prompt(messages, tools: tuple[ToolSpec, ...], choice: str = "auto") -> str:
    """The ReAct text for a conversation with tools: the header listing the tools (none when
    `choice` is "none"), system text, then each question, call and observation in order."""
    if not isinstance(messages, list) or not messages:
        raise ToolRequestError("messages must be a non-empty list", "messages")
    listed = () if choice == "none" else tools
    lines = [PROMPT_HEADER.format(tools="\n".join(
        f"{t.name}: {t.description} Arguments: {json.dumps(t.parameters, separators=(',', ':'))}" for t in listed))]
    pending: dict[str, tuple[str, str, int]] = {}     # call id -> (name, arguments, the message that made it)
    asked = False
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise ToolRequestError(f"{where} must be an object whose role is system, developer, user, assistant "
                                   "or tool", f"{where}.role")
        if role != "tool" and pending:
            unanswered = next(iter(pending))
            raise ToolRequestError(f"messages[{pending[unanswered][2]}]: the tool call {unanswered!r} has no tool "
                                   f"message answering it before {where}", f"messages[{pending[unanswered][2]}]")
        text = text_of(message, where)
        flattened = text_calls(text) if role == "assistant" else None
        if role in ("system", "developer"):
            lines.append(text + "\n" if text else "")
        elif role == "user" and text.startswith("Observation:") and asked:      # smolagents' tool response
            lines.append(f"Observation: {text.removeprefix('Observation:').strip()[:MAX_OBSERVATION_CHARS]}\n")
        elif role == "user":
            lines.append(f"Question: {text.removeprefix('New task:').strip()}\n")
            asked = True
        elif flattened is not None:                                             # smolagents' tool calls, as text
            lines.append("".join(f"Action: {name}[{argument_text(arguments, next((t for t in tools if t.name == name), None))}]\n"
                                 for name, arguments in flattened))
        elif role == "assistant" and message.get("tool_calls"):
            thought = thought_of(message, where) or text
            lines.append(f"Thought: {thought}\n" if thought else "")
            pending = {call_id: (name, arguments, i) for call_id, name, arguments in calls_of(message, where)}
        elif role == "assistant":
            lines.append(text + "\n" if text.startswith(("Thought:", "Action:", "Final Answer:"))
                         else f"Final Answer: {text}\n")
        else:
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                raise ToolRequestError(f"{where} is a tool message answering {call_id!r}, which is no tool call of "
                                       "the assistant message before it", f"{where}.tool_call_id")
            name, arguments, _ = pending.pop(call_id)
            spec = next((t for t in tools if t.name == name), None)
            lines.append(f"Action: {name}[{argument_text(arguments, spec)}]\n"
                         f"Observation: {text[:MAX_OBSERVATION_CHARS]}\n")
    if pending:
        unanswered = next(iter(pending))
        raise ToolRequestError(f"messages[{pending[unanswered][2]}]: the tool call {unanswered!r} has no tool message "
                               "answering it", f"messages[{pending[unanswered][2]}]")
    if not asked:
        raise ToolRequestError("with tools, messages need a user message: the question", "messages")
    return "".join(lines)


def text_calls(text: str) -> list[tuple[str, str]] | None:
    """The calls in smolagents' flattened assistant message (`Calling tools:` and a Python list of
    OpenAI-shaped calls), as (name, JSON arguments); None for any other text. smolagents sends its
    agent's calls and their results back as text, not as tool messages, so the template reads them here.

    >>> text_calls("Calling tools:\\n[{'id': 'c1', 'type': 'function', 'function': {'name': 'calc', 'arguments': {'expression': '17 * 23'}}}]")
    [('calc', '{"expression": "17 * 23"}')]
    """
    if not text.startswith(TEXT_CALLS):
        return None
    try:
        calls = ast.literal_eval(text[len(TEXT_CALLS):].strip())
        found = [(call["function"]["name"], call["function"]["arguments"]) for call in calls]
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError):
        return None
    return [(name, arguments if isinstance(arguments, str) else json.dumps(arguments)) for name, arguments in found]


def argument_text(arguments: str, spec: ToolSpec | None) -> str:
    """The text between an action's brackets for a call's JSON arguments: the slot's value, else the JSON.

    >>> argument_text('{"expression": "17 * 23"}', None)
    '17 * 23'
    """
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return arguments
    slot = spec.slot() if spec else (next(iter(value)) if isinstance(value, dict) and len(value) == 1 else None)
    if isinstance(value, dict) and list(value) == [slot] and isinstance(value[slot], (str, int, float)):
        return str(value[slot])
    return json.dumps(value)


# ---- the parser: ReAct text -> a tool call -----------------------------------------------------------------

@dataclass(frozen=True)
class Reply:
    """What the model's text means: `content` (its final answer, or the text itself; None beside a
    call), its `thought`, a `tool_call` in OpenAI's shape (or None) and, when an action was not
    turned into a call, the `problem`."""

    content: str | None
    tool_call: dict | None = None
    problem: str | None = None
    thought: str | None = None


def arguments_from_text(text: str, spec: ToolSpec) -> dict:
    """The JSON arguments for an action's bracket text: a JSON object as written, else the text in the
    tool's slot property (as a number when the slot is one). ValueError when neither fits."""
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
            if isinstance(value, dict):
                return value
        except ValueError:
            pass
    slot = spec.slot()
    if slot is None:
        if not text:
            return {}
        raise ValueError(f"{spec.name} takes no single argument, and the model wrote {text!r}")
    kind = spec.parameters.get("properties", {}).get(slot, {}).get("type")
    if kind in ("integer", "number") and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", text):
        return {slot: float(text) if kind == "number" and "." in text else int(text)}
    return {slot: text}


def parse_reply(text: str, tools: tuple[ToolSpec, ...], choice: str = "auto", call_id: str | None = None) -> Reply:
    """What the model wrote, as OpenAI's reply: a tool call checked against its schema, a final
    answer as text, or the whole text with the reason it is not a call."""
    step = parse_step(text)
    action = step.action
    if step.final is not None:
        if choice == "none" or not any(t.name == ANSWER_TOOL for t in tools):
            return Reply(step.final, thought=step.thought)
        action = (ANSWER_TOOL, step.final)          # the request's own answer tool: the final answer is its call
    if action is None or choice == "none":
        return Reply(text.strip(), problem="the model wrote no Action" if action is None else None)
    name, argument = action
    spec = next((t for t in tools if t.name == name), None)
    if spec is None:
        return Reply(text.strip(), problem=f"the model called {name}, which is not among the request's tools "
                                           f"({', '.join(t.name for t in tools)})")
    if choice not in CHOICES and name != choice:
        return Reply(text.strip(), problem=f"the model called {name}, and tool_choice asked for {choice}")
    try:
        arguments = arguments_from_text(argument, spec)
    except ValueError as error:
        return Reply(text.strip(), problem=str(error))
    wrong = problems(arguments, spec.parameters)
    if wrong:
        return Reply(text.strip(), problem=f"the arguments of {name} do not fit its schema: {'; '.join(wrong)}")
    call = {"id": call_id or "call_" + uuid.uuid4().hex[:24], "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}
    return Reply(None, call, thought=step.thought)


def forced_prefix(reply_text: str, choice: str) -> str | None:
    """For tool_choice "required" or a named tool, the start of a reply that makes the model call
    one: the model's thought, then `Action: ` (or `Action: name[`); None for auto and none."""
    if choice in ("none", "auto"):
        return None
    thought = parse_step(reply_text).thought
    return (f"Thought: {thought}\n" if thought else "") + ("Action: " if choice == "required" else f"Action: {choice}[")


# ---- streaming: a call as OpenAI's deltas ------------------------------------------------------------------

def call_deltas(call: dict, piece: int = 16) -> list[dict]:
    """The deltas that stream `call` as OpenAI's do: its id, type and name with empty arguments,
    then the arguments in pieces of `piece` characters.

    >>> call = {"id": "c", "type": "function", "function": {"name": "calc", "arguments": '{"x": 1}'}}
    >>> head, *rest = (delta.get("tool_calls").pop() for delta in call_deltas(call, piece=5))
    >>> head.get("function"), len(rest), "".join(part.get("function").get("arguments") for part in rest)
    ({'name': 'calc', 'arguments': ''}, 2, '{"x": 1}')
    """
    head = {"index": 0, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"],
                                                                           "arguments": ""}}
    arguments = call["function"]["arguments"]
    return [{"tool_calls": [head]}] + [{"tool_calls": [{"index": 0, "function": {"arguments": arguments[i:i + piece]}}]}
                                       for i in range(0, len(arguments), piece)]
