"""The protocol layer (lllm/protocol) and as_tactic: docstring examples, and the boundary rules as literal cases."""

import pathlib

import pytest
from pydantic import BaseModel, ValidationError

import lllm.protocol as protocol
from lllm import CallContext, CallTrace, SchemaError, Tactic, TacticInfo
from lllm.protocol.validation import public_boundary_value
from lllm.runtimes.function_tactic import as_tactic

FOLDER = pathlib.Path(protocol.__file__).parent
MODULES = [f"lllm.protocol.{p.stem}" for p in sorted(FOLDER.glob("*.py")) if p.stem != "__init__"]
MODULES += ["lllm.protocol", "lllm.runtimes.function_tactic", "lllm.runtimes.native.adapter", "lllm.runtimes.native.core.costs"]


class Text(BaseModel):
    text: str


class Shout(Tactic[Text, Text]):
    name = "shout"
    input_type = output_type = Text

    def _run(self, input_value, *, context=None):
        return {"text": input_value.text.upper()}


def test_run_validates_both_ways_and_traces():
    result = Shout().run({"text": "hi"}, context=CallContext(request_id="r-1"), return_trace=True)
    assert result.output == Text(text="HI") and (result.trace.request_id, result.trace.state) == ("r-1", "success")
    with pytest.raises(SchemaError, match="input does not match its type"):
        Shout().run({"text": 3})
    with pytest.raises(TypeError, match="return_trace must be True or False"):
        Shout().run({"text": "hi"}, return_trace=1)


def test_names_ids_and_refs_refuse_paths_bytes_and_booleans():
    with pytest.raises(ValueError, match="name"):
        Shout(name="bad/name")
    with pytest.raises(ValidationError):
        CallContext(request_id="bad id")
    with pytest.raises(ValidationError, match="started_at"):
        CallTrace(request_id="r", tactic="t", started_at=True)
    with pytest.raises(ValidationError, match="service_ref"):
        TacticInfo(name="t", service_ref="http://user:pass@host")
    assert TacticInfo(name="t", service_ref="http://host:8000/api/").service_ref == "http://host:8000/api/"


def test_secrets_never_cross_the_boundary():
    shown = public_boundary_value({"headers": {"Authorization": "Bearer x", "x-policy": "p"}, "apiKeyRef": "vault/k"})
    assert shown == {"headers": {"x-policy": "p"}, "apiKeyRef": "vault/k"}


def test_a_function_becomes_a_tactic_typed_by_its_annotations():
    def add(task: Text, *, context=None) -> str:
        return task.text + (context.metadata["suffix"] if context else "")

    tactic = as_tactic(add, name="add")
    assert tactic.run({"text": "a"}, context=CallContext(metadata={"suffix": "!"})) == "a!"
    assert tactic.info().input_schema["title"] == "Text"
