"""Layer 3 · the plain-text chat template: how a dialog becomes one prompt string for a Predictor.

Read `dialog.py` first; `invokers.py` next. Chat models take a list of messages; a Predictor
(TinyLLM, a scripted predictor) takes one string and returns the completion. This module is the
one documented bridge between the two, in printable ASCII only (TinyLLM's vocabulary):

    System: <system content>
    Tools (call one on its own line as Action: name[{"argument": value}]):
    - calc(expr: string): Evaluate an arithmetic expression
    Reply with a JSON object matching this schema: {...}      (only when the prompt has a format)
    User: <user content>                  (User (writer): ... when the message has another name)
    Assistant: <assistant content>
    Action: calc[{"expr": "2*3"}]         (one line per tool call the assistant made)
    Observation: 6                         (a tool result)
    Assistant:                             (the prompt ends here, with one space)

Tool calls in a completion use the same line: `Action: name[ARGS]`, where ARGS is a JSON object,
or plain text for a tool with exactly one argument (`Action: calc[17*23]`). The completion is cut
at the first line that starts another turn (`User:`, `System:`, `Observation:`, `Assistant:`),
because a plain model does not know where its turn ends.

Usage:

    >>> from lllm.runtimes.native.core.dialog import Message, Role
    >>> print(render_prompt([Message(Role.SYSTEM, "Be brief."), Message(Role.USER, "Hi")], []))
    System: Be brief.
    User: Hi
    Assistant: 
    >>> text, calls = parse_completion("I will compute.\\nAction: calc[17*23]\\nObservation: 391", [])
    >>> text, calls[0].name, calls[0].arguments
    ('I will compute.', 'calc', {'input': '17*23'})
"""

from __future__ import annotations

import json
import re

from lllm.runtimes.native.core.dialog import Role
from lllm.runtimes.native.core.parsers import ParseError
from lllm.runtimes.native.core.tools import FunctionCall

__all__ = ["render_prompt", "parse_completion", "cut_completion", "ACTION_LINE", "STOP_PREFIXES"]

# --8<-- [start:template]
LABELS = {Role.SYSTEM: "System", Role.USER: "User", Role.ASSISTANT: "Assistant", Role.TOOL: "Observation"}
TOOLS_HEADER = 'Tools (call one on its own line as Action: name[{"argument": value}]):'
FORMAT_LINE = "Reply with a JSON object matching this schema: {schema}"
ACTION_LINE = re.compile(r"^Action:\s*([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]\s*$")
STOP_PREFIXES = ("User:", "User (", "System:", "Observation:", "Assistant:")


def render_prompt(messages, functions, format_schema: dict | None = None) -> str:
    """The flat prompt for a Predictor: one labelled block per message, ending with 'Assistant: '."""
    blocks = []
    for message in messages:
        label = LABELS[message.role]
        if message.role is Role.USER and message.name not in ("", "user"):
            label = f"User ({message.name})"
        actions = [f"Action: {c.name}[{json.dumps(c.arguments)}]" for c in message.function_calls]
        text = "\n".join([message.content, *actions] if message.content else actions)
        blocks.append(f"{label}: {text}")
    extra = describe_tools(functions)
    if format_schema is not None:
        extra.append(FORMAT_LINE.format(schema=json.dumps(format_schema)))
    if extra:
        at = 1 if blocks and messages[0].role is Role.SYSTEM else 0
        blocks.insert(at, "\n".join(extra) if at else "System: " + "\n".join(extra))
    return "\n".join(blocks) + "\nAssistant: "
# --8<-- [end:template]


def describe_tools(functions) -> list[str]:
    if not functions:
        return []
    lines = [TOOLS_HEADER]
    for f in functions:
        args = ", ".join(f"{name}: {schema.get('type', 'any')}" for name, schema in f.properties.items())
        lines.append(f"- {f.name}({args}): {f.description}")
    return lines


# ---- reading a completion ------------------------------------------------------------------------

def cut_completion(text: str) -> str:
    """The completion up to the first line that starts another turn (or after the first Action line)."""
    kept = []
    for line in text.split("\n"):
        if kept and line.startswith(STOP_PREFIXES):
            break
        kept.append(line)
        if ACTION_LINE.match(line):
            break
    return "\n".join(kept).strip()


# --8<-- [start:parse]
def parse_completion(text: str, functions) -> tuple[str, list[FunctionCall]]:
    """(content, tool calls) from a completion; a malformed Action line raises ParseError."""
    text = cut_completion(text)
    content, calls = [], []
    for line in text.split("\n"):
        match = ACTION_LINE.match(line.strip())
        if not match:
            content.append(line)
            continue
        name, raw = match.groups()
        calls.append(FunctionCall(name=name, arguments=_arguments(name, raw, functions), id=f"call-{len(calls)}"))
    return "\n".join(content).strip(), calls
# --8<-- [end:parse]


def _arguments(name: str, raw: str, functions) -> dict:
    raw = raw.strip()
    if raw.startswith("{"):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ParseError(f"Action {name}[...] holds invalid JSON ({exc.msg})") from None
        if isinstance(value, dict):
            return value
    function = next((f for f in functions if f.name == name), None)
    if function is not None and len(function.properties) == 1:
        return {next(iter(function.properties)): raw}
    if function is not None:
        raise ParseError(f"Action {name}[...] needs a JSON object with {list(function.properties)}")
    return {"input": raw}
