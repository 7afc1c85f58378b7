"""Layer 3 · schemas: Python types as JSON schemas, and JSON-like values checked against them.

Read `tools.py` and `tactic.py` next: a tool's parameters, a tactic's input and output and a
prompt's structured `format` all use these two functions, so there is one mapping from types to
schemas in the whole runtime.

Contract: `json_schema(type) -> dict` and `coerce(value, type, where) -> value of that type`.
Dataclasses are always supported; Pydantic models are supported when Pydantic is installed
(recognised by their `model_json_schema` / `model_validate` methods, never imported here).
A value that does not fit raises `TypeError` naming `where` (a field, an argument, a tactic).

Usage:

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Brief:
    ...     topic: str
    ...     words: int = 100
    >>> json_schema(Brief)["required"]
    ['topic']
    >>> coerce({"topic": "dialogs"}, Brief, "task")
    Brief(topic='dialogs', words=100)
    >>> coerce({"topic": "dialogs", "words": "many"}, Brief, "task")
    Traceback (most recent call last):
    ...
    TypeError: task.words: expected integer, got str 'many'
"""

from __future__ import annotations

import dataclasses
import types
import typing

__all__ = ["json_schema", "coerce", "is_pydantic_model", "to_jsonable"]

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "array"}


def is_pydantic_model(tp) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate")


# ---- types -> JSON schema ----------------------------------------------------------------------------

def json_schema(tp) -> dict:
    """The JSON schema of a type hint: builtins, list[X], dict, Optional/Union, Literal, dataclasses, Pydantic."""
    if tp is None or tp is type(None):
        return {"type": "null"}
    if tp is typing.Any:
        return {}
    if is_pydantic_model(tp):
        return tp.model_json_schema()
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp)
        fields = dataclasses.fields(tp)
        required = [f.name for f in fields
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        return {"title": tp.__name__, "type": "object",
                "properties": {f.name: json_schema(hints[f.name]) for f in fields}, "required": required}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        options = [json_schema(a) for a in args]
        return options[0] if len(options) == 1 else {"anyOf": options}
    if origin in (list, tuple, set, frozenset):
        return {"type": "array", "items": json_schema(args[0])} if args else {"type": "array"}
    if origin is dict:
        return {"type": "object"}
    if tp in _SIMPLE:
        return {"type": _SIMPLE[tp]}
    raise TypeError(f"cannot describe type {tp!r} as a JSON schema (use str, int, float, bool, list, dict, "
                    f"a dataclass or a Pydantic model)")


# ---- JSON-like values -> typed values ------------------------------------------------------------------

def coerce(value, tp, where: str):
    """`value` checked against (and, for dataclasses / Pydantic models, built into) the type `tp`."""
    if tp is typing.Any or tp is None and value is None:
        return value
    if is_pydantic_model(tp):
        try:
            return value if isinstance(value, tp) else tp.model_validate(value)
        except Exception as exc:  # pydantic.ValidationError; pydantic is never imported here
            raise TypeError(f"{where}: {exc}") from None
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _coerce_dataclass(value, tp, where)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        if value not in args:
            raise TypeError(f"{where}: expected one of {list(args)}, got {value!r}")
        return value
    if origin in (typing.Union, types.UnionType):
        for option in args:
            try:
                return coerce(value, option, where)
            except TypeError:
                continue
        raise TypeError(f"{where}: {value!r} matches none of {[getattr(a, '__name__', a) for a in args]}")
    if origin in (list, tuple, set, frozenset):
        if not isinstance(value, (list, tuple)):
            raise _mismatch(where, "array", value)
        items = [coerce(v, args[0], f"{where}[{i}]") for i, v in enumerate(value)] if args else list(value)
        return origin(items)
    if origin is dict:
        tp = dict
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if tp in _SIMPLE:
        if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
            raise _mismatch(where, _SIMPLE[tp], value)
        return value
    return value


def _coerce_dataclass(value, tp, where):
    if isinstance(value, tp):
        return value
    if not isinstance(value, dict):
        raise _mismatch(where, f"an object for {tp.__name__}", value)
    hints = typing.get_type_hints(tp)
    names = {f.name for f in dataclasses.fields(tp)}
    unknown = sorted(set(value) - names)
    if unknown:
        raise TypeError(f"{where}: unknown field(s) {unknown} for {tp.__name__} (fields: {sorted(names)})")
    for f in dataclasses.fields(tp):
        if f.name not in value and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TypeError(f"{where}.{f.name}: required field missing for {tp.__name__}")
    return tp(**{k: coerce(v, hints[k], f"{where}.{k}") for k, v in value.items()})


def _mismatch(where, expected, value):
    return TypeError(f"{where}: expected {expected}, got {type(value).__name__} {value!r}")


# ---- typed values -> JSON-like values ------------------------------------------------------------------

def to_jsonable(value):
    """Dataclasses and Pydantic models become dicts; containers are converted item by item."""
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value
