"""JSON tool calls for a ReAct model (lllm/services/toolcalls.py): the chat template and the parser, with literal cases.

The parser is checked against replies a model really writes and the ways they go wrong: an
unknown tool, arguments that break the schema, no action at all. The template is checked against
the prompt `lllm react` builds for the same conversation, so the served model reads what the
agent's own loop gives it.
"""

import json

import pytest

from lllm.agents.react import Step, build_prompt
from lllm.agents.tools import DEFAULT_TOOLS
from lllm.services.toolcalls import (Reply, ToolRequestError, argument_text, call_deltas, forced_prefix, parse_reply,
                                     read_tool_choice, read_tools, tool_prompt)


def function(name, parameters=None, description="a tool"):
    body = {"name": name, "description": description}
    return {"type": "function", "function": body | ({"parameters": parameters} if parameters is not None else {})}


CALC = function("calc", {"type": "object", "properties": {"expression": {"type": "string"}},
                         "required": ["expression"], "additionalProperties": False}, "arithmetic")
LOOKUP = function("lookup", {"type": "object", "properties": {"topic": {"type": "string", "maxLength": 20}}})
TOOLS = read_tools([CALC, LOOKUP])


# ---- the parser ------------------------------------------------------------------------------------------

def test_an_action_becomes_a_call_whose_arguments_fill_the_tools_one_property():
    reply = parse_reply("Thought: compute 17 * 23\nAction: calc[17 * 23]\n", TOOLS, call_id="call_7")
    assert reply.tool_call == {
        "id": "call_7", "type": "function", "function": {"name": "calc", "arguments": '{"expression": "17 * 23"}'}}
    assert (reply.content, reply.thought, reply.problem) == (None, "compute 17 * 23", None)


def test_a_final_answer_is_the_replys_text():
    assert parse_reply("Final Answer: 391", TOOLS) == Reply("391")
    assert parse_reply("Thought: done\nFinal Answer: 391\n", TOOLS) == Reply("391", thought="done")


@pytest.mark.parametrize("text, problem", [
    ("Action: weather[Paris]", "the model called weather, which is not among the request's tools (calc, lookup)"),
    ("Action: lookup[the whole history of the town]",
     "the arguments of lookup do not fit its schema: arguments.topic: must be at most 20 characters"),
    ("Thought: I am not sure", "the model wrote no Action"),
    ("Action: calc 17 * 23", "the model wrote no Action"),          # no brackets: not an action
])
def test_what_cannot_be_a_valid_call_is_returned_as_text_with_the_reason(text, problem):
    reply = parse_reply(text, TOOLS)
    assert (reply.content, reply.tool_call, reply.problem) == (text, None, problem)


def test_bracket_text_that_is_a_json_object_is_taken_as_the_arguments():
    two = read_tools([function("add", {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                       "required": ["a", "b"]})])
    assert json.loads(parse_reply('Action: add[{"a": 2, "b": 3}]', two).tool_call["function"]["arguments"]) == {"a": 2, "b": 3}
    assert parse_reply("Action: add[2, 3]", two).problem == "add takes no single argument, and the model wrote '2, 3'"


def test_a_numeric_slot_gets_a_number():
    square = read_tools([function("square", {"type": "object", "properties": {"n": {"type": "integer"}}})])
    assert parse_reply("Action: square[12]", square).tool_call["function"]["arguments"] == '{"n": 12}'
    assert parse_reply("Action: square[twelve]", square).problem.endswith("arguments.n: expected integer, got string 'twelve'")


def test_with_tool_choice_none_or_another_named_tool_an_action_stays_text():
    assert parse_reply("Action: calc[1 + 1]", TOOLS, "none").tool_call is None
    assert parse_reply("Action: calc[1 + 1]", TOOLS, "lookup").problem == "the model called calc, and tool_choice asked for lookup"


def test_the_start_of_a_forced_call():
    assert forced_prefix("Thought: add them\nFinal Answer: 5", "required") == "Thought: add them\nAction: "
    assert forced_prefix("Final Answer: 5", "calc") == "Action: calc["
    assert forced_prefix("Final Answer: 5", "auto") is None


