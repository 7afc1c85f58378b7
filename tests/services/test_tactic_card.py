"""PsiHub metadata (lllm/services/tactic_card.py): one tactic's public card, copied, secrets removed, refs checked."""

from types import SimpleNamespace

import pytest

from lllm.integrations import tactic_resource
from lllm.runtimes.function_tactic import as_tactic
from lllm.services.endpoints import endpoint


def shout(text: str) -> str:
    return text.upper()


class Counter:
    """Not a protocol Tactic: anything with info() and @endpoint methods can be described."""

    def __init__(self, **fields):
        self.fields = fields

    def info(self):
        base = dict(name="counter", description="", runtime_kind="python", capabilities=("run",),
                    input_schema=None, output_schema=None, package_ref=None, service_ref=None,
                    examples=[], metadata={})
        return SimpleNamespace(**{**base, **self.fields})

    @endpoint.post("/reset", tags=("admin",))
    async def reset(self, input_value, *, context=None):
        return 0

    @endpoint.get("/count", description="How many so far.")
    async def count(self, input_value, *, context=None):
        return 1


def test_a_card_carries_the_info_fields_and_the_endpoints_sorted_by_path():
    card = tactic_resource(Counter())
    assert card["name"] == "counter" and card["capabilities"] == ["run"]
    assert card["endpoints"] == [
        {"name": "count", "method": "GET", "path": "/count", "mode": "run",
         "description": "How many so far.", "tags": []},
        {"name": "reset", "method": "POST", "path": "/reset", "mode": "run", "description": "", "tags": ["admin"]},
    ]


def test_secret_keys_are_dropped_at_every_depth_and_refs_to_secrets_stay():
    card = tactic_resource(as_tactic(shout, examples=[{"input": "hi", "headers": {"Authorization": "Bearer x"}}],
                                     metadata={"clientSecret": "raw", "clientSecretRef": "vault/app"}))
    assert card["examples"] == [{"input": "hi", "headers": {}}]
    assert card["metadata"] == {"clientSecretRef": "vault/app"}


def test_the_card_shares_nothing_with_the_tactic():
    labels = ["a"]
    tactic = Counter(metadata={"labels": labels}, examples=({"input": 1},))
    card = tactic_resource(tactic)
    card["metadata"]["labels"].append("b")
    assert labels == ["a"]
    assert card["examples"] == ({"input": 1},)          # a tuple stays a tuple


@pytest.mark.parametrize("field, value", [("package_ref", "psi://demo/text/services/shout"),
                                          ("service_ref", "http://host/api?env=dev")])
def test_a_malformed_ref_is_a_value_error_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        tactic_resource(Counter(**{field: value}))


def test_a_key_that_is_not_a_string_is_a_value_error():
    with pytest.raises(ValueError, match="metadata keys must be strings, got 1"):
        tactic_resource(Counter(metadata={1: "one"}))


def test_an_info_without_the_fields_is_a_value_error_naming_them():
    class Bare:
        def info(self):
            return SimpleNamespace(name="bare")
    with pytest.raises(ValueError, match="Bare.info\\(\\) has no description"):
        tactic_resource(Bare())
