"""Parsers: tags optional unless required; the block finders, with property tests."""

import pytest
from pydantic import ValidationError
from hypothesis import given, strategies as st

from lllm.runtimes.native import DefaultTagParser, ParseError, find_md_blocks, find_xml_blocks

plain_text = st.text(alphabet=st.characters(blacklist_characters="<>`", blacklist_categories=("Cs",)), max_size=40)
tag_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


def test_listed_tags_are_optional_and_required_tags_are_required():
    parser = DefaultTagParser(xml_tags=["work", "answer"])
    assert parser.parse("just text")["xml_tags"] == {"work": [], "answer": []}
    strict = DefaultTagParser(xml_tags=["work"], required_xml_tags=["answer"], required_md_tags=["json"])
    with pytest.raises(ParseError, match="Missing required tag <answer>...</answer>"):
        strict.parse("<work>1</work>")
    with pytest.raises(ParseError, match="Missing required markdown block ```json"):
        strict.parse("<answer>1</answer>")
    parsed = strict.parse('<answer>1</answer>\n```json\n{"a": 1}\n```')
    assert parsed["md_tags"] == {"json": ['{"a": 1}']}


def test_signal_tags_are_flags():
    parser = DefaultTagParser(signal_tags=["done", "stop"])
    assert parser.parse("ok <done/>")["signal_tags"] == {"done": True, "stop": False}


def test_a_string_instead_of_a_list_is_a_clear_error():
    with pytest.raises(ValidationError, match="xml_tags"):
        DefaultTagParser(xml_tags="answer")


def test_a_tag_with_a_space_or_a_path_is_refused():
    with pytest.raises(ValidationError, match="whitespace"):
        DefaultTagParser(required_xml_tags=["answer tag"])
    with pytest.raises(ValueError, match="path"):
        find_xml_blocks("<a/>", "bad/name")


def test_blocks_are_found_in_order_and_stripped():
    assert find_xml_blocks("<a> 1 </a> x <a>2</a>", "a") == ["1", "2"]
    assert find_md_blocks("```python\nprint(1)\n```\n```json\n{}\n```", "json") == ["{}"]


@given(tag=tag_names, bodies=st.lists(plain_text, max_size=4))
def test_xml_blocks_round_trip(tag, bodies):
    content = " and ".join(f"<{tag}>{body}</{tag}>" for body in bodies)
    assert find_xml_blocks(content, tag) == [body.strip() for body in bodies]


@given(tag=tag_names, body=plain_text)
def test_md_blocks_round_trip(tag, body):
    assert find_md_blocks(f"intro\n```{tag}\n{body}\n```\noutro", tag) == [body.strip()]


@given(content=st.text(max_size=80))
def test_the_default_parser_never_raises_without_required_tags(content):
    parsed = DefaultTagParser(xml_tags=["answer"], md_tags=["json"], signal_tags=["done"]).parse(content)
    assert parsed["raw"] == content
