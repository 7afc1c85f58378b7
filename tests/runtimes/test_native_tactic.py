"""Tactics: fresh agents per call, sessions, sub-tactics, typed input and output, tactics as tools."""

import dataclasses

import pytest

from lllm.runtimes.native import FunctionCall, AgentCallError, Tactic, tactic_as_function, tactictool


@dataclasses.dataclass
class Question:
    text: str
    style: str = "short"


@dataclasses.dataclass
class Answer:
    text: str


class Echo(Tactic):
    """Ask one agent and return its reply."""
    name = "echo"
    agent_group = ["speaker"]
    input_type = Question
    output_type = Answer

    @tactictool("ask_echo", description="Ask the echo tactic.")
    def call(self, task: Question) -> Answer:
        speaker = self.agents["speaker"]
        speaker.open("main")
        speaker.receive(task.text)
        return Answer(speaker.respond().content)


def config(*replies):
    return {"global": {"invoker": "scripted", "invoker_config": {"replies": list(replies)}},
            "agent_configs": [{"name": "speaker", "system_prompt": "Repeat."}]}


def test_each_call_gets_fresh_agents_and_a_session():
    tactic = Echo(config("hi"))
    assert tactic({"text": "a"}) == Answer("hi")
    session = tactic({"text": "b"}, return_session=True)    # the script starts over: fresh invoker
    assert session.delivery == Answer("hi") and session.task == Question("b")
    assert session.cost.calls == 1
    assert tactic.agents == {}                               # the tactic itself holds no state


def test_input_and_output_are_validated():
    with pytest.raises(TypeError, match="tactic 'echo': bad input: echo input.text: expected string, got int 5"):
        Echo(config("hi"))({"text": 5})

    class Wrong(Echo):
        def call(self, task):
            return "not an Answer"
    with pytest.raises(TypeError, match="bad output: echo output: expected an object for Answer"):
        Wrong(config("hi"))({"text": "a"})


def test_a_missing_agent_config_is_named():
    with pytest.raises(ValueError, match="agent_configs has no entry for agent\\(s\\) \\['speaker'\\]"):
        Echo({"agent_configs": []})


def test_a_failed_call_is_recorded_in_the_session():
    strict = dict(config("x"), agent_configs=[{"name": "speaker", "system_prompt": "Repeat.", "max_exception_retry": 0}])

    class Strict(Echo):
        def call(self, task):
            from lllm.runtimes.native import DefaultTagParser, Prompt
            speaker = self.agents["speaker"]
            speaker.open("main")
            speaker.receive_prompt(Prompt(path="p", prompt="Q", parser=DefaultTagParser(required_xml_tags=["a"])))
            return Answer(speaker.respond().content)
    with pytest.raises(AgentCallError) as caught:
        Strict(strict)({"text": "a"})
    assert caught.value.session.state == "failed"


def test_sub_tactics_are_built_per_call_and_recorded():
    class Outer(Tactic):
        name = "outer"
        sub_tactics = {"echo": Echo}

        def call(self, task):
            return self.tactics["echo"]({"text": task}).text + "!"

    session = Outer(config("hi"))("x", return_session=True)
    assert session.delivery == "hi!"
    assert len(session.sub_sessions) == 1 and session.cost.calls == 1
    assert "  echo: success, 1 agent call(s)" in session.report()


def test_bcall_keeps_the_order_of_tasks():
    class Upper(Tactic):
        name = "upper"

        def call(self, task):
            return task.upper()
    assert Upper().bcall(["a", "b", "c", "d"]) == ["A", "B", "C", "D"]
    assert Upper().bcall(["a", "b"], max_workers=1) == ["A", "B"]


def test_info_exports_both_schemas():
    info = Echo(config("hi")).info()
    assert info.input_schema["required"] == ["text"]
    assert info.output_schema["properties"] == {"text": {"title": "Text", "type": "string"}}   # Pydantic's schema
    assert info.description == "Ask one agent and return its reply."


def test_a_tactic_is_a_tool():
    function = tactic_as_function(Echo(config("pong")))
    assert function.name == "ask_echo" and function.description == "Ask the echo tactic."
    assert function.schema()["function"]["parameters"]["required"] == ["text"]
    assert function(text="ping").text == "pong"                     # the tactic's own output type
    call = function(FunctionCall(name="ask_echo", arguments={"text": "ping"}))
    assert call.success and call.result.text == "pong" and call.result_str.endswith('{"text": "pong"}')

    class Plain(Tactic):
        name = "plain"

        def call(self, task: str) -> str:
            return task[::-1]
    assert Plain().as_function()(task="abc") == "cba"
    assert Plain().as_tool()("abc") == "cba"
