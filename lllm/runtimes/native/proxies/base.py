"""Layer 3 · proxies: an API surface as a programming environment — read docs, write Python that calls it.

Read `tools.py` first. When an agent needs many endpoints, one tool per endpoint does not scale;
a proxy gives it two tools instead: `query_api_doc(proxy)` describes the endpoints, and
`run_python(code)` runs Python in which `CALL_API("proxy/endpoint", {...})` calls one. Variables
persist between run_python calls of one manager (one agent call).

Contract: subclass `BaseProxy`, describe it with `@ProxyRegistrator(path, name, description)`
(attributes only — nothing is registered anywhere), and mark methods with
`@BaseProxy.endpoint(category, endpoint, description, params, response)`. A parameter named
`"city*"` is required. The method shapes the parameters; `fetch(endpoint, params)` sends them
(HTTP GET `<base_url>/<endpoint>?...&<api_key_name>=<api_key>` by default; override it to serve
local data). `ProxyManager(proxies).tools()` returns the two Functions.

run_python runs in a sandbox (`sandbox/`): in CPython a child process inside bubblewrap (its own
namespaces, no network, no files but the interpreter's and a scratch tmpfs, uid 65534, a syscall
filter as strict as Docker's default, and Landlock where the kernel has it) that the
kernel also limits (memory, CPU seconds per call, no new processes), with a wall clock; in Pyodide
this interpreter under the same budget, inside the page's worker. Everywhere: at most
`max_code_chars` characters of code, `max_steps` traced line events, `max_output_chars` characters
of output, and imports from `allowed_imports` only (`RUN_PYTHON_BUDGET`): conveniences that give
the model clear early errors; bubblewrap is the boundary. Every limit ends the call with an error
the model reads as text, and every answer's `metadata["boundary"]` names what confined it. Without
a working bubblewrap, run_python raises `SandboxUnavailable` unless the manager was built with
`boundary="unconfined"`. `manager.close()` ends the child process (a finished agent call may drop
the manager instead).

Usage:

    >>> from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
    >>> manager = ProxyManager([WeatherProxy])
    >>> manager.run_python('t = CALL_API("weather/current", {"city": "Oslo"})["temp"]\\nprint(t)')
    '4.5'
    >>> answer = manager.run_python("print(t + 1)")
    >>> answer, answer.metadata["boundary"]
    ('5.5', 'bubblewrap+seccomp...')
"""

from __future__ import annotations

import json

from lllm.runtimes.native.sandbox import BUDGET, make_interpreter
from lllm.runtimes.native.core.tools import Function

__all__ = ["BaseProxy", "ProxyRegistrator", "ProxyManager", "RUN_PYTHON_BUDGET"]

RUN_PYTHON_BUDGET = BUDGET


# ---- declaring a proxy ---------------------------------------------------------------------------------

