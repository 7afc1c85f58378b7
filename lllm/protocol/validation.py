"""Layer 3 · boundary checks: what may cross a tactic's boundary, as plain data with checked names.

Read this first in `lllm/protocol/`; `context.py`, `events.py` and `tactic.py` use it.

Every value a caller hands the protocol (metadata, examples, payloads) is copied into plain
dicts and lists with string keys, so later changes to the caller's objects never leak in; every
name or id is a token that cannot smuggle a path, a query or whitespace; `public_boundary_value`
drops secrets before anything is shown outside.

Usage:

    >>> check_token("req-1", "request_id")
    'req-1'
    >>> public_boundary_value({"api_key": "sk-1", "api_key_ref": "vault/openai", "x": 1})
    {'api_key_ref': 'vault/openai', 'x': 1}
    >>> plain_data({"a": (1, 2)}, "metadata")
    {'a': [1, 2]}
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping

__all__ = ["plain_data", "plain_mapping", "public_boundary_value", "check_token", "check_name",
           "check_tactic_ref", "check_service_ref"]


# ---- plain data ------------------------------------------------------------------------------------

def plain_data(value, where: str):
    """A deep copy of `value` with every mapping a dict of string keys and every sequence a list."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where} keys must be strings, got {key!r}")
            out[key] = plain_data(item, where)
        return out
    if isinstance(value, (list, tuple)):
        return [plain_data(item, where) for item in value]
    return copy.deepcopy(value)


def plain_mapping(value, where: str) -> dict:
    """`plain_data` for a value that must be a mapping (None gives {})."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a mapping, got {type(value).__name__}")
    return plain_data(value, where)


def examples_list(value, where: str = "examples") -> list[dict]:
    """Examples are a list of mappings with string keys; anything else is a TypeError."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"{where} must be a list of mappings, got {type(value).__name__}")
    for item in value:
        if not isinstance(item, Mapping):
            raise TypeError(f"{where} must contain mappings, got {type(item).__name__}")
    try:
        return [plain_data(item, where) for item in value]
    except ValueError as exc:
        raise TypeError(str(exc)) from None


# ---- secrets never leave ---------------------------------------------------------------------------

SECRET_WORDS = ("apikey", "secret", "token", "cookie", "authorization", "password", "credential")


def is_secret_key(key: str) -> bool:
    """`api_key`, `apiKey`, `set-cookie`, `accessToken` are secrets; `api_key_ref` names one, so it stays."""
    flat = key.lower().replace("_", "").replace("-", "")
    return not flat.endswith("ref") and any(word in flat for word in SECRET_WORDS)


def public_boundary_value(value):
    """`value` with secret keys (and keys that are not strings) removed, at every depth."""
    if isinstance(value, Mapping):
        return {key: public_boundary_value(item) for key, item in value.items()
                if isinstance(key, str) and not is_secret_key(key)}
    if isinstance(value, (list, tuple)):
        return [public_boundary_value(item) for item in value]
    return value


# ---- names, ids and refs -----------------------------------------------------------------------------

SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9._-]*"      # no whitespace, separators, '%', ';' or a bare '.'/'..'
PSI_REF = rf"psi://{SEGMENT}/{SEGMENT}/(tactics|services)/{SEGMENT}"
HTTP_REF = rf"https?://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{{1,5}})?(/{SEGMENT})*/?"
NAME_FORBIDDEN = set("/\\:%;")


def _text(value, field: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{field} must be a string, got {type(value).__name__}")
    return value


def check_token(value, field: str) -> str:
    """An id or kind: letters, digits, '.', '_' and '-', starting with a letter, digit or '_'."""
    if not re.fullmatch(SEGMENT, _text(value, field)):
        raise ValueError(f"{field} must be a token of letters, digits, '.', '_' or '-' "
                         f"(no whitespace, paths or ';'), got {value!r}")
    return value


def check_name(value, field: str = "name") -> str:
    """A display name: spaces allowed, but not blank, '.', '..', path separators, '%' or ';'."""
    text = _text(value, field).strip()
    if not text or text in (".", "..") or NAME_FORBIDDEN & set(text) or not text.isprintable():
        raise ValueError(f"{field} must be a non-blank name without '/', '\\\\', ':', '%' or ';', got {value!r}")
    return value


def check_tactic_ref(value, field: str = "tactic_ref") -> str:
    """`psi://<org>/<package>/tactics/<name>`."""
    if not re.fullmatch(PSI_REF, _text(value, field)) or "/tactics/" not in value:
        raise ValueError(f"{field} must look like psi://org/package/tactics/name, got {value!r}")
    return value


def check_service_ref(value, field: str = "service_ref") -> str:
    """`psi://<org>/<package>/services/<name>` or a plain http(s) URL without credentials or query."""
    text = _text(value, field)
    psi = re.fullmatch(PSI_REF, text) and "/services/" in text
    if not (psi or re.fullmatch(HTTP_REF, text)):
        raise ValueError(f"{field} must be psi://org/package/services/name or an http(s) URL "
                         f"without credentials, query or odd path segments, got {value!r}")
    return value
