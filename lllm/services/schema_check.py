"""Layer 4 · a small JSON Schema checker: `check_schema(schema)` raises on a schema we cannot use, `problems(value, schema)` lists what is wrong with a value.

Read nothing first: this is stdlib only. A tool's arguments are described by a JSON Schema
(OpenAI's `tools[].function.parameters`, MCP's `inputSchema`), and a server that turns a model's
text into a tool call checks the arguments against it before anyone runs the tool
(`toolcalls.py`). This is the part of JSON Schema that tool schemas use:

    type (one name or a list), properties, required, additionalProperties (true, false or a schema),
    items, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
    maxLength, pattern, minItems, maxItems, anyOf, oneOf, allOf

Other keywords (description, title, default, examples, format, $defs, $ref, ...) are allowed and
not checked, as a validator that does not know a vocabulary would do. `check_schema` refuses a
schema that is not one at all: a `type` that names no JSON type, `properties` that is not an object
of schemas, `required` that is not a list of names. Every problem names where it is, as a path.

Usage:

    >>> schema = {"type": "object", "properties": {"expression": {"type": "string"}},
    ...           "required": ["expression"], "additionalProperties": False}
    >>> problems({"expression": "17 * 23"}, schema)
    []
    >>> problems({"expr": 17}, schema)
    ['arguments: expression is required', 'arguments: expr is not allowed (no such property)']
    >>> check_schema({"type": "objekt"})
    Traceback (most recent call last):
    ...
    ValueError: parameters.type: 'objekt' is not a JSON type (array, boolean, integer, null, number, object, string)
"""

from __future__ import annotations

import math
import re

__all__ = ["TYPES", "check_schema", "problems"]

TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf")
NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
COUNT_KEYWORDS = ("minLength", "maxLength", "minItems", "maxItems")
MAX_DEPTH = 32          # a schema nested deeper than this is refused, not recursed into


# ---- is it a schema? ---------------------------------------------------------------------------------

def check_schema(schema, where: str = "parameters", depth: int = 0) -> None:
    """Raise ValueError naming the first place where `schema` is not a JSON Schema this module can use."""
    if isinstance(schema, bool):                  # `true` allows everything, `false` nothing
        return
    if not isinstance(schema, dict):
        raise ValueError(f"{where} must be a JSON Schema (an object), got {type(schema).__name__}")
    if depth > MAX_DEPTH:
        raise ValueError(f"{where} is nested more than {MAX_DEPTH} levels deep")
    kinds = schema.get("type")
    for kind in kinds if isinstance(kinds, list) else [] if kinds is None else [kinds]:
        if kind not in TYPES:
            raise ValueError(f"{where}.type: {kind!r} is not a JSON type ({', '.join(TYPES)})")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise ValueError(f"{where}.properties must be an object mapping names to schemas")
    for name, sub in properties.items():
        check_schema(sub, f"{where}.properties.{name}", depth + 1)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise ValueError(f"{where}.required must be a list of property names")
    for key in ("items", "additionalProperties"):
        if key in schema:
            check_schema(schema[key], f"{where}.{key}", depth + 1)
    for key in SUBSCHEMA_LISTS:
        if key in schema:
            if not isinstance(schema[key], list) or not schema[key]:
                raise ValueError(f"{where}.{key} must be a non-empty list of schemas")
            for i, sub in enumerate(schema[key]):
                check_schema(sub, f"{where}.{key}[{i}]", depth + 1)
    if "enum" in schema and not isinstance(schema["enum"], list):
        raise ValueError(f"{where}.enum must be a list of values")
    for key in NUMBER_KEYWORDS:
        if key in schema and not is_number(schema[key]):
            raise ValueError(f"{where}.{key} must be a number")
    for key in COUNT_KEYWORDS:
        if key in schema and not (isinstance(schema[key], int) and not isinstance(schema[key], bool)
                                  and schema[key] >= 0):
            raise ValueError(f"{where}.{key} must be a whole number >= 0")
    if "pattern" in schema:
        try:
            re.compile(schema["pattern"])
        except (re.error, TypeError):
            raise ValueError(f"{where}.pattern is not a regular expression") from None


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# ---- does a value fit it? -------------------------------------------------------------------------------

def type_of(value) -> str:
    """The JSON type of a value parsed from JSON (an integral float such as 2.0 counts as an integer, as JSON Schema says)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or isinstance(value, float) and value.is_integer():
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}.get(type(value), type(value).__name__)


def fits(kind: str, value) -> bool:
    actual = type_of(value)
    return actual == kind or kind == "number" and actual == "integer"


def problems(value, schema, where: str = "arguments") -> list[str]:
    """What is wrong with `value` against `schema` (checked with `check_schema` first), one sentence each; [] when it fits."""
    if schema is True or schema is False:
        return [] if schema else [f"{where}: no value is allowed here"]
    found: list[str] = []
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [] if kinds is None else [kinds]
    if kinds and not any(fits(kind, value) for kind in kinds):
        return [f"{where}: expected {' or '.join(kinds)}, got {type_of(value)} {value!r:.60}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{where}: must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: must be one of {', '.join(repr(v) for v in schema['enum'])}")
    if is_number(value):
        found += number_problems(value, schema, where)
    if isinstance(value, str):
        found += text_problems(value, schema, where)
    if isinstance(value, list):
        found += list_problems(value, schema, where)
    if isinstance(value, dict):
        found += object_problems(value, schema, where)
    for sub in schema.get("allOf", []):
        found += problems(value, sub, where)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            matching = sum(not problems(value, sub, where) for sub in schema[key])
            if matching == 0 or key == "oneOf" and matching > 1:
                found.append(f"{where}: fits {matching} of the {len(schema[key])} choices of {key}")
    return found


def number_problems(value, schema, where: str) -> list[str]:
    rules = (("minimum", lambda v, b: v >= b, ">="), ("maximum", lambda v, b: v <= b, "<="),
             ("exclusiveMinimum", lambda v, b: v > b, ">"), ("exclusiveMaximum", lambda v, b: v < b, "<"))
    return [f"{where}: must be {sign} {schema[key]}, got {value}"
            for key, holds, sign in rules if key in schema and not holds(value, schema[key])]


def length_problems(size: int, schema, where: str, low: str, high: str, what: str) -> list[str]:
    """A text's or a list's length against the schema's bounds (`low`/`high`: minLength/maxLength, minItems/maxItems)."""
    bounds = (("at least", low, size < schema.get(low, 0)), ("at most", high, high in schema and size > schema[high]))
    return [f"{where}: must {what} {word} {schema[key]} {'characters' if what == 'be' else 'items'}"
            for word, key, broken in bounds if broken]


def text_problems(value: str, schema, where: str) -> list[str]:
    found = length_problems(len(value), schema, where, "minLength", "maxLength", "be")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        found.append(f"{where}: does not match the pattern {schema['pattern']!r}")
    return found


def list_problems(value: list, schema, where: str) -> list[str]:
    found = length_problems(len(value), schema, where, "minItems", "maxItems", "have")
    if "items" in schema:
        for i, item in enumerate(value):
            found += problems(item, schema["items"], f"{where}[{i}]")
    return found


def object_problems(value: dict, schema, where: str) -> list[str]:
    properties = schema.get("properties", {})
    found = [f"{where}: {name} is required" for name in schema.get("required", []) if name not in value]
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            found += problems(item, properties[name], f"{where}.{name}")
        elif extra is False:
            found.append(f"{where}: {name} is not allowed (no such property)")
        elif extra is not True:
            found += problems(item, extra, f"{where}.{name}")
    return found
