"""Layer 4 · the service API: tactics over HTTP, at lllm-core's import path `from lllm.services import create_tactic_app`.

`create_tactic_app(tactic)` and `create_service_app([tactics])` build the FastAPI app that `lllm
serve` runs (`fastapi.py`; the `serve` extra); every route of it is the one handler
`ProtocolService.handle` in `lllm/services/protocol_service.py`. This folder holds what
that handler uses: `endpoints.py` (a tactic's `@endpoint` routes), `streaming.py` (the /stream body),
`fastapi.py` (the request and response models, the app and its OpenAPI description) and `door.py`
(what every server checks before a request gets in: size, timeouts, connections, Host, Origin);
`psihub.py`, the card a package hub (PsiHub) shows for a tactic (`lllm.integrations.tactic_resource`); and
`client.py`, lllm-core's import path for the client (`RemoteTactic`, in
`lllm/runtimes/native/composition/remote.py`). The names
load on first use (PEP 562), so importing one of the modules never imports the others.
"""

__all__ = ["EndpointSpec", "ProtocolService", "RemoteTactic", "RemoteTacticError", "create_fastapi_app", "create_protocol_app",
           "create_service_app", "create_tactic_app", "custom_endpoints", "endpoint"]

WHERE = {"ProtocolService": "lllm.services.protocol_service",
         "create_protocol_app": "lllm.services.protocol_service",
         "RemoteTactic": "lllm.runtimes.native.composition.remote",
         "RemoteTacticError": "lllm.runtimes.native.composition.remote",
         "create_fastapi_app": "lllm.services.fastapi", "create_service_app": "lllm.services.fastapi",
         "create_tactic_app": "lllm.services.fastapi",
         "EndpointSpec": "lllm.services.endpoints", "custom_endpoints": "lllm.services.endpoints",
         "endpoint": "lllm.services.endpoints"}


def __getattr__(name: str):
    if name not in WHERE:
        raise AttributeError(f"module 'lllm.services' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(WHERE[name]), name)
