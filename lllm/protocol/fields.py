"""Layer 3 · protocol field types: the checked strings, numbers and mappings every protocol model uses.

Read `_validation.py` first (the checks); `context.py`, `events.py` and `tactic.py` use these.

Strings are strict (bytes are refused, never decoded), numbers refuse booleans, and every
mapping is copied into plain data with string keys. A failing check is Pydantic's
`ValidationError` naming the field.

Usage:

    >>> from pydantic import TypeAdapter
    >>> TypeAdapter(Token).validate_python("trace.1")
    'trace.1'
    >>> TypeAdapter(Metadata).validate_python({"a": {"b": 1}})
    {'a': {'b': 1}}
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Strict, StrictStr

from lllm.protocol import validation as v

__all__ = ["Token", "Name", "Metadata", "JsonSchema", "Number", "TacticRefText", "ServiceRefText", "Examples"]

Token = Annotated[StrictStr, AfterValidator(lambda s: v.check_token(s, "value"))]
Name = Annotated[StrictStr, AfterValidator(v.check_name)]
Metadata = Annotated[dict[str, Any], BeforeValidator(lambda m: v.plain_mapping(m, "metadata"))]
JsonSchema = Annotated[dict[str, Any], BeforeValidator(lambda m: v.plain_mapping(m, "schema"))]
Number = Annotated[float, Strict()]
TacticRefText = Annotated[StrictStr, AfterValidator(v.check_tactic_ref)]
ServiceRefText = Annotated[StrictStr, AfterValidator(v.check_service_ref)]
Examples = Annotated[list[dict[str, Any]], BeforeValidator(v.examples_list)]
