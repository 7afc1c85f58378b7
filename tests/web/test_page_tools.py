"""lllm/web/page_tools.py without a page: the widget's params checked, the calls recorded, a tool's
error an observation, a server that stops mid-run the run's one sentence (the page's part, sending
the calls, is tests/browser/test_mcp_page_engines.py)."""

import json

import pytest

from lllm.web.page_tools import McpPageError, run_demo

CALC = {"name": "calc", "description": "arithmetic", "inputSchema": {"type": "object",
        "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}
URL = "http://127.0.0.1:8765/mcp"


def params(**changes) -> dict:
    return {"url": URL, "tools": [CALC], "goal": "What is 17 * 23?", "brain": "rule", **changes}


@pytest.mark.parametrize("changes, message", [
    ({"url": "https://example.com/mcp"}, "the MCP server must be on this computer, http://127.0.0.1:PORT/mcp, got 'https://example.com/mcp'"),
    ({"url": "http://127.0.0.1.evil.example/mcp"}, "the MCP server must be on this computer"),
    ({"tools": [{"description": "no name"}]}, "tools must be the server's tools/list entries, each with a name"),
    ({"brain": "tinyllm"}, "brain 'tinyllm' is not one of: tinyllm-agent, rule"),
    ({"max_steps": 11}, "max_steps must be between 1 and 10, got 11"),
    ({"goal": ""}, "goal is empty: ask the agent a question"),
])
def test_bad_params_are_one_sentence(changes, message):
    out = run_demo(params(**changes), call_json=lambda name, arguments: "391")
    assert out["ok"] is False and out["error"].startswith(message)


def test_a_tools_error_result_is_an_observation_and_is_recorded():
    def refuse(name, arguments):
        raise ValueError("no such thing")
    out = run_demo(params(goal="calc[1 +]"), call_json=refuse)
    first = out["trajectory"]["steps"][0]
    assert first["observation"] == "error: no such thing" and out["sent"][0] == 0
    assert out["calls"][0] == {"name": "calc", "arguments": {"expression": "1 +"}, "error": "no such thing"}


def test_arguments_that_break_the_schema_are_refused_before_any_call():
    strict = {**CALC, "inputSchema": {**CALC["inputSchema"], "properties": {"expression": {"type": "string", "minLength": 5}}}}
    out = run_demo(params(tools=[strict], goal="calc[1]"), call_json=lambda name, arguments: pytest.fail("called"))
    assert out["calls"] == [] and out["sent"] == []
    assert out["trajectory"]["steps"][0]["observation"].startswith("error: the arguments of calc do not fit its schema")


def test_a_server_that_stops_mid_run_ends_the_run_with_its_sentence():
    def gone(name, arguments):
        raise McpPageError("Nothing answers at http://127.0.0.1:8765/mcp any more: the MCP server stopped.")
    out = run_demo(params(), call_json=gone)
    assert out["ok"] is False and out["error"].startswith("Nothing answers at")
    assert out["trajectory"]["stop_reason"] == "predictor error" and len(out["trajectory"]["steps"]) == 2
    assert out["sent"] == [] and out["calls"][0]["error"].startswith("Nothing answers at")   # no answer to mark
    assert json.dumps(out)                            # the widget parses it