# ---- the chat template ----------------------------------------------------------------------------------

def test_the_template_gives_the_model_what_the_react_loop_gives_it():
    messages = [{"role": "user", "content": "What is 17 * 23?"},
                {"role": "assistant", "content": "compute 17 * 23", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": '{"expression": "17 * 23"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "391"}]
    steps = [Step(thought="compute 17 * 23", action=("calc", "17 * 23"), observation="391")]
    ours, theirs = tool_prompt(messages, TOOLS), build_prompt("What is 17 * 23?", DEFAULT_TOOLS, steps)
    question = "Question: What is 17 * 23?\nThought: compute 17 * 23\nAction: calc[17 * 23]\nObservation: 391\n"
    assert ours.endswith("Final Answer: the answer\n" + question) and theirs.endswith(question)
    assert 'calc: arithmetic Arguments: {"type":"object","properties":{"expression":{"type":"string"}}' in ours


def test_the_thought_comes_back_as_reasoning_content_or_as_content():
    call = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"topic": "pip"}'}}
    asked = [{"role": "user", "content": "Who is Pip?"}]
    answered = [{"role": "tool", "tool_call_id": "c1", "content": "Pip is Mira's grey cat."}]
    expected = ("Question: Who is Pip?\nThought: look up pip\nAction: lookup[pip]\n"
                "Observation: Pip is Mira's grey cat.\n")
    for assistant in ({"content": None, "reasoning_content": "look up pip"}, {"content": "look up pip"},
                      {"content": "", "reasoning": "look up pip"}):
        messages = asked + [{"role": "assistant", "tool_calls": [call], **assistant}] + answered
        assert tool_prompt(messages, TOOLS).endswith(expected), assistant


def test_a_previous_final_answer_and_a_new_question_are_rendered_in_order():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Who is Pip?"},
                {"role": "assistant", "content": "Pip is a cat."}, {"role": "user", "content": "What is 2 + 2?"}]
    assert tool_prompt(messages, TOOLS).endswith("Be brief.\nQuestion: Who is Pip?\nFinal Answer: Pip is a cat.\n"
                                                 "Question: What is 2 + 2?\n")


def test_tool_choice_none_lists_no_tools():
    assert "calc:" not in tool_prompt([{"role": "user", "content": "hi"}], TOOLS, "none")


def test_argument_text_reverses_the_slot():
    assert argument_text('{"expression": "2 + 2"}', TOOLS[0]) == "2 + 2"
    assert argument_text('{"a": 1, "b": 2}', None) == '{"a": 1, "b": 2}'
    assert argument_text("not json", None) == "not json"


# ---- requests that cannot be used --------------------------------------------------------------------------

@pytest.mark.parametrize("tools, param", [
    ([], "tools"),
    ("calc", "tools"),
    ([{"type": "retrieval"}], "tools[0]"),
    ([function("two words")], "tools[0].function.name"),
    ([function("calc", {"type": "string"})], "tools[0].function.parameters"),
    ([function("calc", {"type": "object", "properties": {"x": {"type": "strng"}}})], "tools[0].function.parameters"),
    ([CALC, CALC], "tools[1].function.name"),
])
def test_bad_tools_name_their_field(tools, param):
    with pytest.raises(ToolRequestError) as error:
        read_tools(tools)
    assert error.value.param == param


@pytest.mark.parametrize("choice, tools, message", [
    ("sometimes", TOOLS, "tool_choice must be none, auto, required or"),
    ({"type": "function", "function": {"name": "weather"}}, TOOLS, "tool_choice names weather, which is not among"),
    ({"type": "function"}, TOOLS, "tool_choice must be none, auto, required or"),
    ("auto", (), "tool_choice is only allowed when tools are given"),
])
def test_bad_tool_choices(choice, tools, message):
    with pytest.raises(ToolRequestError, match=message):
        read_tool_choice(choice, tools)


def test_good_tool_choices():
    assert [read_tool_choice(c, TOOLS) for c in (None, "auto", "none", "required")] == ["auto", "auto", "none", "required"]
    assert read_tool_choice({"type": "function", "function": {"name": "lookup"}}, TOOLS) == "lookup"
    assert read_tool_choice(None, ()) == "none"


