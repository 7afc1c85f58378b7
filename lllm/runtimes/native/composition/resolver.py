"""Layer 3 · TacticResolver: from a `psi://` reference to a tactic you can call, here or on a service.

Read `refs.py` and `remote.py` first. Composition is resolution: a tactic that calls another
names it by reference (`psi://demo/math/tactics/add`) and asks a resolver, so the callee can live
in this process, in another package, or behind a service without the caller changing.

    register(ref, tactic)       the ref is this object (tests, notebooks, one process)
    bind_url(ref, url)          the ref is a RemoteTactic calling that service
    from_config(path)           bind_url for each tactic ref in `.psi/config.toml`
    resolve(ref) -> Tactic;  run / arun / stream / events(ref, value, context=...) call it
    as_function(ref)            the tactic as a tool (a Function) for an agent's prompt

A config file is shared with other layers: refs of other resource kinds (channels, services,
...) are checked and skipped. A tactic ref needs exactly one target, a `url`; its other keys
and its `[refs."...".metadata]` table become the RemoteTactic's metadata (the table wins), and
raw secrets are refused (name them with `*_ref` keys instead). Every refusal is a TacticRefError
that names the ref, the key and the rule.

Usage:

    >>> from lllm.runtimes.function_tactic import as_tactic
    >>> def add(pair: list[int]) -> int:
    ...     return pair[0] + pair[1]
    >>> resolver = TacticResolver()
    >>> resolver.register("psi://demo/math/tactics/add", as_tactic(add))
    >>> resolver.run("psi://demo/math/tactics/add", [2, 3])
    5
    >>> resolver.resolve("psi://demo/math/tactics/mul")
    Traceback (most recent call last):
    ...
    lllm.protocol.errors.TacticRefError: no tactic is bound to 'psi://demo/math/tactics/mul': package demo/math has no tactic 'mul' (its tactics: ['add'])
"""

from __future__ import annotations

import pathlib
import tomllib
from collections.abc import Mapping

from lllm.protocol.validation import is_secret_key, plain_data
from lllm.protocol.errors import TacticRefError
from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.composition.refs import TacticRef, check_service_url, parse_resource_ref
from lllm.runtimes.native.composition.remote import RemoteTactic
from lllm.runtimes.native.tactic import tactic_as_function
from lllm.runtimes.native.core.tools import Function

__all__ = ["TacticResolver", "binding_metadata"]

OTHER_TARGETS = ("store", "path", "object")      # target shapes of other layers, never a tactic's


# ---- metadata a binding may carry ------------------------------------------------------------------

def secret_keys(value, where: str = "") -> list[str]:
    """Dotted paths of every raw-secret-looking key, at any depth."""
    found = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            found += ([path] if isinstance(key, str) and is_secret_key(key) else []) + secret_keys(item, path)
    elif isinstance(value, (list, tuple)):
        for item in value:
            found += secret_keys(item, where)
    return found


