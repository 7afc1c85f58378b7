"""Tool calls through `python -m lllm serve-model`: the agent-tuned TinyLLM driven by real clients' tool-calling loops.

A real subprocess on 127.0.0.1. The official `openai` package (plain and streamed), Pydantic AI
(its own agent loop over an OpenAI-compatible provider) and LiteLLM (its client in the loop its
documentation shows) each give the model a `calc` tool, run the calls it makes and reach 391 for
"What is 17 * 23?". The tool runs in the test, as it would in the caller's program: the server
only turns the model's text into calls and the results back into text (lllm/services/toolcalls.py).
Malformed tool requests are OpenAI-shaped 4xx, never a 500.
"""

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from support.model_server import AGENT_MODEL, ModelServer, openai_client, running_server
from support.runtime import MODEL

from lllm.agents.calc import calc as run_calc

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")      # LiteLLM: no download of its price list

pytestmark = pytest.mark.skipif(not (MODEL.exists() and AGENT_MODEL.exists()),
                                reason="needs build/model/tinyllm.onnx and tinyllm-agent.onnx (make model, make agent-model)")

GOAL = "What is 17 * 23?"
CALC = {"type": "function", "function": {
    "name": "calc", "description": "arithmetic with + - * / ** and parentheses",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}


@pytest.fixture(scope="module")
def server():
    yield from running_server()


@pytest.fixture(scope="module")
def client(server):
    return openai_client(server)


def answer_calls(calls) -> list[dict]:
    """The tool messages for `calls`: what the caller's program does with the model's tool calls."""
    return [{"role": "tool", "tool_call_id": call.id,
             "content": run_calc(json.loads(call.function.arguments)["expression"])} for call in calls]


# ---- the official openai package -------------------------------------------------------------------------

def test_openais_tool_calling_loop_reaches_391(client):
    messages, calls_made = [{"role": "user", "content": GOAL}], []
    for _ in range(4):
        reply = client.chat.completions.create(model="tinyllm-agent", messages=messages, tools=[CALC])
        message = reply.choices[0].message
        messages.append(message)
        if not message.tool_calls:
            break
        assert reply.choices[0].finish_reason == "tool_calls"
        calls_made += [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
        messages += answer_calls(message.tool_calls)
    assert calls_made == [("calc", {"expression": "17 * 23"})]
    assert message.content == "391" and reply.choices[0].finish_reason == "stop"
    assert messages[1].content is None and messages[1].model_extra["reasoning_content"] == "compute 17 * 23"


def test_the_thought_goes_round_so_the_model_reads_its_observation_right(client):
    """Without its thought the agent model misreads this observation and looks up the mill."""
    lookup = {"type": "function", "function": {"name": "lookup", "description": "a fact about Brookfield",
                                               "parameters": {"type": "object", "properties": {"topic": {"type": "string"}}}}}
    messages = [{"role": "user", "content": "Who is Pip?"}]
    first = client.chat.completions.create(model="tinyllm-agent", messages=messages, tools=[lookup]).choices[0].message
    assert first.tool_calls[0].function.arguments == '{"topic": "pip"}'
    messages += [first, {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "Pip is Mira's grey cat."}]
    second = client.chat.completions.create(model="tinyllm-agent", messages=messages, tools=[lookup]).choices[0].message
    assert second.content == "Pip is Mira's grey cat." and not second.tool_calls


def test_openais_streamed_tool_calls_add_up_to_the_same_loop(client):
    messages = [{"role": "user", "content": GOAL}]
    for _ in range(4):
        content, thought, calls, finish = "", "", {}, None
        for chunk in client.chat.completions.create(model="tinyllm-agent", messages=messages, tools=[CALC], stream=True):
            delta, finish = chunk.choices[0].delta, chunk.choices[0].finish_reason or finish
            content += delta.content or ""
            thought += (delta.model_extra or {}).get("reasoning_content") or ""
            for part in delta.tool_calls or []:          # what every streaming client does: gather by index
                call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                call["id"] += part.id or ""
                call["name"] += part.function.name or ""
                call["arguments"] += part.function.arguments or ""
        if not calls:
            break
        assert finish == "tool_calls" and len(calls) == 1 and calls[0]["name"] == "calc"
        assert (content, thought) == ("", "compute 17 * 23")
        messages.append({"role": "assistant", "content": None, "reasoning_content": thought, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls.values()]})
        messages.append({"role": "tool", "tool_call_id": calls[0]["id"],
                         "content": run_calc(json.loads(calls[0]["arguments"])["expression"])})
    assert content == "391" and finish == "stop" and len(messages) == 3


def test_tool_choice_for_a_named_tool_gets_a_call_even_where_the_model_would_answer(client):
    done = [{"role": "user", "content": GOAL},
            {"role": "assistant", "content": "compute 17 * 23", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": '{"expression": "17 * 23"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "391"}]
    auto = client.chat.completions.create(model="tinyllm-agent", messages=done, tools=[CALC])
    assert auto.choices[0].message.content == "391" and not auto.choices[0].message.tool_calls
    forced = client.chat.completions.create(model="tinyllm-agent", messages=done, tools=[CALC],
                                            tool_choice={"type": "function", "function": {"name": "calc"}})
    assert forced.choices[0].finish_reason == "tool_calls"
    assert forced.choices[0].message.tool_calls[0].function.name == "calc"
    required = client.chat.completions.create(model="tinyllm-agent", messages=done, tools=[CALC], tool_choice="required")
    assert required.choices[0].finish_reason == "tool_calls"     # a call, though the model had its answer
    assert required.usage.completion_tokens > auto.usage.completion_tokens   # two writes: its answer, then the call


def test_tool_choice_none_gets_text(client):
    reply = client.chat.completions.create(model="tinyllm-agent", messages=[{"role": "user", "content": GOAL}],
                                           tools=[CALC], tool_choice="none")
    assert not reply.choices[0].message.tool_calls and "calc[17 * 23]" in reply.choices[0].message.content


# ---- two frameworks' own loops -----------------------------------------------------------------------------

def in_a_fresh_thread(work):
    """`work()` in a thread of its own, as a reader's script runs it: with no event loop around it. In the
    full run, Playwright's sync API keeps an asyncio loop running in the main thread while a browser
    fixture lives, and Pydantic AI's `run_sync` refuses to start inside a running loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(work).result()


def test_pydantic_ais_agent_loop_reaches_391(server):
    from pydantic_ai import Agent
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    model = OpenAIChatModel("tinyllm-agent", provider=OpenAIProvider(base_url=server.base + "/v1", api_key="not-needed"))
    agent = Agent(model)

    @agent.tool_plain
    def calc(expression: str) -> str:
        """Arithmetic with + - * / ** and parentheses."""
        return run_calc(expression)

    result = in_a_fresh_thread(lambda: agent.run_sync(GOAL))
    calls = [part for message in result.all_messages() for part in message.parts if isinstance(part, ToolCallPart)]
    assert [(c.tool_name, c.args_as_dict()) for c in calls] == [("calc", {"expression": "17 * 23"})]
    assert result.output == "391"

    async def streamed():              # streamed, the thought is a thinking part, not text taken for the answer
        async with agent.run_stream(GOAL) as run:
            return await run.get_output()
    assert in_a_fresh_thread(lambda: asyncio.run(streamed())) == "391"


def test_the_pages_pydantic_ai_example_runs_against_the_server(server, capsys):
    import pathlib
    import re
    page = (pathlib.Path(__file__).resolve().parents[2] / "site" / "agents" / "brains.md").read_text(encoding="utf-8")
    code = re.search(r'```python title="drive it with Pydantic AI"\n(.*?)```', page, re.S).group(1)
    assert "http://127.0.0.1:8080/v1" in code
    in_a_fresh_thread(lambda: exec(compile(code.replace("http://127.0.0.1:8080", server.base), "brains.md", "exec"), {}))
    assert capsys.readouterr().out == "391\n"


def test_litellms_client_in_its_tool_calling_loop_reaches_391(server):
    import litellm
    messages = [{"role": "user", "content": GOAL}]
    for _ in range(4):
        reply = litellm.completion(model="openai/tinyllm-agent", api_base=server.base + "/v1", api_key="not-needed",
                                   messages=messages, tools=[CALC])
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        messages += answer_calls(message.tool_calls)
    assert message.content == "391" and len(messages) == 4


# ---- requests that cannot be used: OpenAI's 4xx, never a 500 ------------------------------------------------

def post(server, **body):
    return httpx.post(server.base + "/v1/chat/completions", timeout=60,
                      json={"model": "tinyllm-agent", "messages": [{"role": "user", "content": GOAL}]} | body)


@pytest.mark.parametrize("body, param", [
    ({"tools": [{"type": "function", "function": {"name": "calc", "parameters": {"type": "objekt"}}}]},
     "tools[0].function.parameters"),
    ({"tools": [{"type": "function", "function": {"name": "calc", "parameters": {"type": "object", "required": "x"}}}]},
     "tools[0].function.parameters"),
    ({"tools": [{"type": "function", "function": {"name": "has space"}}]}, "tools[0].function.name"),
    ({"tools": "calc"}, "tools"),
    ({"tools": [CALC], "tool_choice": "sometimes"}, "tool_choice"),
    ({"tools": [CALC], "tool_choice": {"type": "function", "function": {"name": "weather"}}}, "tool_choice"),
    ({"tool_choice": "auto"}, "tool_choice"),
    ({"tools": [CALC], "messages": [{"role": "user", "content": GOAL}, {"role": "tool", "tool_call_id": "c9",
                                                                        "content": "391"}]}, "messages[1].tool_call_id"),
    ({"tools": [CALC], "messages": [{"role": "user", "content": GOAL}, {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}]}]}, "messages[1]"),
    ({"tools": [CALC], "messages": [{"role": "user", "content": GOAL}, {"role": "assistant", "tool_calls": "calc"}]},
     "messages[1].tool_calls"),
])
def test_malformed_tool_requests_are_openai_shaped_400s_naming_the_field(server, body, param):
    response = post(server, **body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param and error["message"]


def test_a_model_that_cannot_call_tools_refuses_them_with_a_400(server):
    response = post(server, model="tinyllm", tools=[CALC])
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "tools_not_supported"
    assert "tinyllm cannot call tools" in response.json()["error"]["message"]
