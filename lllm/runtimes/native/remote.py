"""Layer 3 · RemoteTactic: a tactic served elsewhere, called over HTTP as if it were local.

Read `protocol_service.py` first: this is its client. `RemoteTactic(url, input_type=..., output_type=...)`
is a protocol Tactic whose `run(value, context=...)` validates `value` here, POSTs
`{"input": value, "context": context}` to `url` and validates the reply's `output` here too, so a
wrong answer from the server is a SchemaError on the caller's side.

httpx is imported when the first call is made (it is not a dependency of `import lllm`); pass
`transport=httpx.MockTransport(handler)` to test a client without a server. A reply that is not
200 raises `TacticServiceError` with the server's error type and message.

A generated project's client.py does the same against `lllm serve`; here the service answers
without a socket.

Usage:

    >>> import httpx
    >>> from lllm.runtimes.native.protocol_service import ProtocolService
    >>> from lllm.runtimes.python import as_tactic
    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> service = ProtocolService(as_tactic(shout))
    >>> def answer(request):
    ...     status, data = service.handle(request.method, request.url.path, request.content)
    ...     return httpx.Response(status, json=data)
    >>> remote = RemoteTactic("http://test/run", input_type=str, output_type=str,
    ...                       transport=httpx.MockTransport(answer))
    >>> remote.run("hello")
    'HELLO'
"""

from __future__ import annotations

from lllm.protocol.errors import TacticServiceError
from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.schemas import to_jsonable

__all__ = ["RemoteTactic"]


class RemoteTactic(Tactic):
    runtime_kind = "remote"

    def __init__(self, url: str, *, input_type=None, output_type=None, transport=None, timeout: float = 30.0,
                 **protocol):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"RemoteTactic needs an http:// or https:// URL, got {url!r}")
        protocol.setdefault("name", "remote")
        super().__init__(**protocol)
        self.url, self.transport, self.timeout = url, transport, timeout
        self.input_type, self.output_type = input_type, output_type

    def _run(self, input_value, *, context=None):
        try:
            import httpx
        except ImportError:
            raise TacticServiceError("RemoteTactic needs httpx: pip install httpx") from None
        body = {"input": to_jsonable(input_value)}
        if context is not None:
            body["context"] = context.model_dump(mode="json", exclude_none=True)
        with httpx.Client(transport=self.transport, timeout=self.timeout) as client:
            try:
                response = client.post(self.url, json=body)
            except httpx.HTTPError as exc:
                raise TacticServiceError(f"{self.url}: {type(exc).__name__}: {exc}") from None
        return self.output_of(response)

    def output_of(self, response):
        try:
            data = response.json()
        except ValueError:
            raise TacticServiceError(f"{self.url} answered {response.status_code} with a body that is not JSON") from None
        if response.status_code != 200:
            detail = data.get("detail", {}) if isinstance(data, dict) else {}
            problem = detail.get("error", {}) if isinstance(detail, dict) else {}
            raise TacticServiceError(f"{self.url} answered {response.status_code}: "
                                     f"{problem.get('type', 'error')}: {problem.get('message', data)}")
        if not isinstance(data, dict) or "output" not in data:
            raise TacticServiceError(f"{self.url} answered without an 'output' field: {data!r}")
        return data["output"]
