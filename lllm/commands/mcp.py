"""Command line · `lllm mcp`: the ReAct agent's tools (calc, lookup, or a module's) as an MCP server, over stdio or streamable HTTP on loopback.

MCP clients (an IDE, an agent framework, the MCP Inspector, `lllm react --tools-from`) start it
themselves over stdio, or reach it over HTTP. The mapping from a ReAct tool to an MCP tool is in
lllm/services/mcp_tools.py. Needs the `mcp` extra (`pip install 'lllm-learn[mcp]'`).

    python -m lllm mcp                                   # stdio: what a client starts as a child process
    python -m lllm mcp --http --port 8765                # streamable HTTP on http://127.0.0.1:8765/mcp
    python -m lllm mcp --tools my_tools:TOOLS            # a module's tools instead of calc and lookup
    python -m lllm mcp --http --allow-origin https://lllm.pages.dev    # the site's pages may call the tools too

`--tools MODULE:ATTRIBUTE` names tools the way `lllm serve` names a tactic ('.' is searched first):
a Tool, a list of Tools, a function of one text argument, or a function returning one of those.
Over stdio, stdout carries the protocol, so everything else goes to stderr. Over HTTP on loopback
the SDK refuses a request whose Host is not this machine (421) or whose Origin is another site's
(403), so a web page cannot reach the tools through the reader's browser (DNS rebinding).
`--allow-origin ORIGIN` (repeatable) names a site whose pages may call the tools: its Origin passes
the guard and gets CORS headers (a preflight is answered), so the tool-calls page's agent can use
them. There is no default and no `*`: a page of any other site stays refused. The server's stderr
shows every call it ran (`lllm mcp: calc {"expression": "17 * 23"} -> 391`), whoever sent it.
"""

from __future__ import annotations

import os
import signal
import sys

from lllm.commands.args import UsageError, argument_type
from lllm.runtimes.native.entrypoints import check_entrypoint
from lllm.services.app import check_host, check_port
from lllm.services.mcp_tools import LOOPBACK, check_origin



def add_cli(subparsers) -> None:
    p = subparsers.add_parser("mcp", help="serve the agent's tools over MCP (stdio, or streamable HTTP with --http)",
                              description="Serve calc and lookup (or the tools a module names) as an MCP server with "
                                          "the official SDK: over stdio by default, over streamable HTTP on loopback "
                                          "with --http. Needs the mcp extra: pip install 'lllm-learn[mcp]'.")
    p.add_argument("--tools", type=argument_type(check_entrypoint, keep=True), metavar="MODULE:ATTRIBUTE",
                   help="tools to serve instead of calc and lookup: a Tool, a list of Tools, a function of one text "
                        "argument, or a function returning one of those")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    p.add_argument("--host", type=argument_type(check_host), default="127.0.0.1",
                   help="with --http: default 127.0.0.1 (this machine only)")
    p.add_argument("--port", type=argument_type(check_port), default=8765, help="with --http: 1-65535 (default 8765)")
    p.add_argument("--allow-origin", action="append", default=[], type=argument_type(check_origin), metavar="ORIGIN",
                   help="with --http: a site whose web pages may call the tools (CORS), e.g. https://lllm.pages.dev or "
                        "http://127.0.0.1:8000; repeat for more; 'http://127.0.0.1:*' means any port. No default, no '*'")
    p.set_defaults(run=run)


def load_tools(entrypoint: str | None):
    """The tools `--tools` names (calc and lookup without it); any failure is one UsageError line."""
    from lllm.agents.tools import DEFAULT_TOOLS
    from lllm.services.mcp_tools import as_tools
    if entrypoint is None:
        return DEFAULT_TOOLS
    import importlib
    module_name, attribute = check_entrypoint(entrypoint)
    sys.path.insert(0, os.getcwd())
    try:
        value = importlib.import_module(module_name)
        for part in attribute.split("."):
            value = getattr(value, part)
        return as_tools(value, entrypoint)
    except Exception as error:              # the user's module may raise anything while it is imported
        raise UsageError(f"cannot load tools from {entrypoint}: {error}") from None
    finally:
        sys.path.remove(os.getcwd())


def say(line: str) -> None:
    print(f"lllm mcp: {line}", file=sys.stderr, flush=True)


def run(args) -> int:
    from lllm.services.mcp_tools import mcp_server
    tools = load_tools(args.tools)
    if args.allow_origin and not args.http:
        raise UsageError("--allow-origin is for --http: over stdio no web page can reach the server")
    try:
        server = mcp_server(tools, log=say)
    except ValueError as error:              # the mcp extra is missing
        raise UsageError(str(error)) from None
    names = ", ".join(tool.name for tool in tools)
    if not args.http:
        say(f"serving {names} over stdio")
        server.run()
        return 0
    return serve_http(server, names, args.host, args.port, args.allow_origin)


def serve_http(server, names: str, host: str, port: int, origins: list[str]) -> int:
    from lllm.services.app import listen, run_app
    from lllm.services.mcp_tools import http_app
    try:
        sock = listen(host, port)                # a port that is taken is one clear error before anything starts
    except ValueError as error:
        raise UsageError(str(error)) from None
    if host not in LOOPBACK:
        say(f"note: --host {host} lets other machines call the tools")
    shown = f"[{host}]" if ":" in host else host
    say(f"serving {names} over streamable HTTP on http://{shown}:{port}/mcp; Ctrl-C stops it")
    if origins:
        say(f"web pages of {', '.join(origins)} may call the tools")
    signal.signal(signal.SIGTERM, signal.default_int_handler)      # SIGTERM stops it as Ctrl-C does
    app = http_app(server, host, origins)
    run_app(app, sock, "warning")                # the one uvicorn runner (lllm/services/app.py); no door's limits here
    say("stopped")
    return 0
