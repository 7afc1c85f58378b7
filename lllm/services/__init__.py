"""Layer 4 · lllm-core's import paths for serving and calling tactics: `from lllm.services import create_tactic_app`.

The code lives in the native runtime's folders: the ASGI protocol service in
`lllm/runtimes/native/protocol_service.py`, its client in `composition/remote.py`. This root
package only keeps lllm-core's names for them (and `lllm.services.client`, the client's).
"""

from lllm.runtimes.native.composition.remote import RemoteTactic, RemoteTacticError
from lllm.runtimes.native.protocol_service import ProtocolService, create_protocol_app

# lllm-core calls the one-or-more-tactics app factory by both names.
create_tactic_app = create_service_app = create_protocol_app

__all__ = ["ProtocolService", "RemoteTactic", "RemoteTacticError", "create_service_app", "create_tactic_app"]
