"""Layer 4 · a tactic's public card: `tactic_resource(tactic)` is what a package hub (PsiHub) shows, as plain JSON data, secrets left out.

Read `lllm/protocol/tactic.py` (what a tactic's `info()` says) and `lllm/services/endpoints.py`
(its `@endpoint` routes) first. PsiHub is the package hub of lllm-core's world: it owns the package
file (`psi.toml`), package checks, storage and the cards it renders. LLLM's part is small: hand it
what a tactic says about itself, safe to publish. Nothing here talks to a network.

Contract: `tactic_resource(tactic) -> dict` with the keys of `info()` (name, description,
runtime_kind, capabilities, input_schema, output_schema, package_ref, service_ref, examples,
metadata) plus `endpoints`, the tactic's custom routes sorted by path then method. The card is

- a copy: mappings become new dicts, lists stay lists and tuples tuples, so editing the card never
  edits the tactic or its cached `info()`;
- public: keys that look like raw secrets (`api_key`, `accessToken`, `set-cookie`, `password`, ...)
  are dropped from the examples and the metadata at every depth, while `*_ref` keys, which only
  name a secret kept elsewhere, stay;
- checked: a malformed `package_ref` (not `psi://org/package/tactics/name`) or `service_ref` (not
  `psi://org/package/services/name` or a plain http(s) URL), or a map key that is not a string, is a
  ValueError naming the field.

`info()` is read by attribute, so a TacticInfo or any object with those fields will do.

Usage:

    >>> from lllm.runtimes.function_tactic import as_tactic
    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> card = tactic_resource(as_tactic(shout, package_ref="psi://demo/text/tactics/shout",
    ...                                  metadata={"api_key": "sk-raw", "api_key_ref": "vault/openai"}))
    >>> card["name"], card["input_schema"], card["package_ref"], card["metadata"], card["endpoints"]
    ('shout', {'type': 'string'}, 'psi://demo/text/tactics/shout', {'api_key_ref': 'vault/openai'}, [])
    >>> tactic_resource(as_tactic(shout, service_ref="http://user:pw@host"))
    Traceback (most recent call last):
    ...
    ValueError: service_ref must be psi://org/package/services/name or an http(s) URL without credentials, query or odd path segments, got 'http://user:pw@host'
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from lllm.protocol.validation import check_service_ref, check_tactic_ref, is_secret_key
from lllm.services.endpoints import custom_endpoints

__all__ = ["tactic_resource", "endpoint_resources", "public_copy"]

# What a card says, read from `info()` in this order.
INFO_FIELDS = ("name", "description", "runtime_kind", "capabilities", "input_schema", "output_schema",
               "package_ref", "service_ref", "examples", "metadata")


# ---- copies that share nothing with the tactic -----------------------------------------------------

def public_copy(value, where: str, drop_secrets: bool):
    """A deep copy of `value`: every mapping a new dict (secret-looking keys dropped if asked),
    lists and tuples kept as such; a mapping key that is not a string is a ValueError."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where} keys must be strings, got {key!r}")
            if not (drop_secrets and is_secret_key(key)):
                out[key] = public_copy(item, f"{where}.{key}", drop_secrets)
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(public_copy(item, where, drop_secrets) for item in value)
    return copy.deepcopy(value)


# ---- the card ----------------------------------------------------------------------------------------

def endpoint_resources(tactic) -> list[dict]:
    """The tactic's `@endpoint` routes as plain dicts, sorted by path, then method."""
    specs = sorted((spec for spec, _method in custom_endpoints(tactic)), key=lambda s: (s.path, s.method))
    return [{"name": s.name, "method": s.method, "path": s.path, "mode": s.mode,
             "description": s.description, "tags": list(s.tags)} for s in specs]


def tactic_resource(tactic) -> dict:
    """What PsiHub may show about `tactic`: its info(), copied, secrets removed, refs checked."""
    info = tactic.info()
    missing = [field for field in INFO_FIELDS if not hasattr(info, field)]
    if missing:
        raise ValueError(f"{type(tactic).__name__}.info() has no {', '.join(missing)}")
    card = {field: getattr(info, field) for field in INFO_FIELDS}
    if card["package_ref"] is not None:
        check_tactic_ref(card["package_ref"], "package_ref")
    if card["service_ref"] is not None:
        check_service_ref(card["service_ref"], "service_ref")
    card["capabilities"] = list(card["capabilities"] or ())
    for field in ("input_schema", "output_schema"):
        card[field] = public_copy(card[field], field, drop_secrets=False)
    for field in ("examples", "metadata"):
        card[field] = public_copy(card[field], field, drop_secrets=True)
    card["endpoints"] = endpoint_resources(tactic)
    return card
