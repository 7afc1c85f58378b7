"""The agent call loop end to end on scripted models: repairs, tools, caps, guards."""

import pytest

from lllm.predictors.contract import ScriptedPredictor
from lllm.runtimes.native import (Agent, AgentCallError, DefaultTagParser, Function, PredictorInvoker, Prompt, Role,
                                  ScriptedInvoker, ToolError, tool)

ANSWER = Prompt(path="answer", prompt="Question: {question}", parser=DefaultTagParser(required_xml_tags=["answer"]))


def make_calc(counter=None):
    @tool(description="Evaluate an arithmetic expression")
    def calc(expr: str) -> str:
        if counter is not None:
            counter.append(expr)
        return str(eval(expr, {"__builtins__": {}}))
    return calc


def call(name, **arguments):
    return {"content": "", "function_calls": [{"name": name, "arguments": arguments}]}


def agent_with(replies, tools=(), **options):
    system = Prompt(path="solver/system", prompt="You solve arithmetic.", function_list=list(tools))
    return Agent("solver", system, ScriptedInvoker(replies), **options)


def ask(agent, question="What is 2+3?"):
    agent.open("main")
    agent.receive_prompt(ANSWER, {"question": question})
    return agent.respond()


# ---- repairs ------------------------------------------------------------------------------------------

def test_a_reply_that_breaks_the_contract_gets_a_repair_turn_in_the_working_dialog_only():
    agent = agent_with(["five", "<answer>5</answer>"])
    reply = ask(agent)
    assert reply.parsed["xml_tags"]["answer"] == ["5"]
    canonical = agent.dialog("main").messages
    assert [m.content for m in canonical] == ["You solve arithmetic.", "Question: What is 2+3?", "<answer>5</answer>"]
    session = agent.sessions[0]
    assert [s.kind for s in session.steps] == ["reply", "repair", "reply"]
    assert session.steps[1].reply == "Error: Missing required tag <answer>...</answer>. Please fix."
    assert agent.invoker.seen[1].endswith("Assistant: five\nUser: Error: Missing required tag <answer>...</answer>. "
                                          "Please fix.\nAssistant: ")


def test_a_reply_that_never_parses_fails_after_max_exception_retry_repairs():
    agent = agent_with(["no", "still no", "nope"], max_exception_retry=2)
    with pytest.raises(AgentCallError, match="after 2 repair\\(s\\); last error: Missing required tag") as caught:
        ask(agent)
    assert caught.value.session.state == "failed"
    assert caught.value.session.repairs == 2
    assert len(agent.dialog("main").messages) == 2          # nothing invalid reached the canonical dialog


def test_an_unknown_tool_is_a_repair_turn_not_a_crash():
    agent = agent_with([call("search", query="x"), "<answer>5</answer>"], tools=[make_calc()])
    assert ask(agent).content == "<answer>5</answer>"
    assert agent.sessions[0].steps[0].error == "Unknown tool 'search'; available tools: calc"


# ---- tools -------------------------------------------------------------------------------------------

def test_a_tool_call_runs_and_its_result_is_fed_back():
    agent = agent_with([call("calc", expr="2+3"), "<answer>5</answer>"], tools=[make_calc()])
    ask(agent)
    roles = [m.role for m in agent.dialog("main").messages]
    assert roles == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert agent.dialog("main").messages[3].content == "5"
    assert agent.invoker.seen[1].endswith('Assistant: Action: calc[{"expr": "2+3"}]\nObservation: 5\nAssistant: ')
    assert agent.sessions[0].interrupts == 1


def test_tool_errors_and_wrong_argument_types_become_observations():
    agent = agent_with([call("calc", expr="1/0"), call("calc", expr=17), "<answer>?</answer>"], tools=[make_calc()])
    ask(agent)
    results = [c.result_str for c in agent.sessions[0].tool_calls]
    assert results == ["Error: ZeroDivisionError: division by zero",
                       "Error: argument 'expr' of calc: expected string, got int 17"]


def test_a_repeated_identical_call_is_answered_without_re_running():
    runs = []
    agent = agent_with([call("calc", expr="2+3"), call("calc", expr="2+3"), "<answer>5</answer>"],
                       tools=[make_calc(runs)])
    ask(agent)
    assert runs == ["2+3"]
    second = agent.sessions[0].tool_calls[1]
    assert second.cached and second.result_str == "5 (repeated call: same result as before)" and second.result == "5"


