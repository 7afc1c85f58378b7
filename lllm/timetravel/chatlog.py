"""Layer 4 · a run from elsewhere: an OpenAI-style chat log, replayed as a ReAct run at the seam, and re-run from any step with a brain from here.

Read `seam.py` first. The `openai` client and most agent frameworks keep a run as a list of chat
messages: the user's question, then assistant messages whose `tool_calls` name a function and its
JSON arguments, each answered by a `tool` message with the same `tool_call_id`, then a last
assistant message with the answer. `read_chat(data)` checks such a log (a list of messages, or
`{"messages": [...], "tools": [...]}`) and gives one sentence naming the message and field when
it is not one. Its steps become the ReAct loop's model calls, written as ReAct text: the assistant's
words as a `Thought:`, each tool call as `Action: name[argument]` (the argument is the JSON
arguments' one value, or the JSON itself; one line, without `]`), the last message as
`Final Answer:`. `replay_chat(log, ...)` runs the real ReAct loop (`run_react`) through `seam.run`:
every model call comes back as the log recorded it, tools that exist here (calc, lookup, the
reader's own) run again, and tools that do not return what the log says they returned, marked as
recorded. With `from_step=k` the chosen brain writes model call k and everything after it, and a
tool that cannot run here answers a new call with an error naming it.

Usage:

    >>> log = read_chat([
    ...     {"role": "user", "content": "What is 17 * 23?"},
    ...     {"role": "assistant", "content": "I will multiply.", "tool_calls": [{"id": "c1", "type": "function",
    ...      "function": {"name": "calc", "arguments": '{"expression": "17 * 23"}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "391"},
    ...     {"role": "assistant", "content": "391"}])
    >>> [call.said for call in log.calls]
    ['Thought: I will multiply.\\nAction: calc[17 * 23]', '391', 'Final Answer: 391']
    >>> replay_chat(log).trajectory.answer
    '391'
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from lllm.agents.react import Trajectory, run_react, terminal_text
from lllm.timetravel.runfile import BRAINS, MAX_SCRIPT, int_field, shown
from lllm.timetravel.react import step_brains
from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.timetravel.seam import RECORDED, Call, first_difference, run, timeline

__all__ = ["ChatLog", "Replay", "read_chat", "replay_chat", "chat_report", "is_chat_log", "MAX_MESSAGES"]

MAX_MESSAGES = 200           # a log longer than this is not a run to step through by hand
MAX_MODEL_CALLS = 20         # the ReAct loop's steps when the log is re-run


@dataclass
class ChatLog:
    goal: str
    calls: list[Call]                      # the log's model and tool calls, in order, as ReAct text
    tools: dict[str, str]                  # every tool the log names -> its description


@dataclass
class Replay:
    trajectory: Trajectory
    calls: list[Call]
    recorded_tools: list[str]              # the tools that could not run here, answered from the log


def is_chat_log(data) -> bool:
    """A list of messages, or an object holding one under "messages" (not a run file: no "schema")."""
    return isinstance(data, list) or (isinstance(data, dict) and "messages" in data and "schema" not in data)


# ---- reading a log ---------------------------------------------------------------------------------------

def _text(value, where: str, empty_ok: bool = True) -> str:
    if value is None and empty_ok:
        return ""
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise ValueError(f"{where} must be {'text' if empty_ok else 'non-empty text'}, got {shown(value)}")
    if len(value) > MAX_SCRIPT:
        raise ValueError(f"{where} is {len(value):,} characters long; a chat log's message holds at most {MAX_SCRIPT:,}")
    return value


def _argument(arguments: str, where: str) -> str:
    """The argument text an Action carries: the JSON arguments' one value, else the JSON itself, on one line."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        raise ValueError(f"{where}.function.arguments must be JSON, got {shown(arguments)}") from None
    if isinstance(parsed, dict) and len(parsed) == 1 and isinstance(next(iter(parsed.values())), (str, int, float)):
        parsed = next(iter(parsed.values()))
    text = parsed if isinstance(parsed, str) else json.dumps(parsed)
    return " ".join(text.replace("]", ")").split())