CALL = {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}


@pytest.mark.parametrize("messages, message", [
    ([{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "c9", "content": "1"}],
     r"messages\[1\] is a tool message answering 'c9', which is no tool call"),
    ([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [CALL]}],
     r"messages\[1\]: the tool call 'c1' has no tool message answering it$"),
    ([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [CALL]}, {"role": "user", "content": "q"}],
     r"messages\[1\]: the tool call 'c1' has no tool message answering it before messages\[2\]"),
    ([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"id": "c1"}]}],
     r"messages\[1\].tool_calls\[0\] must have an id and a function"),
    ([{"role": "system", "content": "s"}], "with tools, messages need a user message"),
    ([{"role": "robot", "content": "q"}], r"messages\[0\] must be an object whose role is"),
    ([{"role": "user", "content": 5}], r"messages\[0\].content must be text"),
])
def test_tool_turns_that_do_not_add_up_are_refused(messages, message):
    with pytest.raises(ToolRequestError, match=message):
        tool_prompt(messages, TOOLS)


def test_a_call_streams_as_openais_deltas_that_add_up_to_it():
    call = parse_reply("Action: calc[(1 + 2) * 3 - 4 / 5]", TOOLS, call_id="c").tool_call
    deltas = call_deltas(call, piece=7)
    assert deltas[0] == {"tool_calls": [{"index": 0, "id": "c", "type": "function",
                                         "function": {"name": "calc", "arguments": ""}}]}
    assert "".join(d["tool_calls"][0]["function"]["arguments"] for d in deltas) == call["function"]["arguments"]
    assert all(len(d["tool_calls"][0]["function"]["arguments"]) <= 7 for d in deltas)


# ---- any JSON in the tool fields: a 400 or an answer, never a 500 ---------------------------------------------

def test_any_json_in_the_tool_fields_is_a_400_or_an_answer():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from lllm.model.tokenizer import CharTokenizer
    from lllm.services.openai.service import OpenAIService
    from lllm.services.openai.served_model import ServedModel
    writer = ServedModel("toy", lambda ids, state: ([0.0, 5.0], state), CharTokenizer("ab"), calls_tools=True)
    service = OpenAIService([writer])
    leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.sampled_from(
        ["function", "object", "string", "auto", "calc", "tool", "user", "assistant", "c1"])
    value = st.recursive(leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "function", "name", "parameters", "properties", "required", "role", "content",
                         "tool_calls", "tool_call_id", "id", "arguments", "items", "anyOf"]), inner, max_size=4),
        max_leaves=12)

    @settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(tools=value, tool_choice=value, messages=value)
    def never_500(tools, tool_choice, messages):
        body = {"model": "toy", "max_tokens": 3, "tools": tools, "tool_choice": tool_choice,
                "messages": [{"role": "user", "content": "q"}] + (messages if isinstance(messages, list) else [messages])}
        status, reply = service.handle("POST", "/v1/chat/completions", json.dumps(body).encode())
        assert status in (200, 400), (status, reply)
    never_500()


# ---- the page's runnable cell prints what it says ----------------------------------------------------------

def test_the_pages_cell_runs_and_shows_the_template_and_the_parser(capsys):
    import pathlib
    import re
    page = (pathlib.Path(__file__).resolve().parents[2] / "site" / "agents" / "tool-calls.md").read_text(encoding="utf-8")
    cells = re.findall(r"```python \{\.runnable\}\n(.*?)```", page, re.S)
    assert len(cells) == 1
    exec(compile(cells[0], "tool-calls.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == [
        'calc: arithmetic Arguments: {"type":"object","required":["expression"],"properties":{"expression":'
        '{"type":"string","minLength":1}}}',
        "Question: What is 17 * 23?",
        "{'name': 'calc', 'arguments': '{\"expression\": \"17 * 23\"}'}",
        "the model called weather, which is not among the request's tools (calc)",
        "the arguments of calc do not fit its schema: arguments.expression: must be at least 1 characters"]