def test_the_interrupt_cap_adds_a_final_turn_that_offers_no_tools():
    replies = [call("calc", expr="1+1"), call("calc", expr="2+2"), "<answer>4</answer>"]
    agent = agent_with(replies, tools=[make_calc()], max_interrupt_steps=2)
    reply = ask(agent)
    assert reply.parsed["xml_tags"]["answer"] == ["4"]
    assert [s.kind for s in agent.sessions[0].steps].count("final_turn") == 1
    last_shown = agent.invoker.seen[-1]
    assert "Tools (" not in last_shown
    assert "User: You have used all your tool calls." in last_shown
    assert "Tools (" in agent.invoker.seen[0]


def test_a_tool_call_in_the_final_turn_is_repaired():
    replies = [call("calc", expr="1+1"), call("calc", expr="2+2"), "<answer>2</answer>"]
    agent = agent_with(replies, tools=[make_calc()], max_interrupt_steps=1)
    ask(agent)
    assert agent.sessions[0].steps[-3].error == "Unknown tool 'calc'; no tools are available now"


def test_a_declared_but_unbound_tool_is_a_loud_error():
    declared = Function("calc", "Evaluate", {"expr": {"type": "string"}}, ["expr"])
    agent = agent_with([call("calc", expr="1")], tools=[declared])
    with pytest.raises(ToolError, match="declared but not bound"):
        ask(agent)


# ---- which prompt governs (the Dialog rule) -------------------------------------------------------

def test_a_text_turn_accepts_any_reply_but_still_offers_the_system_prompts_tools():
    agent = agent_with([call("calc", expr="6*7"), "It is 42."], tools=[make_calc()])
    agent.open("main")
    agent.receive("What is 6*7?")
    assert agent.respond().content == "It is 42."
    assert agent.sessions[0].repairs == 0 and agent.sessions[0].interrupts == 1


def test_open_respond_without_a_user_turn_is_governed_by_the_system_prompt():
    system = Prompt(path="s", prompt="Say <answer>yes</answer>.", parser=DefaultTagParser(required_xml_tags=["answer"]))
    agent = Agent("a", system, ScriptedInvoker(["no", "<answer>yes</answer>"]))
    agent.open("main")
    assert agent.respond().parsed["xml_tags"]["answer"] == ["yes"]


def test_respond_on_a_dialog_that_was_never_opened_names_it():
    agent = agent_with(["hi"])
    with pytest.raises(KeyError, match="no dialog 'main': call open\\('main'\\) first"):
        agent.respond("main")


# ---- a Predictor through the plain-text chat template ---------------------------------------------

def test_a_predictor_speaks_the_text_tool_format():
    brain = ScriptedPredictor(["I will compute.\nAction: calc[17*23]\nObservation: (invented)", "<answer>391</answer>"])
    agent = Agent("solver", Prompt(path="s", prompt="You solve arithmetic.", function_list=[make_calc()]),
                  PredictorInvoker(brain))
    reply = ask(agent, "What is 17*23?")
    assert reply.parsed["xml_tags"]["answer"] == ["391"]
    assert brain.prompts[0] == ("System: You solve arithmetic.\n"
                                'Tools (call one on its own line as Action: name[{"argument": value}]):\n'
                                "- calc(expr: string): Evaluate an arithmetic expression\n"
                                "User: Question: What is 17*23?\n"
                                "Assistant: ")
    assert brain.prompts[1].endswith("Assistant: I will compute.\nAction: calc[{\"expr\": \"17*23\"}]\n"
                                     "Observation: 391\nAssistant: ")
    assert agent.sessions[0].cost.prompt_tokens == len(brain.prompts[0]) + len(brain.prompts[1])


def test_a_malformed_action_line_is_repaired():
    calc = make_calc()
    two_args = Function("mix", "Mix", {"a": {"type": "string"}, "b": {"type": "string"}}, ["a", "b"])
    brain = ScriptedPredictor(["Action: mix[oops]", "<answer>1</answer>"])
    agent = Agent("s", Prompt(path="s", prompt="Go.", function_list=[calc, two_args.bind(lambda a, b: a + b)]),
                  PredictorInvoker(brain))
    ask(agent)
    assert agent.sessions[0].steps[0].error == "Action mix[...] needs a JSON object with ['a', 'b']"


def test_agent_arguments_are_checked():
    with pytest.raises(ValueError, match="max_exception_retry must be a non-negative integer"):
        Agent("a", "hi", ScriptedInvoker(["x"]), max_exception_retry=-1)
    with pytest.raises(TypeError, match="system_prompt must be a Prompt or a string"):
        Agent("a", 42, ScriptedInvoker(["x"]))
