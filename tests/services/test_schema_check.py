"""The small JSON Schema checker (lllm/services/schema_check.py): schemas it refuses, values it finds wrong, with literal cases."""

import pytest

from lllm.services.schema_check import check_schema, problems

CALC = {"type": "object", "properties": {"expression": {"type": "string", "minLength": 1}},
        "required": ["expression"], "additionalProperties": False}


def test_the_docstring_example():
    assert problems({"expression": "17 * 23"}, CALC) == []
    assert problems({"expr": 17}, CALC) == ["arguments: expression is required",
                                            "arguments: expr is not allowed (no such property)"]


@pytest.mark.parametrize("schema, where", [
    ({"type": "objekt"}, "parameters.type"),
    ({"type": ["string", "text"]}, "parameters.type"),
    ({"type": "object", "properties": []}, "parameters.properties"),
    ({"type": "object", "properties": {"x": 3}}, "parameters.properties.x"),
    ({"type": "object", "required": "x"}, "parameters.required"),
    ({"type": "object", "required": [1]}, "parameters.required"),
    ({"anyOf": []}, "parameters.anyOf"),
    ({"type": "string", "pattern": "("}, "parameters.pattern"),
    ({"type": "integer", "minimum": "0"}, "parameters.minimum"),
    ({"type": "string", "maxLength": -1}, "parameters.maxLength"),
    ({"type": "array", "items": "string"}, "parameters.items"),
    ("object", "parameters"),
])
def test_a_schema_that_is_not_one_is_refused_where_it_goes_wrong(schema, where):
    with pytest.raises(ValueError) as error:
        check_schema(schema)
    assert str(error.value).startswith(where)


def test_a_schema_nested_without_end_is_refused_not_recursed_into():
    schema = {"type": "string"}
    for _ in range(40):
        schema = {"type": "array", "items": schema}
    with pytest.raises(ValueError, match="nested more than"):
        check_schema(schema)


def test_keywords_it_does_not_know_are_allowed_and_not_checked():
    schema = {"type": "object", "title": "T", "$defs": {}, "properties": {"d": {"type": "string", "format": "date"}}}
    check_schema(schema)
    assert problems({"d": "not a date"}, schema) == []


@pytest.mark.parametrize("value, schema, expected", [
    (3, {"type": "integer"}, []),
    (3.0, {"type": "integer"}, []),                    # JSON Schema: an integral number is an integer
    (3.5, {"type": "integer"}, ["arguments: expected integer, got number 3.5"]),
    (True, {"type": "integer"}, ["arguments: expected integer, got boolean True"]),
    (3, {"type": "number", "minimum": 5}, ["arguments: must be >= 5, got 3"]),
    (5, {"type": "number", "exclusiveMaximum": 5}, ["arguments: must be < 5, got 5"]),
    ("", {"type": "string", "minLength": 1}, ["arguments: must be at least 1 characters"]),
    ("abc", {"type": "string", "pattern": "^[0-9]+$"}, ["arguments: does not match the pattern '^[0-9]+$'"]),
    ("c", {"enum": ["a", "b"]}, ["arguments: must be one of 'a', 'b'"]),
    (None, {"type": ["string", "null"]}, []),
    ([1, "x"], {"type": "array", "items": {"type": "integer"}}, ["arguments[1]: expected integer, got string 'x'"]),
    ({"a": {"b": 1}}, {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}},
     ["arguments.a.b: expected string, got integer 1"]),
    ({"x": 1}, {"type": "object", "additionalProperties": {"type": "string"}}, ["arguments.x: expected string, got integer 1"]),
    (2, {"anyOf": [{"type": "string"}, {"type": "integer"}]}, []),
    (2.5, {"anyOf": [{"type": "string"}, {"type": "integer"}]}, ["arguments: fits 0 of the 2 choices of anyOf"]),
    (2, {"oneOf": [{"type": "number"}, {"type": "integer"}]}, ["arguments: fits 2 of the 2 choices of oneOf"]),
    ("x", False, ["arguments: no value is allowed here"]),
])
def test_values_against_schemas(value, schema, expected):
    check_schema(schema)
    assert problems(value, schema) == expected
