"""Prompts, handlers and tools: rendering, parsing, extending, binding."""

import dataclasses

import pytest

from lllm.runtimes.native import (DefaultSimpleHandler, DefaultTagParser, Function, ParseError, Prompt, PromptError,
                                  ToolError, tool)


def test_rendering_names_the_missing_or_unknown_variable():
    greet = Prompt(path="greet", prompt="Hello {name}, meet {friend}.")
    assert greet(name="Ada", friend="Bob") == "Hello Ada, meet Bob."
    with pytest.raises(PromptError, match="prompt 'greet' needs variable 'friend'"):
        greet(name="Ada")
    assert greet(name="Ada", friend="Bob", fiend="x") == "Hello Ada, meet Bob."   # extras are ignored, as in lllm-core
    assert Prompt(path="json", prompt='Reply {{"a": {n}}}')(n=1) == 'Reply {"a": 1}'


def test_bad_templates_and_paths_fail_at_construction():
    with pytest.raises(PromptError, match="use named variables"):
        Prompt(path="p", prompt="Hello {}")
    with pytest.raises(PromptError, match="path=...\\) must be a non-empty string"):
        Prompt(path="", prompt="x")


def test_extend_returns_a_new_prompt_and_keeps_the_old_one():
    base = Prompt(path="a", prompt="A {x}", parser=DefaultTagParser(xml_tags=["t"]))
    child = base.extend(path="a/v2", prompt="B {x}")
    assert (child(x=1), base(x=1)) == ("B 1", "A 1")
    assert child.parser is base.parser
    with pytest.raises(PromptError, match="unknown field\\(s\\) \\['tmpl'\\]"):
        base.extend(path="a/v3", tmpl="x")
    with pytest.raises(PromptError, match="extend\\(\\) needs a new path"):
        base.extend(path="")


def test_parse_without_a_parser_returns_the_raw_text():
    assert Prompt(path="p", prompt="x").parse("anything") == {"raw": "anything"}


def test_format_with_a_dataclass_checks_the_json():
    @dataclasses.dataclass
    class Verdict:
        label: str
        confidence: float

    prompt = Prompt(path="v", prompt="Judge.", format=Verdict)
    assert prompt.parse('{"label": "ok", "confidence": 1}') == {"label": "ok", "confidence": 1.0,
                                                               "raw": '{"label": "ok", "confidence": 1}'}
    with pytest.raises(ParseError, match="Verdict.confidence: expected number, got str"):
        prompt.parse('{"label": "ok", "confidence": "high"}')
    with pytest.raises(ParseError, match="Reply with one JSON object"):
        prompt.parse("I think it is fine")
    assert prompt.format_schema()["required"] == ["label", "confidence"]


def test_binding_declarations_by_exact_name():
    declared = Function("save_note", "Save.", {"title": {"type": "string"}}, ["title"])
    prompt = Prompt(path="p", prompt="x", function_list=[declared])

    @tool(name="save_note")
    def save(title: str) -> str:
        return "saved " + title

    @tool
    def save_notes(title: str) -> str:
        return title

    assert prompt.bind_tools(save).functions["save_note"](title="t") == "saved t"
    with pytest.raises(ToolError, match="declares no tool named \\['save_notes'\\]"):
        prompt.bind_tools(save_notes)
    with pytest.raises(ToolError, match="cannot bind declaration 'save_note' to tool 'save_notes'"):
        declared.bind(save_notes)
    with pytest.raises(ToolError, match="does not accept \\['title'\\]"):
        declared.bind(lambda text: text)


def test_unresolved_references_are_named():
    prompt = Prompt(path="p", prompt="x", function_list=["kit.tools:search"])
    with pytest.raises(PromptError, match="function_list item 'kit.tools:search' is not a Function"):
        prompt.functions


def test_tool_schema_from_type_hints():
    @tool(description="Book a table", prop_desc={"people": "how many"})
    def book(day: str, people: int, vip: bool = False, tags: list[str] = ()) -> str:
        return "ok"

    params = book.schema()["function"]["parameters"]
    assert params["required"] == ["day", "people"]
    assert params["properties"]["people"] == {"type": "integer", "description": "how many"}
    assert params["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert book.check_arguments({"day": "mon", "people": True}) == \
        "argument 'people' of book: expected integer, got bool True"
    assert book.check_arguments({"day": "mon"}) == "missing required argument 'people' of book"
    with pytest.raises(ToolError, match="prop_desc names unknown parameters \\['persons'\\]"):
        tool(prop_desc={"persons": "x"})(lambda people: people)


def test_the_default_handler_keeps_the_contract_and_the_final_turn_drops_tools():
    calc = Function("calc", "c", {"x": {"type": "string"}}, ["x"])
    turn = Prompt(path="t", prompt="Q", parser=DefaultTagParser(xml_tags=["a"]), function_list=[calc])
    handler = DefaultSimpleHandler()
    assert handler.on_exception(turn).parser is turn.parser
    assert handler.on_interrupt(turn)(result="5") == "5"
    final = handler.on_interrupt_final(turn)
    assert final.function_list == () and final.path == "t/interrupt_final"
