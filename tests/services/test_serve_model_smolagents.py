"""smolagents' ToolCallingAgent against `python -m lllm serve-model`, through its OpenAI-compatible model class.

Beside the openai, Pydantic AI and LiteLLM loops (test_serve_model_tools.py): a real subprocess on
127.0.0.1, the agent-tuned TinyLLM, a `calc` tool run by the agent in this process. smolagents
differs from those three in two ways the server's chat template handles (lllm/services/toolcalls.py):
it sends its calls and their results back as text (`Calling tools: [...]` from the assistant,
`Observation: ...` from the user), and an agent ends only by calling its `final_answer` tool, which
the model's `Final Answer: 391` becomes. Without that, the same run never answers (checked by hand).
"""

import pytest
from support.model_server import AGENT_MODEL, running_server

from lllm.agents.calc import calc as run_calc
from lllm.services.toolcalls import parse_reply, read_tools, text_calls, tool_prompt

pytest.importorskip("smolagents", reason="needs smolagents (the test extra)")
GOAL = "What is 17 * 23?"
FINAL_ANSWER = {"type": "function", "function": {"name": "final_answer", "description": "Provides a final answer.",
                "parameters": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}}}
CALC = {"type": "function", "function": {"name": "calc", "description": "arithmetic",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}


@pytest.fixture(scope="module")
def server():
    if not AGENT_MODEL.exists():
        pytest.skip("needs build/model/tinyllm-agent.onnx (make agent-model)")
    yield from running_server("--models", "tinyllm-agent")


def test_a_final_answer_is_a_call_of_the_requests_final_answer_tool_and_plain_text_without_one():
    tools = read_tools([CALC, FINAL_ANSWER])
    reply = parse_reply("Final Answer: 391", tools, "required", call_id="call_1")
    assert reply.content is None and reply.tool_call["function"] == {"name": "final_answer", "arguments": '{"answer": "391"}'}
    assert parse_reply("Final Answer: 391", read_tools([CALC])).content == "391"
    assert parse_reply("Final Answer: 391", tools, "none").content == "391"


def test_smolagents_flattened_history_reads_as_react_lines():
    messages = [{"role": "system", "content": "You are an expert assistant."},
                {"role": "user", "content": [{"type": "text", "text": f"New task:\n{GOAL}"}]},
                {"role": "assistant", "content": "Calling tools:\n[{'id': 'c1', 'type': 'function', "
                                                 "'function': {'name': 'calc', 'arguments': {'expression': '17 * 23'}}}]"},
                {"role": "user", "content": "Observation:\n391"}]
    prompt = tool_prompt(messages, read_tools([CALC, FINAL_ANSWER]))
    assert prompt.endswith(f"You are an expert assistant.\nQuestion: {GOAL}\nAction: calc[17 * 23]\nObservation: 391\n")
    assert text_calls("Calling tools: not a list") is None and text_calls("391") is None


def test_smolagents_tool_calling_agent_reaches_391(server):
    from smolagents import OpenAIServerModel, Tool, ToolCallingAgent

    class Calc(Tool):
        name, description, output_type = "calc", "arithmetic with + - * / ** and parentheses", "string"
        inputs = {"expression": {"type": "string", "description": "the arithmetic to compute, e.g. 17 * 23"}}

        def forward(self, expression: str) -> str:
            seen.append(expression)
            return run_calc(expression)
    seen = []
    model = OpenAIServerModel(model_id="tinyllm-agent", api_base=server.base + "/v1", api_key="not-needed")
    agent = ToolCallingAgent(tools=[Calc()], model=model, max_steps=4, verbosity_level=0)
    assert agent.run(GOAL) == "391"
    assert seen == ["17 * 23"]
    steps = [step for step in agent.memory.steps if getattr(step, "tool_calls", None)]
    assert [[call.name for call in step.tool_calls] for step in steps] == [["calc"], ["final_answer"]]
