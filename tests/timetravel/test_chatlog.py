"""A run from elsewhere: a chat log built with the `openai` package's own message types, replayed and re-run."""

import json

import pytest
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall

from lllm.agents.react import terminal_text
from lllm.agents.tools import Tool
from lllm.timetravel.chatlog import read_chat, replay_chat
from lllm.timetravel.seam import RECORDED, first_difference


def assistant(content, *calls):
    """An assistant message as the openai client returns it, dumped as a log keeps it."""
    tool_calls = [ChatCompletionMessageFunctionToolCall(id=f"call_{name}", type="function",
                  function={"name": name, "arguments": json.dumps(arguments)}) for name, arguments in calls]
    message = ChatCompletionMessage(role="assistant", content=content, tool_calls=tool_calls or None)
    return message.model_dump(exclude_none=True)


def tool(name, content):
    return {"role": "tool", "tool_call_id": f"call_{name}", "content": content}       # ChatCompletionToolMessageParam


LOG = [{"role": "system", "content": "You answer with tools."},
       {"role": "user", "content": "What is 17 * 23, and is it raining in Oslo?"},
       assistant("I multiply first.", ("calc", {"expression": "17 * 23"})),
       tool("calc", "391"),
       assistant(None, ("get_weather", {"city": "Oslo"})),
       tool("get_weather", "rain, 4 C"),
       assistant("391, and yes: rain in Oslo.")]


def test_a_log_of_openai_messages_replays_as_the_react_trace_with_its_calls_kept():
    log = read_chat(json.loads(json.dumps(LOG)))
    replayed = replay_chat(log)
    assert terminal_text(replayed.trajectory) == (
        "Question: What is 17 * 23, and is it raining in Oslo?\nThought: I multiply first.\nAction: calc[17 * 23]\n"
        "Observation: 391\nAction: get_weather[Oslo]\nObservation: rain, 4 C\nFinal Answer: 391, and yes: rain in Oslo.\n")
    assert [(c.kind, c.who) for c in replayed.calls] == [("model", RECORDED), ("tool", "calc"), ("model", RECORDED),
                                                        ("tool", RECORDED), ("model", RECORDED)]
    assert replayed.recorded_tools == ["get_weather"]


def test_re_run_from_a_step_with_a_brain_from_here_keeps_the_calls_before_it():
    log = read_chat(LOG)
    branch = replay_chat(log, "rule", from_step=2)
    assert [(c.kind, c.who) for c in branch.calls] == [("model", RECORDED), ("tool", "calc"), ("model", "rule")]
    assert branch.trajectory.answer == "391"
    assert first_difference(replay_chat(log).calls, branch.calls) == 3


def test_a_tool_it_cannot_run_is_said_so_when_a_new_brain_calls_it_anew():
    script = "Final Answer: (reply 1, before the step)\n---\nAction: get_weather[Paris]\n---\nFinal Answer: no idea"
    branch = replay_chat(read_chat(LOG), "scripted", from_step=2, script=script)
    steps = branch.trajectory.steps
    assert steps[1].observation == "error: get_weather cannot run here: it is only recorded, and not with this argument"
    assert branch.trajectory.answer == "no idea"


def test_the_readers_own_tool_runs_instead_of_the_recording():
    weather = Tool("get_weather", "the weather", lambda city: f"sunny in {city}")
    replayed = replay_chat(read_chat(LOG), extra_tools=[weather])
    assert replayed.trajectory.steps[1].observation == "sunny in Oslo" and replayed.recorded_tools == []


@pytest.mark.parametrize("log, message", [
    ({"messages": "hello"}, "a chat log must be a list of 2 to 200 messages, got 'hello'"),
    ([{"role": "user", "content": "q"}, {"role": "robot"}], "messages[1].role must be system, user, assistant or tool, got 'robot'"),
    ([{"role": "assistant", "content": "hi"}, {"role": "user", "content": "q"}],
     "messages[0]: the first user message (the question) must come before the assistant's"),
    (LOG[:5], "messages[4].tool_calls[0] (id 'call_get_weather') has no tool message with its result"),
    ([LOG[1], {"role": "assistant", "tool_calls": [{"function": {"name": "calc", "arguments": "{oops"}}]}],
     "messages[1].tool_calls[0].function.arguments must be JSON, got '{oops'"),
    ([LOG[1], LOG[1]], "messages[1] is a second user message: a run replayed here answers one question"),
    ([LOG[1], {"role": "assistant", "content": "x" * 30_000}],
     "messages[1].content is 30,000 characters long; a chat log's message holds at most 20,000"),
    (LOG[:2] + [{"role": "tool", "content": "391"}],
     "messages[2] is a tool result, but no assistant message before it called a tool with tool_call_id ''"),
    (LOG[:2], "a chat log needs an assistant message after the question: the model's part of the run"),
])
def test_a_malformed_log_is_one_sentence_naming_the_message(log, message):
    with pytest.raises(ValueError) as error:
        read_chat(log)
    assert str(error.value) == message
