"""Hypothesis strategies from the JSON Schema subset our OpenAPI descriptions use.

hypothesis-jsonschema 0.23.1 (the last release) fails inside Hypothesis 6.170 (it calls a private
API that is gone), so this is the small part of it we need: `type` (object, array, string,
integer, number, boolean), `properties` with `required` (optional ones drawn or left out), `enum`,
`const`, `anyOf`, bounds (`minimum`, `maximum`, `exclusiveMinimum`, `maxLength`, `minItems`,
`maxItems`). Strings stay short and numbers stay in bounds, so every draw is a request the schema admits.

    >>> from hypothesis import strategies as st
    >>> strategy = from_schema({"type": "object", "required": ["n"], "properties": {"n": {"const": 1}}})
    >>> strategy.example()
    {'n': 1}
"""

from __future__ import annotations

from hypothesis import strategies as st


def from_schema(schema: dict) -> st.SearchStrategy:
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of(*(from_schema(s) for s in schema["anyOf"]))
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        required = {k: from_schema(v) for k, v in properties.items() if k in schema.get("required", ())}
        optional = {k: from_schema(v) for k, v in properties.items() if k not in required}
        return st.fixed_dictionaries(required, optional=optional)
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), min_size=schema.get("minItems", 0),
                        max_size=min(schema.get("maxItems", 4), 4))
    if kind == "string":
        return st.text(max_size=min(schema.get("maxLength", 40), 40))
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        return st.floats(low, schema.get("maximum"), exclude_min="exclusiveMinimum" in schema, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    return st.none() | st.booleans() | st.integers() | st.text(max_size=20)     # {}: any value