class BaseProxy:
    path = ""                # how CALL_API names it: "weather/current" is endpoint "current" of "weather"
    name = ""
    description = ""
    base_url = ""
    api_key_name = ""
    api_key = None

    @staticmethod
    def endpoint(category: str, endpoint: str, description: str, params: dict | None = None, response=None):
        def mark(method):
            method.__lllm_endpoint__ = {"category": category, "endpoint": endpoint, "description": description,
                                        "params": dict(params or {}), "response": response}
            return method
        return mark

    @classmethod
    def endpoints(cls) -> dict:
        found = {}
        for attr in dir(cls):
            spec = getattr(getattr(cls, attr), "__lllm_endpoint__", None)
            if spec:
                found[spec["endpoint"]] = {**spec, "method": attr}
        return found

    @classmethod
    def api_doc(cls) -> str:
        lines = [f"{cls.path}: {cls.name}. {cls.description}".strip()]
        for name, spec in cls.endpoints().items():
            params = ", ".join(f"{p.rstrip('*')}{' (required)' if p.endswith('*') else ''}: "
                               f"{getattr(t, '__name__', t)} e.g. {ex!r}" for p, (t, ex) in spec["params"].items())
            lines.append(f'- CALL_API("{cls.path}/{name}", {{{params}}}) [{spec["category"]}] {spec["description"]}'
                         f" -> e.g. {json.dumps(spec['response'])}")
        return "\n".join(lines)

    def call(self, endpoint: str, params: dict):
        spec = self.endpoints().get(endpoint)
        if spec is None:
            raise KeyError(f"{self.path} has no endpoint {endpoint!r} (endpoints: {sorted(self.endpoints())})")
        for name, (tp, _example) in spec["params"].items():
            key = name.rstrip("*")
            if name.endswith("*") and key not in params:
                raise ValueError(f"{self.path}/{endpoint} needs parameter {key!r}")
            if key in params and not isinstance(params[key], tp):
                raise TypeError(f"{self.path}/{endpoint}: {key!r} must be {tp.__name__}, got {params[key]!r}")
        return self.fetch(endpoint, getattr(self, spec["method"])(dict(params)))

    def fetch(self, endpoint: str, params: dict):
        from urllib.parse import urlencode
        from urllib.request import urlopen
        query = dict(params, **({self.api_key_name: self.api_key} if self.api_key_name and self.api_key else {}))
        with urlopen(f"{self.base_url.rstrip('/')}/{endpoint}?{urlencode(query)}", timeout=30) as reply:
            return json.loads(reply.read().decode("utf-8"))


def ProxyRegistrator(path: str, name: str = "", description: str = ""):
    """Class decorator that sets a proxy's path, name and description (it registers nothing)."""
    def describe(cls):
        cls.path, cls.name, cls.description = path, name or cls.__name__, description
        return cls
    return describe


# ---- the manager and its two tools ---------------------------------------------------------------------

class ProxyManager:
    def __init__(self, proxies, budget: dict | None = None, sandbox: str | None = None,
                 boundary: str | None = None, bwrap: str | None = None):
        instances = [p() if isinstance(p, type) else p for p in proxies]
        self.proxies = {p.path: p for p in instances}
        unknown = set(budget or {}) - set(RUN_PYTHON_BUDGET)
        if unknown:
            raise ValueError(f"unknown run_python budget keys {sorted(unknown)} (known: {sorted(RUN_PYTHON_BUDGET)})")
        self.budget = {**RUN_PYTHON_BUDGET, **(budget or {})}
        self.interpreter = make_interpreter(self.call_api, self.budget, sandbox, boundary, bwrap)

    def call_api(self, api_path: str, params: dict | None = None):
        proxy_path, _, endpoint = api_path.rpartition("/")
        if proxy_path not in self.proxies:
            raise KeyError(f"no proxy {proxy_path!r} (proxies: {sorted(self.proxies)})")
        return self.proxies[proxy_path].call(endpoint, params or {})

    def query_api_doc(self, proxy: str = "") -> str:
        if proxy and proxy not in self.proxies:
            return f"Error: no proxy {proxy!r} (proxies: {sorted(self.proxies)})"
        return "\n\n".join(p.api_doc() for path, p in self.proxies.items() if not proxy or path == proxy)

    # --8<-- [start:run_python]
    def run_python(self, code: str) -> str:
        """Run `code` in the sandbox with CALL_API in scope; what it printed, or the error, as text (an `Answer`)."""
        return self.interpreter.run(code)

    def close(self) -> None:
        self.interpreter.close()
    # --8<-- [end:run_python]

    def tools(self) -> list[Function]:
        paths = ", ".join(sorted(self.proxies))
        return [Function("query_api_doc", f"Describe the endpoints of a proxy ({paths}).",
                         {"proxy": {"type": "string", "description": "a proxy path; empty for all"}}, [],
                         function=self.query_api_doc),
                Function("run_python", 'Run Python; call endpoints with CALL_API("proxy/endpoint", {...}); print results.',
                         {"code": {"type": "string"}}, ["code"], function=self.run_python)]
