"""Layer 4 · tools over MCP, both ways: `mcp_server(tools)` serves ReAct tools; `McpTools(spec)` makes any MCP server's tools ReAct tools.

Read `lllm/agents/tools.py` (a Tool is a named function from argument text to observation text)
and `toolcalls.py` (argument text into JSON arguments, checked against a schema) first.

MCP, the Model Context Protocol, is how tools are served to any agent today: a server lists its
tools (each a name, a description and a JSON Schema for its arguments, `inputSchema`) and runs a
call (`tools/call` with JSON arguments) for any client, over stdio (the client starts the server
as a child process and speaks JSON-RPC on its stdin and stdout) or streamable HTTP. The official
SDK (`mcp` on PyPI, the `mcp` extra) does the protocol; this module only maps tools across:

    serving   a Tool's text argument becomes one string property (`expression` for calc,
              `topic` for lookup, `input` for any other), and its observation the text result;
              a ValueError or LookupError it raises is the call's error result (isError)
    using     each listed tool becomes a Tool whose argument text is turned into JSON arguments
              as the model server does (`arguments_from_text`: the tool's one property, or a JSON
              object), checked against its inputSchema before the call; an error result or
              arguments that do not fit raise ValueError, which the ReAct loop shows as a tool error

For the native runtime's Agent, `McpTools.functions()` gives the same tools as its `Function`
declarations (the server's schema, properties and required, bound to the call), so the Agent's
own tool calls, already JSON, go to the server as they are.

`McpTools` holds one connection open for a whole run, on a thread of its own (anyio's blocking
portal), so the synchronous ReAct loop calls tools as plain functions. SPEC is `mcp:COMMAND`
(started as a child process, e.g. `mcp:python -m lllm mcp`) or a URL of a streamable HTTP server
(`http://127.0.0.1:8765/mcp`). A server that cannot be started or reached is a ValueError in one sentence.

Usage (the examples run the server in-process; `python -m lllm mcp` runs it for other programs):

    >>> [(t.name, t.input_schema["properties"]) for t in listed_tools(mcp_server())]     # doctest: +NORMALIZE_WHITESPACE
    [('calc', {'expression': {'title': 'Expression', 'type': 'string'}}),
     ('lookup', {'topic': {'title': 'Topic', 'type': 'string'}})]
    >>> with McpTools(mcp_server()) as served:
    ...     served.tools[0].fn("17 * 23"), served.tools[1].fn("pip")
    ('391', "Pip is Mira's grey cat.")
"""

from __future__ import annotations

import contextlib
import inspect
import json
import re
import shlex
from typing import Sequence

from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.services.schema_check import problems
from lllm.services.toolcalls import ToolSpec, arguments_from_text

__all__ = ["INSTALL_MCP", "ARGUMENT_NAMES", "require_mcp", "as_tools", "mcp_server", "check_origin", "http_app",
           "listed_tools", "server_target", "checked_caller", "spec_of", "McpTools"]

INSTALL_MCP = "pip install 'lllm-learn[mcp]'"
ARGUMENT_NAMES = {"calc": "expression", "lookup": "topic"}     # the one argument's name; "input" for other tools
TIMEOUT = 30.0                                                  # seconds a call or the connection may take


