"""Layer 3 · names for tactics: a `psi://org/package/tactics/name` reference and a checked service URL.

Read `lllm/protocol/validation.py` first (the token rules). A reference is an identity, not a
location: `TacticRef` only parses and checks one; `resolver.py` decides what it points at (an
object in this process, or a service URL). `service_endpoints(url)` checks a service URL and
gives its three routes, so every caller that talks HTTP agrees on them.

A bad reference or URL raises an error whose message names the input and the rule it broke.

Usage:

    >>> ref = TacticRef("psi://demo/math/tactics/add")
    >>> (ref.org, ref.package, ref.resource_kind, ref.name)
    ('demo', 'math', 'tactics', 'add')
    >>> service_endpoints("http://127.0.0.1:8000/tactics/add")
    ('http://127.0.0.1:8000/tactics/add/run', 'http://127.0.0.1:8000/tactics/add/stream', \
'http://127.0.0.1:8000/tactics/add/info')
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from lllm.protocol.errors import TacticRefError

__all__ = ["TacticRef", "RESOURCE_KINDS", "parse_resource_ref", "service_endpoints", "tactic_name_in_url"]

# The resource sections a shared `.psi/config.toml` may hold; only `tactics` is ours to resolve.
RESOURCE_KINDS = ("tactics", "schemas", "services", "channels", "snapshots", "runs", "configs", "docs",
                  "examples", "assets")
SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")     # not '.', '..', '%', ';', ':', '\\' or whitespace
ROUTES = ("run", "stream", "info")


# ---- psi:// references ---------------------------------------------------------------------------

# --8<-- [start:parse]
def parse_resource_ref(value, kinds=RESOURCE_KINDS) -> tuple[str, str, str, str]:
    """(org, package, kind, name) of `psi://org/package/kind/name`; anything else is a TacticRefError."""
    if not isinstance(value, str) or not value:
        raise TacticRefError(f"a psi:// reference must be a non-empty string, got {value!r}")
    if not value.startswith("psi://"):
        raise TacticRefError(f"{value!r} is not a reference: it must look like psi://org/package/tactics/name")
    parts = value.removeprefix("psi://").split("/")
    if len(parts) != 4:
        raise TacticRefError(f"{value!r} must have four parts, psi://org/package/kind/name, not {len(parts)}")
    for part in parts:
        if not SEGMENT.fullmatch(part):
            raise TacticRefError(f"{value!r}: segment {part!r} must be letters, digits, '.', '_' or '-' "
                                 f"(no whitespace, '%', ';', ':', '?', '#', '\\\\', '.' or '..')")
    if parts[2] not in kinds:
        raise TacticRefError(f"{value!r}: unknown resource kind {parts[2]!r} (expected one of {list(kinds)})")
    return parts[0], parts[1], parts[2], parts[3]
# --8<-- [end:parse]


class TacticRef:
    """A checked `psi://org/package/tactics/name`; equal to another ref with the same text."""

    def __init__(self, value):
        self.org, self.package, self.resource_kind, self.name = parse_resource_ref(value, kinds=("tactics",))
        self.text = value

    @classmethod
    def parse(cls, value) -> "TacticRef":
        return value if isinstance(value, TacticRef) else cls(value)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"TacticRef({self.text!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, TacticRef) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


# ---- service URLs -----------------------------------------------------------------------------------

def check_service_url(url) -> str:
    """`url` itself when it is a plain absolute http(s) URL; a ValueError naming the broken rule if not."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"a service url must be a non-empty string, got {url!r}")
    if url != url.strip():
        raise ValueError(f"service url {url!r} must not have leading or trailing whitespace")
    if any(ch.isspace() for ch in url):
        raise ValueError(f"service url {url!r} must not contain whitespace")
    if "\\" in url:
        raise ValueError(f"service url {url!r} must not contain backslashes")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"service url {url!r} must be an absolute http:// or https:// URL")
    if "@" in parts.netloc:
        raise ValueError(f"service url {url!r} must not carry embedded credentials (user@host)")
    if ";" in url or "?" in url or "#" in url:
        raise ValueError(f"service url {url!r} must not have params (';'), a query or fragment")
    if "%" in url:
        raise ValueError(f"service url {url!r} must not contain percent escapes")
    path = parts.path.removesuffix("/")
    segments = path.split("/")[1:] if path else []
    if "" in segments:
        raise ValueError(f"service url {url!r} must not have empty segments ('//') in its path")
    if any(s in (".", "..") for s in segments):
        raise ValueError(f"service url {url!r} must not have dot segments ('.', '..') in its path")
    if ":" in path:
        raise ValueError(f"service url {url!r} must not have colons in its path")
    return url


def service_endpoints(url) -> tuple[str, str, str]:
    """(run, stream, info) URLs of a service: a base URL, or one already ending in a route."""
    base = check_service_url(url).removesuffix("/")
    head, _, last = base.rpartition("/")
    if last in ROUTES and urlsplit(base).path:        # a route segment, not a host called "run"
        base = head
    return f"{base}/run", f"{base}/stream", f"{base}/info"


def tactic_name_in_url(url: str) -> str | None:
    """NAME when the service URL is .../tactics/NAME[/route] (a multi-tactic service), else None."""
    run_url = service_endpoints(url)[0]
    segments = urlsplit(run_url).path.split("/")
    return segments[-2] if len(segments) >= 3 and segments[-3] == "tactics" else None
