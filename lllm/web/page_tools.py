"""Platform adapter · an MCP server's tools in the page: `run_json(params_json) -> JSON text`, the ReAct agent whose tool calls the page sends as MCP `tools/call`.

Read `lllm/services/mcp_tools.py` (McpTools: the same agent in a terminal, its calls sent by the
official SDK) and `yourmodel.py` (how a page adapter asks the page and blocks until it answers)
first. A page has no sockets and no SDK, so the page's MCP client (`site/assets/tools/mcp-client.mjs`)
lists the server's tools (`initialize`, `tools/list`) before Python starts, and sends each call
(`tools/call`, through worker.mjs's `_lllm_page.mcp`) while Python waits. Everything between is
the terminal's: each listed tool becomes a ReAct Tool by `checked_caller` (the model's argument
text into JSON arguments, checked against the tool's inputSchema), so a goal sends the same
arguments from the page as `python -m lllm react GOAL --tools-from URL` does from a terminal.

The widget (`site/assets/tools/mcp.mjs`) sends one JSON object,

    {"url": "http://127.0.0.1:8765/mcp", "tools": [the tools/list entries], "goal": "What is 17 * 23?",
     "brain": "tinyllm-agent" | "rule", "max_steps": 5}

and gets back `{"ok": true, "trajectory", "trace", "calls", "sent"}`: the trajectory and the labelled
trace as `react --json` and `--verbose` give them, each call that went to the server with its JSON
arguments and its result or error, and the indexes of the steps whose observation the server
gave (arguments that do not fit the tool's schema are refused here, before any call). A tool's error result is an observation, as in the terminal.
A server that stops answering mid-run is not the model's doing: the run ends there, and the answer
is `{"ok": false, "error": the page's sentence, ...}` with the trace so far.

Usage (`call_json` stands in for the page, which alone can reach the server):

    >>> calc = {"name": "calc", "description": "arithmetic", "inputSchema": {"type": "object",
    ...         "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}
    >>> out = json.loads(run_json(json.dumps({"url": "http://127.0.0.1:8765/mcp", "tools": [calc],
    ...     "goal": "What is 17 * 23?", "brain": "rule"}), call_json=lambda name, arguments: "391"))
    >>> out["trajectory"]["answer"], out["calls"], out["sent"]
    ('391', [{'name': 'calc', 'arguments': {'expression': '17 * 23'}, 'result': '391'}], [0])
    >>> json.loads(run_json('{"url": "http://127.0.0.1:8765/mcp", "tools": [], "goal": "hi"}'))["error"]
    'the MCP server lists no tools, so the agent would have nothing to call'
    >>> json.loads(run_json(json.dumps({"url": "http://127.0.0.1:8765/mcp", "tools": [calc], "goal": " "})))["error"]
    'goal is empty: ask the agent a question'
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout
from typing import Any, Callable

from lllm.agents.grounding import label
from lllm.agents.react import Outcome, grounding, run_react, trajectory_json
from lllm.agents.tools import Tool
from lllm.services.mcp_tools import checked_caller, spec_of
from lllm.web.demos import MAX_STEPS_LIMIT, browser_models, make_brain

__all__ = ["BRAINS", "McpPageError", "browser_models", "page_call", "run_demo", "run_json"]

BRAINS = ("tinyllm-agent", "rule")       # the agent-tuned model learned calc and lookup; rule is the baseline
LOOPBACK = re.compile(r"http://(127\.0\.0\.1|localhost)(:[0-9]{1,5})?(/\S*)?")   # all the page's CSP lets it reach


class McpPageError(RuntimeError):
    """The server could not be used from the page (stopped, refusing, not MCP): the page's one sentence."""


def settled(answer: Any) -> Any:
    """As browser.py: a Promise (the JSPI path) is blocked on; a value (the Atomics path) is the answer."""
    if not hasattr(answer, "then"):
        return answer
    from pyodide.ffi import run_sync
    return run_sync(answer)


def page_call(url: str) -> Callable[[str, dict], str]:
    """`call_json(name, arguments) -> text` for the server at `url`, sent by the page: a tool's error
    result is a ValueError (an observation), a server that cannot be used McpPageError."""
    def call_json(name: str, arguments: dict) -> str:
        try:
            import _lllm_page               # registered by worker.mjs; exists only in the page
        except ImportError:
            raise McpPageError("the page sends MCP calls; in a terminal use --tools-from URL") from None
        try:
            answer = json.loads(str(settled(_lllm_page.mcp(json.dumps({"url": url, "name": name, "arguments": arguments})))))
        except Exception as error:          # the page's sentence (a JavaScript Error) as ours
            raise McpPageError(str(error).removeprefix("Error: ")) from None
        if answer["isError"]:
            raise ValueError(answer["text"] or f"{name} failed")
        return answer["text"]
    return call_json


