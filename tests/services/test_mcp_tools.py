"""MCP both ways with the official SDK (lllm/services/mcp_tools.py, `python -m lllm mcp`, `lllm react --tools-from`).

The SDK's own client lists and calls `python -m lllm mcp` in-process, over stdio and over
streamable HTTP on loopback; the MCP Inspector's command-line mode (from the committed lockfile)
lists and calls it; the agent takes its tools from it (the agent-tuned TinyLLM answers 391) and
from a server nobody here wrote, `@modelcontextprotocol/server-everything` (npm), started by the test.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import httpx
import pytest
from support.model_server import AGENT_MODEL
from support.server_process import ServerProcess

from lllm.agents.react import Outcome, run_react
from lllm.predictors.contract import ScriptedPredictor
from lllm.services.mcp_tools import McpTools, as_tools, mcp_server, server_target

pytest.importorskip("mcp", reason="needs the mcp extra: pip install 'lllm-learn[mcp]'")

ROOT = pathlib.Path(__file__).resolve().parents[2]
OURS = f"mcp:{sys.executable} -m lllm mcp"
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
INSPECTOR = ROOT / "node_modules" / ".bin" / "mcp-inspector"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs node (make venv installs the npm packages)")


class McpHttp(ServerProcess):
    PROBE, NAME = "/mcp", "lllm mcp --http"


def lllm(*args, cwd=ROOT, timeout=120):
    """`python -m lllm ARGS` as a user runs it; this checkout's lllm wherever it runs."""
    return subprocess.run([sys.executable, "-m", "lllm", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT)))


# ---- in-process: the mapping both ways ----------------------------------------------------------------------

def test_each_tool_is_listed_with_one_string_argument_and_called_by_name():
    with McpTools(mcp_server()) as served:
        assert [(t.name, t.input_schema["required"]) for t in served.listed] == [("calc", ["expression"]),
                                                                               ("lookup", ["topic"])]
        calc, lookup = served.tools
        assert (calc.fn("17 * 23"), lookup.fn("Who is Pip?")) == ("391", "Pip is Mira's grey cat.")


def test_a_tools_refusal_is_the_calls_error_with_its_sentence():
    with McpTools(mcp_server()) as served:
        with pytest.raises(ValueError, match="no fact about 'dragons'; topics: brookfield"):
            served.tools[1].fn("dragons")
        with pytest.raises(ValueError, match="Error executing tool calc"):
            served.tools[0].fn("17 *")


def test_in_the_react_loop_an_error_is_an_observation_and_the_run_goes_on():
    predictor = ScriptedPredictor(["Action: lookup[dragons]", "Action: calc[2 + 2]", "Final Answer: 4"])
    with McpTools(mcp_server()) as served:
        trajectory = run_react("What is 2 + 2?", predictor, served.tools, return_trajectory=True)
    assert [s.outcome for s in trajectory.steps] == [Outcome.TOOL_ERROR, Outcome.ACTION, Outcome.FINAL]
    assert trajectory.steps[0].observation.startswith("error: Error executing tool lookup: no fact about 'dragons'")
    assert trajectory.answer == "4"


def test_a_modules_tools_are_served_as_theirs():
    def shout(text: str) -> str:
        """Upper-cases the text."""
        return text.upper()
    with McpTools(mcp_server(as_tools(shout, "m:shout"))) as served:
        assert served.listed[0].input_schema["properties"] == {"input": {"title": "Input", "type": "string"}}
        assert served.tools[0].fn("hi") == "HI"


