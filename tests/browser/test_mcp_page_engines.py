"""The tool-calls page's agent with an MCP server's tools, in Chromium, Firefox and WebKit: a real
`python -m lllm mcp --http --allow-origin SITE` on a free loopback port, the page's MCP client
(site/assets/tools/mcp-client.mjs) and the ReAct agent in the page's Pyodide (lllm/web/page_tools.py).

One browser launch per engine runs tests/support/mcp_scenario.js on /agents/tool-calls/: an address
off this computer, a server started without --allow-origin (refusing the page) and a port where
nothing runs are each one sentence; the server's tools are listed; "What is 17 * 23?" ends in 391
with its one calc call sent from the page and marked in the trace; `lookup[dragons]` (a tool's
error) is an observation. The oracle is CPython: `python -m lllm react GOAL --tools-from URL
--verbose` on a server of its own prints the same trace, and that server's log of the calls it ran
(name and JSON arguments, `lllm mcp: calc {...} -> 391`) equals the page's server's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import engines
from support.model_files import require_agent_model
from support.runtime import free_port
from support.server_process import ServerProcess
from support.axe import serious_violations

pytest.importorskip("mcp", reason="needs the mcp extra: pip install 'lllm-learn[mcp]'")
pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "support" / "mcp_scenario.js"
PAGE = "agents/tool-calls/"
GOAL, FAILING = "What is 17 * 23?", "lookup[dragons]"
TIMEOUT_MS = 600_000          # a whole TinyLLM run in the page on a busy 2-core machine


class McpHttp(ServerProcess):
    PROBE, NAME = "/mcp", "lllm mcp --http"


def mcp_server(*flags: str) -> McpHttp:
    return McpHttp([sys.executable, "-m", "lllm", "mcp", "--http", *flags], cwd=ROOT).wait_until_up()


def calls_logged(stderr: str) -> list[str]:
    """The calls a server ran, as its stderr lists them (`calc {"expression": "17 * 23"} -> 391`)."""
    return [line.removeprefix("lllm mcp: ") for line in stderr.splitlines() if " -> " in line]


@pytest.fixture(scope="module")
def terminal():
    """CPython's run of both goals with `react --tools-from` on a server of its own: traces and the calls it logged."""
    require_agent_model()
    server = mcp_server()
    try:
        traces = [subprocess.run([sys.executable, "-m", "lllm", "react", goal, "--predictor", "tinyllm-agent", "--verbose",
                                  "--tools-from", server.base + "/mcp"], capture_output=True, text=True, cwd=ROOT,
                                 timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT))).stdout for goal in (GOAL, FAILING)]
    finally:
        _, _, err = server.stop()
    return {"traces": traces, "calls": calls_logged(err)}


@pytest.fixture(scope="module", params=["chromium", "firefox", "webkit"])
def engine_run(request, site_server):
    """The scenario's report in one engine, with the calls its server logged (one browser launch per engine)."""
    require_agent_model()
    origin = site_server.url.rstrip("/")
    allowing, refusing = mcp_server("--allow-origin", origin), mcp_server()
    try:
        arg = {"url": allowing.base + "/mcp", "refusing": refusing.base + "/mcp", "stopped": f"http://127.0.0.1:{free_port()}/mcp",
               "goal": GOAL, "failing": FAILING, "timeoutMs": TIMEOUT_MS}
        url = site_server.url + PAGE
        if request.param == "chromium":
            run = engines.chromium(request.getfixturevalue("browser"), url, arg, script=SCRIPT)
        else:
            run = getattr(engines, request.param)(url, arg, script=SCRIPT)
    finally:
        refusing.stop()
        _, _, err = allowing.stop()
    report = run["report"]
    assert "fatal" not in report, report.get("fatal")
    return {**run, "arg": arg, "origin": origin, "calls": calls_logged(err)}


