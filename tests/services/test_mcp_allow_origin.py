"""`python -m lllm mcp --http --allow-origin ORIGIN`: the named site's pages may call the tools, no other's.

A real server on a free loopback port, spoken to with httpx as a browser would: the named origin's
preflight is answered (204, the methods and headers it asked for) and its requests carry CORS
headers, the session header readable; any other origin gets no CORS headers and its requests are
refused by the SDK's guard (403), as is a Host that is not this machine (421). Each tool call the
server runs is a line on its stderr. Mistakes in the flags are one line each.
"""

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from support.server_process import ServerProcess

from lllm.services.mcp_tools import check_origin

pytest.importorskip("mcp", reason="needs the mcp extra: pip install 'lllm-learn[mcp]'")
ROOT = Path(__file__).resolve().parents[2]
SITE = "https://lllm.pages.dev"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
ACCEPT = {"accept": "application/json, text/event-stream"}


class McpHttp(ServerProcess):
    PROBE, NAME = "/mcp", "lllm mcp --http"


@pytest.fixture(scope="module")
def server():
    running = McpHttp([sys.executable, "-m", "lllm", "mcp", "--http", "--allow-origin", SITE, "--allow-origin",
                       "http://localhost:*"], cwd=ROOT).wait_until_up()
    yield running
    running.stop()


def preflight(server, origin: str) -> httpx.Response:
    return httpx.options(server.base + "/mcp", timeout=30, headers={
        "origin": origin, "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,mcp-protocol-version"})


@pytest.mark.parametrize("origin", [SITE, "http://localhost:5173"])
def test_a_named_origins_preflight_and_requests_get_cors_headers(server, origin):
    allowed = preflight(server, origin)
    assert allowed.status_code == 204
    assert allowed.headers["access-control-allow-origin"] == origin
    assert allowed.headers["access-control-allow-headers"] == "content-type,mcp-protocol-version"
    assert "POST" in allowed.headers["access-control-allow-methods"]
    reply = httpx.post(server.base + "/mcp", json=INITIALIZE, headers=ACCEPT | {"origin": origin}, timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.headers["access-control-allow-origin"] == origin and reply.headers["mcp-session-id"]
    assert "mcp-session-id" in reply.headers["access-control-expose-headers"]


@pytest.mark.parametrize("origin, status", [("https://evil.example", 403), ("http://127.0.0.1:8000", 200)])
def test_any_other_origin_gets_no_cors_headers(server, origin, status):
    assert "access-control-allow-origin" not in preflight(server, origin).headers
    reply = httpx.post(server.base + "/mcp", json=INITIALIZE, headers=ACCEPT | {"origin": origin}, timeout=30)
    assert reply.status_code == status and "access-control-allow-origin" not in reply.headers
    # a loopback page passes the SDK's guard but, without CORS headers, its browser lets it read nothing


def test_a_host_that_is_not_this_machine_is_still_refused(server):
    reply = httpx.post(server.base + "/mcp", json=INITIALIZE, headers=ACCEPT | {"origin": SITE, "host": "evil.example"}, timeout=30)
    assert reply.status_code == 421


def test_each_call_the_server_runs_is_a_line_on_its_stderr():
    from lllm.services.mcp_tools import McpTools
    running = McpHttp([sys.executable, "-m", "lllm", "mcp", "--http"], cwd=ROOT).wait_until_up()
    try:
        with McpTools(running.base + "/mcp") as served:
            assert served.tools[0].fn("17 * 23") == "391"
            with pytest.raises(ValueError, match="no fact about 'dragons'"):
                served.tools[1].fn("dragons")
    finally:
        _, _, err = running.stop()
    calls = [line for line in err.splitlines() if " -> " in line]
    assert calls[0] == 'lllm mcp: calc {"expression": "17 * 23"} -> 391'
    assert calls[1].startswith("lllm mcp: lookup {\"topic\": \"dragons\"} -> error: no fact about 'dragons'")


@pytest.mark.parametrize("args, message", [
    (["--http", "--allow-origin", "*"], "lllm mcp: error: argument --allow-origin: '*' would let every web page you visit "
                                        "call these tools: name the page's origin, e.g. https://lllm.pages.dev"),
    (["--http", "--allow-origin", "lllm.pages.dev"], "lllm mcp: error: argument --allow-origin: 'lllm.pages.dev' is not a "
                                                     "web page's origin: write scheme://host[:port]"),
    (["--allow-origin", SITE], "lllm mcp: error: --allow-origin is for --http: over stdio no web page can reach the server"),
])
def test_mistakes_in_the_origin_are_one_line(args, message):
    result = subprocess.run([sys.executable, "-m", "lllm", "mcp", *args], capture_output=True, text=True, cwd=ROOT,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1, result.stderr


def test_check_origin_keeps_an_origin_and_drops_a_trailing_slash():
    assert check_origin("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert check_origin("http://127.0.0.1:*") == "http://127.0.0.1:*"
    with pytest.raises(ValueError, match="no path"):
        check_origin("https://lllm.pages.dev/agents/")