@pytest.mark.parametrize("spec, message", [
    ("", "--tools-from is empty"),
    ("ftp://x", "is neither mcp:COMMAND nor an http(s) URL"),
    ("mcp:", "names no command"),
    ("mcp:'unclosed", "the command cannot be read"),
])
def test_a_spec_that_names_no_server_is_one_sentence(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        server_target(spec)


def test_as_tools_refuses_what_is_not_a_tool():
    with pytest.raises(ValueError, match="m:x is not a Tool"):
        as_tools(42, "m:x")


# ---- python -m lllm mcp, with the SDK's client ------------------------------------------------------------

def test_the_sdks_client_lists_and_calls_lllm_mcp_over_stdio():
    with McpTools(OURS) as served:
        assert [t.name for t in served.listed] == ["calc", "lookup"]
        assert served.tools[0].fn("(17 * 23) - 1") == "390"


def test_the_sdks_client_lists_and_calls_lllm_mcp_over_streamable_http():
    server = McpHttp([sys.executable, "-m", "lllm", "mcp", "--http"], cwd=ROOT).wait_until_up()
    try:
        with McpTools(server.base + "/mcp") as served:
            assert [t.name for t in served.listed] == ["calc", "lookup"]
            assert served.tools[1].fn("mill") == "The mill is by the river. Its wheel is blue."
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
        headers = {"accept": "application/json, text/event-stream"}
        for extra, status in [({"host": "evil.example"}, 421), ({"origin": "https://evil.example"}, 403), ({}, 200)]:
            reply = httpx.post(server.base + "/mcp", json=initialize, headers=headers | extra, timeout=30)
            assert reply.status_code == status, (extra, reply.text)    # the SDK's guard against DNS rebinding
        taken = lllm("mcp", "--http", "--port", str(server.port), timeout=60)
        assert taken.returncode == 2 and taken.stderr.startswith("lllm mcp: error: cannot listen on 127.0.0.1:")
    finally:
        status, _, err = server.stop()
    assert status == 0 and "serving calc, lookup over streamable HTTP on http://127.0.0.1:" in err


def test_tools_a_module_names_are_served_over_stdio(tmp_path):
    (tmp_path / "my_tools.py").write_text('def shout(text: str) -> str:\n    "Upper-cases the text."\n'
                                          '    return text.upper()\n', encoding="utf-8")
    result = lllm("react", "shout[hello]", "--predictor", "scripted:" + str(write(tmp_path, "Final Answer: HELLO")),
                  "--tools-from", f"mcp:env PYTHONPATH={ROOT} {sys.executable} -m lllm mcp --tools my_tools:shout",
                  cwd=tmp_path)     # an MCP client starts its server with a clean environment: PYTHONPATH given again
    assert result.returncode == 0, result.stderr
    assert "Observation: HELLO" in result.stdout and "Final Answer: HELLO" in result.stdout


def write(folder: pathlib.Path, *replies: str) -> pathlib.Path:
    path = folder / "replies.json"
    path.write_text(json.dumps(list(replies)), encoding="utf-8")
    return path


@pytest.mark.parametrize("args, message", [
    (["mcp", "--tools", "no_such_module:tools"], "lllm mcp: error: cannot load tools from no_such_module:tools"),
    (["mcp", "--tools", "json:dumps"], "lllm mcp: error: cannot load tools from json:dumps: json:dumps is not a Tool"),
    (["react", "2 + 2", "--predictor", "rule", "--tools-from", "mcp:no-such-command-here"],
     "lllm react: error: cannot use the MCP server mcp:no-such-command-here: FileNotFoundError"),
    (["react", "2 + 2", "--predictor", "rule", "--tools-from", "gopher://x"],
     "lllm react: error: --tools-from 'gopher://x' is neither mcp:COMMAND nor an http(s) URL"),
])
def test_mistakes_are_one_line(args, message):
    result = lllm(*args)
    assert result.returncode == 2 and result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1, \
        result.stderr


# ---- the agent with tools from an MCP server ---------------------------------------------------------------

@pytest.mark.skipif(not AGENT_MODEL.exists(), reason="needs build/model/tinyllm-agent.onnx (make agent-model)")
def test_the_agent_tuned_tinyllm_answers_391_with_tools_from_lllm_mcp():
    result = lllm("react", "What is 17 * 23?", "--predictor", "tinyllm-agent", "--tools-from", OURS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-2:] == ["Observation: 391", "Final Answer: 391"]


@needs_node
def test_the_agent_uses_tools_of_a_server_nobody_here_wrote(tmp_path):
    """server-everything's echo (one string property) and get-sum (two numbers, as a JSON object)."""
    replies = write(tmp_path, "Thought: echo it\nAction: echo[hello]", 'Thought: add\nAction: get-sum[{"a": 17, "b": 23}]',
                    "Action: get-sum[17]", "Final Answer: 40")
    result = lllm("react", "What is 17 + 23?", "--predictor", f"scripted:{replies}", "--max-steps", "4", "--json",
                  "--tools-from", f"mcp:node {EVERYTHING}")
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert [s["observation"] for s in steps[:3]] == [
        "Echo: hello", "The sum of 17 and 23 is 40.",
        "error: get-sum takes no single argument, and the model wrote '17'"]
    assert [s["outcome"] for s in steps] == ["action", "action", "tool error", "final answer"]


# ---- the MCP Inspector's command-line mode ----------------------------------------------------------------------

def inspector(*args):
    return subprocess.run([str(INSPECTOR), "--cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


@needs_node
@pytest.mark.skipif(not INSPECTOR.exists(), reason="needs the npm packages (npm ci)")
def test_the_inspectors_cli_lists_and_calls_lllm_mcp():
    command = [sys.executable, "-m", "lllm", "mcp"]
    listed = inspector(*command, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == ["calc", "lookup"]
    called = inspector(*command, "--method", "tools/call", "--tool-name", "calc", "--tool-arg", "expression=17 * 23")
    assert json.loads(called.stdout) == {"content": [{"type": "text", "text": "391"}], "isError": False}
    refused = inspector(*command, "--method", "tools/call", "--tool-name", "lookup", "--tool-arg", "topic=dragons")
    assert json.loads(refused.stdout)["isError"] is True
    assert "no fact about 'dragons'" in json.loads(refused.stdout)["content"][0]["text"]


# ---- the native runtime's Agent with tools from an MCP server -------------------------------------------------

def native_agent(functions, replies):
    from lllm.runtimes.native import Agent, Prompt
    from lllm.runtimes.native.invokers.base import ScriptedInvoker
    return Agent("solver", Prompt(path="s", prompt="You solve arithmetic.", function_list=functions),
                 ScriptedInvoker(replies))


def ask_native(agent, question):
    from lllm.runtimes.native import DefaultTagParser, Prompt
    agent.open("main")
    agent.receive_prompt(Prompt(path="answer", prompt="Question: {question}",
                                parser=DefaultTagParser(required_xml_tags=["answer"])), {"question": question})
    return agent.respond()


def test_the_native_agent_calls_lllm_mcps_tools_with_its_own_json_calls():
    call = {"content": "", "function_calls": [{"name": "calc", "arguments": {"expression": "17 * 23"}}]}
    with McpTools(OURS) as served:
        functions = served.functions()
        assert [(f.name, f.required) for f in functions] == [("calc", ["expression"]), ("lookup", ["topic"])]
        agent = native_agent(functions, [call, "<answer>391</answer>"])
        reply = ask_native(agent, "What is 17 * 23?")
    assert reply.parsed["xml_tags"]["answer"] == ["391"]
    assert [m.content for m in agent.dialog("main").messages][-2:] == ["391", "<answer>391</answer>"]


@needs_node
def test_the_native_agent_calls_a_server_nobody_here_wrote():
    call = {"content": "", "function_calls": [{"name": "get-sum", "arguments": {"a": 17, "b": 23}}]}
    with McpTools(f"mcp:node {EVERYTHING}") as served:
        agent = native_agent(served.functions(), [call, "<answer>40</answer>"])
        reply = ask_native(agent, "What is 17 + 23?")
    assert [m.content for m in agent.dialog("main").messages][-2:] == ["The sum of 17 and 23 is 40.", "<answer>40</answer>"]
    assert reply.parsed["xml_tags"]["answer"] == ["40"]
