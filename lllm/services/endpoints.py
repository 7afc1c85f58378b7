"""Layer 4 · custom endpoints: a tactic method marked `@endpoint.post("/act")` becomes a route of its service.

Read `lllm/services/protocol_service.py` first: its `handle` is the one place a request is
routed, and it asks this module which custom routes a tactic declares.

Contract: `@endpoint.get/post/put/patch/delete(path, name=None, mode="run", description="", tags=())`
records an `EndpointSpec` on the method (it registers nothing). `custom_endpoints(tactic)` finds the
marked methods of the tactic's class — reading class dictionaries only, so no property runs and no
`__dir__` is called — and returns `(spec, bound method)` pairs, refusing two with one name or one
route. A path is `/`-separated segments of letters, digits, `.`, `_`, `-` or a `{name}` template; a
relative path gets its leading `/`. Anything else (queries, `%`, `:`, `;`, `..`, URLs) is a
ValueError naming the bad value. `route_key` makes `/items/{id}` and `/items/{name}` one route.

Usage:

    >>> class Demo:
    ...     @endpoint.post("act", tags=("demo",))
    ...     async def act(self, input_value, *, context=None):
    ...         return {"acted": input_value}
    >>> [(spec.method, spec.path, spec.name) for spec, _ in custom_endpoints(Demo())]
    [('POST', '/act', 'act')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lllm.protocol.validation import check_token

__all__ = ["EndpointSpec", "endpoint", "custom_endpoints", "route_key", "match_route", "RESERVED_ROUTES"]

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
MODES = ("run", "stream")
SEGMENT = r"[A-Za-z0-9_-][A-Za-z0-9._~-]*|\{[A-Za-z_][A-Za-z0-9_]*\}"
MARK = "__lllm_endpoint__"
# The service's own routes: a custom endpoint may not take them, whatever its method.
RESERVED_ROUTES = ("/health", "/tactics", "/info", "/run", "/stream", "/tactics/{name}/info",
                   "/tactics/{name}/run", "/tactics/{name}/stream")


def token(value, field: str) -> str:
    """A name or tag: a token (letters, digits, '.', '_', '-'); anything else is a ValueError."""
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string, got {type(value).__name__}")
    return check_token(value, field)


# ---- one endpoint's description -------------------------------------------------------------------------

@dataclass(frozen=True)
class EndpointSpec:
    method: str
    path: str
    name: str
    mode: str = "run"
    description: str = ""
    tags: tuple[str, ...] = ()

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"endpoint method must be one of {', '.join(METHODS)}, got {self.method!r}")
        object.__setattr__(self, "path", check_path(self.path))
        token(self.name, "endpoint name")
        if self.mode not in MODES:
            raise ValueError(f"endpoint mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not isinstance(self.description, str):
            raise ValueError(f"endpoint description must be a string, got {type(self.description).__name__}")
        if isinstance(self.tags, (str, bytes)) or not isinstance(self.tags, (tuple, list)):
            raise ValueError(f"endpoint tags must be a tuple of tokens, got {self.tags!r}")
        object.__setattr__(self, "tags", tuple(token(tag, "endpoint tag") for tag in self.tags))


def check_path(path) -> str:
    """`act` -> `/act`; `/items/{id}` stays; anything that is not plain segments is a ValueError."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"endpoint path must be a non-empty string like '/act', got {path!r}")
    path = path if path.startswith("/") else "/" + path
    segments = path[1:].split("/")
    if not all(re.fullmatch(SEGMENT, s) and s not in (".", "..") for s in segments):
        raise ValueError(f"endpoint path must be '/'-separated segments of letters, digits, '.', '_', '-' "
                         f"or {{name}} templates (no query, '%', ':', ';', '..' or host), got {path!r}")
    return path


def route_key(path: str) -> tuple[str, ...]:
    """The route's shape: every `{template}` segment is the same wildcard."""
    return tuple("{}" if s.startswith("{") else s for s in path.strip("/").split("/"))


def match_route(template: str, path: str) -> dict | None:
    """The template's `{name}` values when `path` fits it, else None."""
    want, got = template.strip("/").split("/"), path.strip("/").split("/")
    if len(want) != len(got):
        return None
    found = {}
    for w, g in zip(want, got):
        if w.startswith("{"):
            found[w[1:-1]] = g
        elif w != g:
            return None
    return found


# ---- the decorator ----------------------------------------------------------------------------------------

class EndpointDecorators:
    """`endpoint.post("/act")` and its siblings: each returns a decorator that marks a method."""

    @staticmethod
    def route(method: str, path, *, name=None, mode: str = "run", description: str = "", tags=()):
        if name is not None:
            token(name, "endpoint name")
        check_path(path)
        EndpointSpec(method, path, name or "endpoint", mode, description, tags)   # fail now, not at serve time

        def mark(function):
            spec = EndpointSpec(method, path, name or function.__name__, mode, description, tags)
            setattr(function, MARK, spec)
            return function
        return mark

    def get(self, path, **options):
        return self.route("GET", path, **options)

    def post(self, path, **options):
        return self.route("POST", path, **options)

    def put(self, path, **options):
        return self.route("PUT", path, **options)

    def patch(self, path, **options):
        return self.route("PATCH", path, **options)

    def delete(self, path, **options):
        return self.route("DELETE", path, **options)


endpoint = EndpointDecorators()


# ---- finding a tactic's endpoints ------------------------------------------------------------------------

def custom_endpoints(tactic) -> list[tuple[EndpointSpec, object]]:
    """The marked methods of `tactic`'s class (subclass first), each once, bound to `tactic`."""
    found, seen_attrs, names, routes = [], set(), {}, {}
    for cls in type(tactic).__mro__:
        for attr, value in vars(cls).items():
            spec = getattr(value, MARK, None) if callable(value) else None
            if spec is None or attr in seen_attrs:
                continue
            seen_attrs.add(attr)
            if spec.name in names:
                raise ValueError(f"Duplicate endpoint name {spec.name!r} on {type(tactic).__name__}")
            key = (spec.method, route_key(spec.path))
            if key in routes:
                raise ValueError(f"Duplicate custom endpoint route {spec.method} {spec.path} "
                                 f"({routes[key]} and {spec.name}) on {type(tactic).__name__}")
            names[spec.name], routes[key] = attr, spec.name
            found.append((spec, value.__get__(tactic, type(tactic))))
    return found
