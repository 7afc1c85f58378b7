"""Layer 4 · services: tactics and models over HTTP, one app adapter for both, the client's import path.

Each service is a pure handler, `handle(method, path, body) -> (status, JSON or a stream)`, put on a
socket the same way (`app.py`: the one FastAPI app factory and the one uvicorn runner, with the
checks of where to listen):

    protocol_service.py   the tactic service's handler (`lllm serve`): /run, /stream, /info, @endpoints
    tactic_app.py         its route in the one app, its envelopes and OpenAPI (`create_tactic_app`)
    http_server.py        the same handler under the standard library's http.server (`--server stdlib`)
    door.py, workers.py   what every server checks before a request gets in (size, timeouts,
                          connections, Host, Origin), and the worker pool tactics run on
    endpoints.py, streaming.py   a tactic's `@endpoint` routes, the /stream body
    openai/               the OpenAI-compatible model server (`lllm serve-model`)
    mcp_tools.py, toolcalls.py, schema_check.py   tools for MCP clients, tool calls in ReAct text, schemas
    tactic_card.py        a tactic's public card for a package hub (PsiHub), secrets left out

`client.py` and `fastapi.py` are lllm-core's import paths, kept as thin aliases. `from
lllm.services import create_tactic_app` works as in lllm-core; the names load on first use
(lllm/lazy.py), so importing one module never imports the others.
"""

from lllm.lazy import exported_names, lazy_exports

_EXPORTS = {
    "lllm.services.protocol_service": ["ProtocolService", "create_protocol_app"],
    "lllm.runtimes.native.composition.remote": ["RemoteTactic", "RemoteTacticError"],
    "lllm.services.tactic_app": ["create_fastapi_app", "create_service_app", "create_tactic_app"],
    "lllm.services.endpoints": ["EndpointSpec", "custom_endpoints", "endpoint"],
}
__all__ = exported_names(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)     # lllm/lazy.py