def test_the_server_lists_its_tools_in_the_page_and_the_client_loads_on_the_first_press(engine_run):
    report = engine_run["report"]
    assert report["loaded"] is False                 # the MCP client is not fetched with the page
    assert report["listed"] == {"state": "listed", "error": None, "tools": ["calc(expression)", "lookup(topic)"]}


def test_an_address_off_this_computer_is_one_sentence(engine_run):
    wrong = engine_run["report"]["wrong"]
    assert wrong == {"state": "error", "error": 'The address "https://example.com/mcp" is not an MCP server on this computer: '
                                                "write http://127.0.0.1:PORT/mcp or http://localhost:PORT/mcp (this page may reach nothing else)."}


@pytest.mark.parametrize("case", ["refusing", "stopped"])
def test_a_server_that_refuses_the_origin_or_is_not_running_is_one_sentence_naming_allow_origin(engine_run, case):
    run, arg, origin = engine_run["report"][case], engine_run["arg"], engine_run["origin"]
    port = arg[case].split(":")[2].split("/")[0]
    assert run["state"] == "error", run
    assert run["error"] == (f"Nothing at {arg[case]} answered this page: start the server with "
                            f"`python -m lllm mcp --http --port {port} --allow-origin {origin}`, or, if it is running, let it "
                            f"accept the origin {origin} (for lllm mcp that is --allow-origin; a browser cannot tell a stopped "
                            "server from a refusing one).")


def test_the_agent_answers_391_with_its_calc_call_sent_from_the_page(engine_run):
    run = engine_run["report"]["run"]
    assert run["state"] == "done", run
    result = run["result"]
    assert result["trajectory"]["answer"] == "391"
    assert result["calls"] == [{"name": "calc", "arguments": {"expression": "17 * 23"}, "result": "391"}]
    assert result["sent"] == [0] and run["marked"] == 1          # the trace marks the observation the server gave


def test_a_tools_error_comes_back_as_the_observation(engine_run):
    run = engine_run["report"]["failing"]
    assert run["state"] == "done", run
    first = run["result"]["trajectory"]["steps"][0]
    assert first["action"] == ["lookup", "dragons"] and first["outcome"] == "tool error"
    assert first["observation"].startswith("error: Error executing tool lookup: no fact about 'dragons'")


def test_the_page_sends_the_calls_and_arguments_the_terminal_sends_and_prints_its_trace(engine_run, terminal):
    report = engine_run["report"]
    assert [report["run"]["result"]["trace"], report["failing"]["result"]["trace"]] == terminal["traces"]
    assert engine_run["calls"] == terminal["calls"] and terminal["calls"][0] == 'calc {"expression": "17 * 23"} -> 391'


def test_the_console_shows_only_the_refusals_the_scenario_asked_for(engine_run):
    arg = engine_run["arg"]                          # WebKit: console.error and uncaught errors only
    ports = [arg[case].split(":")[2].split("/")[0] for case in ("refusing", "stopped")]
    unexpected = [line for line in engine_run["console"]
                  if not any(word in line for word in (*ports, "Failed to load resource", "CORS"))]
    assert unexpected == [], engine_run["console"]


def test_chromium_lists_tools_by_keyboard_at_390_px_and_axe_finds_nothing_serious(browser, site_server):
    server = mcp_server("--allow-origin", site_server.url.rstrip("/"))
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.goto(site_server.url + PAGE)
        widget = page.locator(".lllm-mcp")
        widget.locator("[name=mcp_url]").focus()
        page.keyboard.press("Control+a")
        page.keyboard.type(server.base + "/mcp")
        page.keyboard.press("Tab")                   # the goal
        page.keyboard.press("Tab")                   # List tools
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('.lllm-mcp').dataset.state === 'listed'", timeout=60_000)
        assert serious_violations(page, ".lllm-mcp") == []
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        assert widget.locator(".lllm-mcp__command").text_content() == \
            f"python -m lllm mcp --http --port {server.port} --allow-origin {site_server.url.rstrip('/')}"
    finally:
        context.close()
        server.stop()