def require_mcp() -> None:
    """ValueError naming the extra to install when the MCP SDK cannot be imported."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ValueError(f"MCP needs the official SDK (the mcp package), which this Python cannot import; "
                         f"{INSTALL_MCP}") from None


# ---- serving: ReAct tools as an MCP server --------------------------------------------------------------

def tool_function(tool: Tool, argument: str, log=None):
    """`tool` as a function of one named string argument, which is how the SDK reads a tool's schema.
    A refusal (ValueError, LookupError) is raised as the SDK's ToolError, so its sentence reaches the
    client (any other exception is reported as "Error executing tool NAME", its details kept here).
    `log(line)`, when given, hears each call: `calc {"expression": "17 * 23"} -> 391`."""
    from mcp.server.mcpserver.exceptions import ToolError

    def run(**arguments) -> str:
        said = f"{tool.name} {json.dumps(arguments)} -> "
        try:
            result = str(tool.fn(arguments[argument]))
        except (ValueError, LookupError) as error:
            sentence = str(error.args[0]) if error.args else str(error)
            log and log(said + f"error: {sentence}")
            raise ToolError(sentence) from None
        except Exception as error:
            log and log(said + f"error: {type(error).__name__}: {error}")
            raise
        log and log(said + result)
        return result
    run.__signature__ = inspect.Signature([inspect.Parameter(argument, inspect.Parameter.KEYWORD_ONLY, annotation=str)],
                                          return_annotation=str)
    run.__annotations__ = {argument: str, "return": str}
    run.__name__ = run.__qualname__ = tool.name
    return run


def as_tools(value, where: str) -> tuple[Tool, ...]:
    """What a user module names as tools: a Tool, a list of Tools, a function of one text argument
    (its name and docstring describe it), or a function of no arguments returning one of those.

    >>> def shout(text: str) -> str:
    ...     "Upper-cases the text."
    ...     return text.upper()
    >>> tool, = as_tools(shout, "m:shout")
    >>> tool.name, tool.description, tool.fn("hi")
    ('shout', 'Upper-cases the text.', 'HI')
    """
    if isinstance(value, Tool):
        return (value,)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Tool) for v in value):
        return tuple(value)
    if callable(value):
        parameters = list(inspect.signature(value).parameters.values())
        if not any(p.default is p.empty for p in parameters):
            return as_tools(value(), where)
        if len(parameters) == 1:
            description = (inspect.getdoc(value) or value.__name__).splitlines()[0]
            return (Tool(value.__name__, description, value),)
    raise ValueError(f"{where} is not a Tool, a list of Tools, a function of one text argument or a function "
                     "returning one of those")


def mcp_server(tools: Sequence[Tool] = DEFAULT_TOOLS, name: str = "lllm", log=None):
    """An MCP server (the SDK's MCPServer) offering `tools`; run it with `.run()` (stdio) or serve
    `http_app(server, ...)`. `log(line)` hears each tool call and its result."""
    require_mcp()
    from mcp.server.mcpserver import MCPServer
    server = MCPServer(name, instructions="Tools of LLLM's ReAct agent: each takes one text argument.",
                       log_level="WARNING")
    for tool in tools:
        server.add_tool(tool_function(tool, ARGUMENT_NAMES.get(tool.name, "input"), log), name=tool.name,
                        description=tool.description, structured_output=False)
    return server


# ---- serving over HTTP to web pages: the SDK's guard, and CORS for the origins named ------------------------

LOOPBACK = ("127.0.0.1", "localhost", "::1")
SDK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]             # the SDK's own guard on loopback
SDK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
EXPOSED = "mcp-session-id, mcp-protocol-version"                  # response headers a page may read
ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+)(:([0-9]{1,5}|\*))?")


def check_origin(text: str) -> str:
    """An `--allow-origin` value: one page's origin (`https://lllm.pages.dev`) or any port of one host
    (`http://127.0.0.1:*`); ValueError in one sentence otherwise, and for `*` (every web page).

    >>> check_origin("https://lllm.pages.dev/")
    'https://lllm.pages.dev'
    >>> check_origin("*")
    Traceback (most recent call last):
    ...
    ValueError: '*' would let every web page you visit call these tools: name the page's origin, e.g. https://lllm.pages.dev
    """
    origin = text.strip().rstrip("/")
    if origin == "*":
        raise ValueError("'*' would let every web page you visit call these tools: name the page's origin, "
                         "e.g. https://lllm.pages.dev")
    if not ORIGIN.fullmatch(origin):
        raise ValueError(f"{text!r} is not a web page's origin: write scheme://host[:port], e.g. https://lllm.pages.dev "
                         "or http://127.0.0.1:8000 (no path)")
    return origin


def http_app(server, host: str = "127.0.0.1", origins: Sequence[str] = ()):
    """The server as an ASGI app for streamable HTTP at /mcp. On loopback the SDK refuses a Host that
    is not this machine (421) and an Origin that is not loopback's or named (403); the pages of
    `origins` also get CORS (their preflight answered, their answers and the session header readable)."""
    from mcp.server.transport_security import TransportSecuritySettings
    security = None
    if host in LOOPBACK:
        ports = [o[:-2] for o in origins if o.endswith(":*")]       # the SDK's ":*" needs a port; a page may have none
        security = TransportSecuritySettings(allowed_hosts=SDK_HOSTS, allowed_origins=[*SDK_ORIGINS, *origins, *ports])
    app = server.streamable_http_app(host=host, transport_security=security)
    return with_cors(app, origins) if origins else app


def with_cors(app, origins: Sequence[str]):
    """`app` with CORS for the pages of `origins` (lllm/services/door.py's matcher and headers);
    any other request goes to `app` untouched, whose guard decides."""
    from lllm.services.door import cors_headers, origin_matcher
    allowed = origin_matcher(tuple(origins))

    async def cors(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        extra, named = cors_headers(headers.get("origin"), allowed, headers)
        if not (named and extra):
            return await app(scope, receive, send)
        if scope["method"] == "OPTIONS" and "access-control-allow-methods" in extra:     # a preflight
            extra["access-control-allow-methods"] = "GET, POST, DELETE, OPTIONS"
            await send({"type": "http.response.start", "status": 204,
                        "headers": [(k.encode(), v.encode()) for k, v in extra.items()]})
            return await send({"type": "http.response.body", "body": b""})
        extra["access-control-expose-headers"] = EXPOSED

        async def send_with_cors(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k.encode(), v.encode()) for k, v in extra.items())]}
            await send(message)
        await app(scope, receive, send_with_cors)
    return cors


def listed_tools(target) -> list:
    """The tools an MCP server lists (the SDK's Tool records), through one short connection."""
    with McpTools(target) as served:
        return served.listed


# ---- using: any MCP server's tools as ReAct tools ---------------------------------------------------------

def server_target(spec: str):
    """What the SDK's Client connects to for SPEC: `mcp:COMMAND` or an http(s) URL; ValueError otherwise."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("--tools-from is empty: give mcp:COMMAND or a URL such as http://127.0.0.1:8765/mcp")
    if spec.startswith(("http://", "https://")):
        return spec
    if spec.startswith("mcp:"):
        require_mcp()
        from mcp import StdioServerParameters
        try:
            words = shlex.split(spec[len("mcp:"):])
        except ValueError as error:
            raise ValueError(f"--tools-from {spec!r}: the command cannot be read ({error})") from None
        if not words:
            raise ValueError("--tools-from mcp: names no command, e.g. mcp:python -m lllm mcp")
        return StdioServerParameters(command=words[0], args=words[1:])
    raise ValueError(f"--tools-from {spec!r} is neither mcp:COMMAND nor an http(s) URL")


def result_text(result) -> str:
    """A call result's text: its text parts joined, else its structured content as JSON."""
    texts = [part.text for part in result.content if getattr(part, "type", None) == "text"]
    if texts:
        return " ".join(texts)
    return json.dumps(result.structured_content) if result.structured_content is not None else ""


def first_reason(error: BaseException) -> str:
    """The innermost first reason of an error the SDK raised (often a group of one)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def checked_caller(spec: ToolSpec, call_json):
    """The function a ReAct Tool runs: argument text -> JSON arguments, checked against the tool's
    schema -> `call_json(name, arguments)` -> text. The page's MCP tools (lllm/web/page_tools.py)
    run the same, so a goal sends the same arguments from the page as from a terminal.

    >>> calc = checked_caller(ToolSpec("calc", "", {"type": "object", "required": ["expression"],
    ...     "properties": {"expression": {"type": "string"}}}), lambda name, arguments: f"{name} {arguments}")
    >>> calc("17 * 23")
    "calc {'expression': '17 * 23'}"
    """
    def call(text: str) -> str:
        arguments = arguments_from_text(text, spec)
        wrong = problems(arguments, spec.parameters)
        if wrong:
            raise ValueError(f"the arguments of {spec.name} do not fit its schema: {'; '.join(wrong)}")
        return call_json(spec.name, arguments)
    return call


def spec_of(listed: dict) -> ToolSpec:
    """A `tools/list` entry (its JSON: name, description, inputSchema) as a ToolSpec."""
    return ToolSpec(listed["name"], listed.get("description") or "", dict(listed.get("inputSchema") or {"type": "object"}))


class McpTools:
    """A connection to one MCP server, open while the `with` block runs: `tools` are its tools as
    ReAct Tools, `listed` the server's own descriptions. `target` is a SPEC or anything the SDK's
    Client takes (an MCPServer in-process, a URL, StdioServerParameters)."""

    def __init__(self, target, timeout: float = TIMEOUT):
        require_mcp()
        self.spec = target if isinstance(target, str) else type(target).__name__
        self.target = server_target(target) if isinstance(target, str) else target
        self.timeout = timeout
        self.tools: tuple[Tool, ...] = ()
        self.listed: list = []
        self.stack = contextlib.ExitStack()

    def __enter__(self) -> McpTools:
        from anyio.from_thread import start_blocking_portal
        from mcp import Client
        try:
            self.portal = self.stack.enter_context(start_blocking_portal())
            client = Client(self.target, read_timeout_seconds=self.timeout, raise_exceptions=True)
            self.client = self.stack.enter_context(self.portal.wrap_async_context_manager(client))
            self.listed = list(self.portal.call(self.client.list_tools).tools)
        except Exception as error:          # a command that is not there, a server that exits or refuses
            self.stack.close()
            raise ValueError(f"cannot use the MCP server {self.spec}: {first_reason(error)}") from None
        specs = [ToolSpec(t.name, t.description or "", dict(t.input_schema or {"type": "object"})) for t in self.listed]
        self.tools = tuple(Tool(spec.name, spec.description, checked_caller(spec, self.call_json)) for spec in specs)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.stack.close()
        except Exception:                    # the server already went away: nothing is left to close
            pass

    def call_json(self, name: str, arguments: dict) -> str:
        """One `tools/call` with JSON arguments: the result's text, or ValueError with the server's error."""
        result = self.portal.call(self.client.call_tool, name, arguments)
        if result.is_error:
            raise ValueError(result_text(result) or f"{name} failed")
        return result_text(result)

    def functions(self) -> list:
        """The server's tools as the native runtime's Functions, bound to this connection."""
        from lllm.runtimes.native.core.tools import Function
        found = []
        for listed in self.listed:
            schema = dict(listed.input_schema or {})
            declared = Function(listed.name, listed.description or "", schema.get("properties", {}),
                                schema.get("required", []))
            found.append(declared.bind(self.json_caller(listed.name)))
        return found

    def json_caller(self, name: str):
        return lambda **arguments: self.call_json(name, arguments)