def binding_metadata(ref: str, metadata) -> dict:
    """A plain copy of a binding's metadata; not a mapping, non-string keys or a secret is a TacticRefError."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise TacticRefError(f"{ref}: metadata must be a mapping (a TOML table), got {type(metadata).__name__}")
    try:
        metadata = plain_data(metadata, f"{ref} metadata")
    except ValueError as exc:
        raise TacticRefError(str(exc)) from None
    secrets = secret_keys(metadata)
    if secrets:
        raise TacticRefError(f"{ref}: metadata has raw secret key(s) {secrets}; "
                             "name a credential instead (api_key_ref = \"credentials/...\")")
    return metadata


# ---- the resolver -------------------------------------------------------------------------------------

class TacticResolver:
    def __init__(self):
        self.bound: dict[str, Tactic] = {}

    def register(self, ref, tactic: Tactic) -> None:
        """`ref` is this tactic object, in this process."""
        ref = str(TacticRef.parse(ref))
        if not isinstance(tactic, Tactic):
            raise TypeError(f"{ref}: register needs a protocol Tactic (lllm.Tactic), got {type(tactic).__name__}")
        self.bound[ref] = tactic

    def bind_url(self, ref, url: str, *, metadata=None, **remote) -> RemoteTactic:
        """`ref` is the tactic served at `url`; `remote` goes to RemoteTactic (input_type, transport, ...)."""
        ref = str(TacticRef.parse(ref))
        try:
            check_service_url(url)
        except ValueError as exc:
            raise TacticRefError(f"{ref}: {exc}") from None
        data = binding_metadata(ref, metadata)
        data["ref"] = ref                               # the resolver's own fields stay canonical
        tactic = RemoteTactic(url, metadata=data, **remote)
        self.bound[ref] = tactic
        return tactic

    def refs(self) -> tuple[str, ...]:
        return tuple(self.bound)

    def resolve(self, ref) -> Tactic:
        parsed = TacticRef.parse(ref)
        if str(parsed) not in self.bound:
            raise TacticRefError(f"no tactic is bound to {str(parsed)!r}: {self._what_is_bound(parsed)}")
        return self.bound[str(parsed)]

    def _what_is_bound(self, ref: TacticRef) -> str:
        """Why a lookup failed: an unknown package, or a package without that tactic."""
        package = f"{ref.org}/{ref.package}"
        siblings = sorted(TacticRef(r).name for r in self.bound if r.startswith(f"psi://{package}/"))
        if siblings:
            return f"package {package} has no tactic {ref.name!r} (its tactics: {siblings})"
        packages = sorted({"/".join(r.removeprefix("psi://").split("/")[:2]) for r in self.bound})
        return f"no package {package} is bound (packages: {packages})"

    # ---- calling by reference ------------------------------------------------------------------------

    def run(self, ref, input_value, *, context=None, **options):
        return self.resolve(ref).run(input_value, context=context, **options)

    async def arun(self, ref, input_value, *, context=None, **options):
        return await self.resolve(ref).arun(input_value, context=context, **options)

    def stream(self, ref, input_value, *, context=None):
        return self.resolve(ref).stream(input_value, context=context)

    def events(self, ref, input_value, *, context=None):
        return self.resolve(ref).events(input_value, context=context)

    def as_function(self, ref, **options) -> Function:
        """The tactic `ref` names as a tool an agent can call (`tactic_as_function`'s options)."""
        return tactic_as_function(self.resolve(ref), **options)

    # ---- a shared .psi/config.toml ----------------------------------------------------------------

    @classmethod
    def from_config(cls, path=".", **remote) -> "TacticResolver":
        """A resolver with a RemoteTactic for each tactic ref in `path/.psi/config.toml` (or the file `path`)."""
        if not isinstance(path, (str, pathlib.PurePath)) or (isinstance(path, str) and path != path.strip()) \
                or not str(path).strip():
            raise ValueError(f"the config path must be a path without surrounding whitespace, got {path!r}")
        file = pathlib.Path(path)
        file = file / ".psi" / "config.toml" if file.is_dir() else file
        if not file.is_file():
            raise FileNotFoundError(f"no tactic config at {file} (expected a .psi/config.toml)")
        try:
            config = tomllib.loads(file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise TacticRefError(f"{file}: not valid TOML: {exc}") from None
        resolver = cls()
        for ref, entry in (config.get("refs") or {}).items():
            kind = parse_resource_ref(ref)[2]
            if kind == "tactics":
                url, metadata = tactic_binding(ref, entry)
                resolver.bind_url(ref, url, metadata=metadata, **remote)
        return resolver


def tactic_binding(ref: str, entry) -> tuple[str, dict]:
    """(url, metadata) of one `[refs."psi://.../tactics/..."]` table, checked."""
    if not isinstance(entry, Mapping):
        raise TacticRefError(f"{ref}: its config entry must be a table, got {type(entry).__name__}")
    others = [key for key in OTHER_TARGETS if key in entry]
    if "url" not in entry:
        raise TacticRefError(f"{ref}: a tactic ref needs a url target (got {others or list(entry)}); "
                             "store, path and object targets belong to other layers")
    if others:
        raise TacticRefError(f"{ref}: a tactic ref takes only one concrete target, its url; remove {others}")
    url = entry["url"]
    if not isinstance(url, str) or not url.strip():
        raise TacticRefError(f"{ref}: url must be a non-empty string, got {url!r}")
    table = entry.get("metadata", {})
    if not isinstance(table, Mapping):
        raise TacticRefError(f"{ref}: metadata must be a table, got {type(table).__name__}")
    legacy = {key: value for key, value in entry.items() if key not in ("url", "metadata")}
    binding_metadata(ref, legacy)
    binding_metadata(ref, table)
    return url, {**legacy, **table}