def checked(p: dict) -> tuple[str, list[dict], str, int]:
    """(url, listed tools, brain, max_steps) from the widget's params; ValueError in one sentence otherwise."""
    url, listed, brain = p.get("url"), p.get("tools"), p.get("brain", "tinyllm-agent")
    if not isinstance(url, str) or not LOOPBACK.fullmatch(url):
        raise ValueError(f"the MCP server must be on this computer, http://127.0.0.1:PORT/mcp, got {url!r}")
    if not isinstance(listed, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in listed):
        raise ValueError("tools must be the server's tools/list entries, each with a name")
    if not listed:
        raise ValueError("the MCP server lists no tools, so the agent would have nothing to call")
    if brain not in BRAINS:
        raise ValueError(f"brain {brain!r} is not one of: {', '.join(BRAINS)}")
    steps = p.get("max_steps", 5)
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS_LIMIT:
        raise ValueError(f"max_steps must be between 1 and {MAX_STEPS_LIMIT}, got {steps!r}")
    return url, listed, brain, steps


def run_demo(params: Any, models: dict | None = None, call_json: Callable[[str, dict], str] | None = None) -> dict:
    """One goal with the server's tools; bad input is {"ok": False, "error": ...}, never a traceback."""
    try:
        url, listed, brain, max_steps = checked(params if isinstance(params, dict) else {})
        return run_goal(params.get("goal", ""), listed, make_brain(brain, models=models), max_steps,
                        call_json or page_call(url))
    except ValueError as error:
        return {"ok": False, "error": str(error)}


def run_goal(goal: str, listed: list[dict], model, max_steps: int, send: Callable[[str, dict], str]) -> dict:
    """The ReAct loop on `goal` with the listed tools, each call recorded as it went to the server."""
    calls, answered, lost = [], [], []                 # every call sent; those the server answered

    def recorded(name: str, arguments: dict) -> str:
        call = {"name": name, "arguments": arguments}
        calls.append(call)
        try:
            call["result"] = send(name, arguments)
            answered.append(call)
            return call["result"]
        except ValueError as error:         # the tool's error result: an observation
            call["error"] = str(error)
            answered.append(call)
            raise
        except McpPageError as error:       # the server is gone: the run ends at the next model call
            call["error"] = str(error)
            lost.append(str(error))
            raise

    def predictor(prompt: str, max_new_tokens: int | None = None) -> str:
        if lost:
            raise McpPageError(lost[0])
        return model(prompt, max_new_tokens)
    sent = []                                          # per tool run: did the server answer it? (a schema refusal is not sent)

    def counted(fn):
        def run(text: str) -> str:
            before = len(answered)
            try:
                return fn(text)
            finally:
                sent.append(len(answered) > before)
        return run
    tools = [Tool(spec.name, spec.description, counted(checked_caller(spec, recorded))) for spec in map(spec_of, listed)]
    terminal = io.StringIO()
    with redirect_stdout(terminal):
        trajectory = run_react(goal, predictor, tools, max_steps=max_steps, verbose=True, return_trajectory=True)
    ran = [i for i, step in enumerate(trajectory.steps) if step.outcome in (Outcome.ACTION, Outcome.TOOL_ERROR)]
    flag = label(grounding(trajectory))                # as `react --verbose` ends, when it applies
    out = {"trajectory": trajectory_json(trajectory), "calls": calls, "sent": [i for i, s in zip(ran, sent) if s],
           "trace": terminal.getvalue() + (f"[AGENT] {flag}\n" if flag else "")}
    return {"ok": False, "error": lost[0], **out} if lost else {"ok": True, **out}


def run_json(params_json: str, models: dict | None = None, call_json: Callable[[str, dict], str] | None = None) -> str:
    """`run_demo` from JSON text to JSON text (the widget sends and parses these)."""
    try:
        params = json.loads(params_json)
    except json.JSONDecodeError as error:
        return json.dumps({"ok": False, "error": f"params are not valid JSON: {error.msg}"})
    return json.dumps(run_demo(params, models, call_json))