def _tool_call(call, where: str) -> tuple[str, str, str]:
    """(id, function name, argument text) of one entry of `tool_calls`."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        raise ValueError(f"{where} must be an object with a function (name, arguments), got {shown(call)}")
    name = _text(function.get("name"), f"{where}.function.name", empty_ok=False)
    if not name.replace("_", "a").replace("-", "a").isalnum() or name[0].isdigit() or len(name) > 64:
        raise ValueError(f"{where}.function.name must be a tool name (letters, digits, _ and -), got {shown(name)}")
    return str(call.get("id", "")), name, _argument(_text(function.get("arguments"), f"{where}.function.arguments"), where)


def read_chat(data) -> ChatLog:
    """The log's question and calls, or ValueError naming the message and field that is wrong."""
    messages, schemas = (data.get("messages"), data.get("tools") or []) if isinstance(data, dict) else (data, [])
    if not isinstance(messages, list) or not 2 <= len(messages) <= MAX_MESSAGES:
        raise ValueError(f"a chat log must be a list of 2 to {MAX_MESSAGES} messages, got {shown(messages)}")
    tools = {t["function"]["name"]: str(t["function"].get("description", "")) for t in schemas if isinstance(t, dict)
             and isinstance(t.get("function"), dict) and isinstance(t["function"].get("name"), str)}
    goal, calls, results, pending = None, [], {}, []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise ValueError(f"{where}.role must be system, user, assistant or tool, got {shown(role)}")
        content = _text(message.get("content"), f"{where}.content")
        if role == "user":
            if goal is not None:
                raise ValueError(f"{where} is a second user message: a run replayed here answers one question")
            goal = _text(content, f"{where}.content", empty_ok=False)
        elif role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            if not any(waiting[1] == call_id for waiting in pending):
                raise ValueError(f"{where} is a tool result, but no assistant message before it called a tool with "
                                 f"tool_call_id {shown(call_id)}")
            results[call_id] = " ".join(content.split())
        elif role == "assistant":
            if goal is None:
                raise ValueError(f"{where}: the first user message (the question) must come before the assistant's")
            entries = message.get("tool_calls") or []
            if not isinstance(entries, list):
                raise ValueError(f"{where}.tool_calls must be a list, got {shown(entries)}")
            thought = " ".join(content.split())
            if not entries:
                calls.append(Call("model", 0, RECORDED, "", f"Final Answer: {thought}"))
            for j, entry in enumerate(entries):
                call_id, name, argument = _tool_call(entry, f"{where}.tool_calls[{j}]")
                tools.setdefault(name, "a tool the log used")
                said = (f"Thought: {thought}\n" if thought and j == 0 else "") + f"Action: {name}[{argument}]"
                calls.append(Call("model", 0, RECORDED, "", said))
                pending.append((len(calls), call_id, name, argument, f"{where}.tool_calls[{j}]"))
                calls.append(None)                           # the tool's result, filled in below
    if goal is None:
        raise ValueError("a chat log needs a user message: the question the run answered")
    if not calls:
        raise ValueError("a chat log needs an assistant message after the question: the model's part of the run")
    for index, call_id, name, argument, where in pending:
        if call_id not in results:
            raise ValueError(f"{where} (id {shown(call_id)}) has no tool message with its result")
        calls[index] = Call("tool", 0, RECORDED, argument, results[call_id], tool=name)
    model_calls = sum(c.kind == "model" for c in calls)
    if model_calls > MAX_MODEL_CALLS:
        raise ValueError(f"the chat log has {model_calls} model steps; a run replayed here has at most {MAX_MODEL_CALLS}")
    numbered, counts = [], {"model": 0, "tool": 0}
    for c in calls:
        counts[c.kind] += 1
        numbered.append(Call(c.kind, counts[c.kind], c.who, c.asked, c.said, tool=c.tool))
    return ChatLog(goal, numbered, tools)


# ---- replaying it, and re-running it from a step -------------------------------------------------------------

def replay_chat(log: ChatLog, brain: str = "rule", from_step: int | None = None, extra_tools=(), seed: int = 0,
                temperature: float = 0.8, script: str = "", models: dict | None = None) -> Replay:
    """The log replayed through the ReAct loop; with `from_step`, `brain` writes that model call and the rest."""
    model_calls = sum(c.kind == "model" for c in log.calls)
    if from_step is not None and not 1 <= from_step <= model_calls + 1:
        raise ValueError(f"--from must be a step between 1 and {model_calls + 1} (the log has {model_calls}), got {from_step}")
    here = {t.name: t for t in [*DEFAULT_TOOLS, *extra_tools]}
    unavailable = frozenset(name for name in log.tools if name not in here)
    tools = [*here.values(), *(Tool(name, log.tools[name], _never) for name in sorted(unavailable))]
    brain_for = step_brains(brain, seed, temperature, script, models) if from_step else _past_the_log
    steps = max(model_calls, MAX_MODEL_CALLS if from_step else model_calls)

    def program(predictor, seam_tools):
        return run_react(log.goal, predictor, seam_tools.as_tools(), max_steps=steps, return_trajectory=True)

    done = run(program, brain_for, tools, brain_name=brain, recorded=log.calls, swap_from=from_step,
               unavailable=unavailable)
    return Replay(done.answer, done.calls, sorted(unavailable))


def _never(argument: str) -> str:          # stands in for a tool that is not here; seam.run never calls it
    raise LookupError("this tool is only recorded")


def _past_the_log(number: int):
    def predictor(prompt, max_new_tokens=None):
        raise ValueError(f"the log has no model call {number}")
    return predictor


def chat_report(data, brain: str | None = None, from_step: int | None = None, seed: int = 0,
                temperature: float = 0.8) -> str:
    """What `python -m lllm replay chat.json [--from K --brain B]` prints, and the page shows: the
    log's replay (its trace and timeline), then with `from_step` the re-run's and where they part."""
    if from_step is not None:
        int_field(from_step, "from (the model call to re-run from)", 1, MAX_MODEL_CALLS)
    if brain is not None and brain not in BRAINS:
        raise ValueError(f"field brain must be one of {', '.join(BRAINS)}, got {shown(brain)}")
    log = read_chat(data)
    replayed = replay_chat(log)
    branch = replay_chat(log, brain or "rule", from_step, seed=seed, temperature=temperature) if from_step else None
    models = sum(c.kind == "model" for c in replayed.calls)
    out = [f"chat log: {models} model calls, {len(replayed.calls) - models} tool calls"
           + (f"; {', '.join(replayed.recorded_tools)} cannot run here: its results are the log's"
              if replayed.recorded_tools else ""),
           terminal_text(replayed.trajectory).rstrip("\n"), "timeline:", timeline(replayed.calls)]
    if branch:
        parted = first_difference(replayed.calls, branch.calls)
        out += [f"== from model call {from_step}, {brain or 'rule'} writes", terminal_text(branch.trajectory).rstrip("\n"),
                "timeline:", timeline(branch.calls),
                "the two runs are the same" if parted is None else f"the runs part at call {parted}"]
    return "\n".join(out) + "\n"
