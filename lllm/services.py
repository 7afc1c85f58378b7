"""lllm-core's import path for the service pieces: `from lllm.services import create_tactic_app`.

The code lives in the native runtime's folder: the ASGI protocol service in
`lllm/runtimes/native/protocol_service.py`, its client in `remote.py`. This root module only
keeps lllm-core's names for them.
"""

from lllm.runtimes.native.protocol_service import ProtocolService, create_protocol_app
from lllm.runtimes.native.remote import RemoteTactic

# lllm-core calls the one-or-more-tactics app factory by both names.
create_tactic_app = create_service_app = create_protocol_app

__all__ = ["ProtocolService", "RemoteTactic", "create_service_app", "create_tactic_app"]
