"""PydanticAITactic and tactic_as_tool with a real pydantic_ai.Agent on pydantic-ai's own offline models.

TestModel answers from the output schema, FunctionModel with a function we write: no network, no
key. (Upstream's duck-typed agents are in the peer suite: tests/test_pydantic_ai_adapter.py.)
"""

import asyncio

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from lllm.protocol.context import CallContext
from lllm.runtimes import PydanticAITactic, tactic_as_tool
from lllm.services import create_tactic_app
from support.own_thread import own_thread


class Brief(BaseModel):
    title: str
    bullets: list[str]


def echo(messages, info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(f"echo: {messages[-1].parts[-1].content}")])


async def echo_stream(messages, info: AgentInfo):
    for piece in ["echo", ": ", messages[-1].parts[-1].content]:
        yield piece


ECHO = Agent(FunctionModel(echo, stream_function=echo_stream), name="echo")


@own_thread
def test_a_structured_agent_on_test_model():
    tactic = PydanticAITactic(Agent(TestModel(), output_type=Brief, name="brief"), output_type=Brief)
    assert tactic.run("write a brief") == Brief(title="a", bullets=["a"])
    info = tactic.info()
    assert (info.name, info.runtime_kind, info.output_schema["title"]) == ("brief", "pydantic-ai", "Brief")
    assert tactic.capabilities() == {"run", "arun", "stream"}


@own_thread
def test_a_function_model_runs_sync_async_and_streams():
    tactic = PydanticAITactic(ECHO, input_type=str, output_type=str)
    assert tactic.run("hi", context=CallContext(trace_id="t1")) == "echo: hi"
    assert asyncio.run(tactic.arun("async")) == "echo: async"
    assert list(tactic.stream("hi"))[-1] == "echo: hi"

    async def collect():
        return [item async for item in tactic.astream("yo")]
    assert asyncio.run(collect())[-1] == "echo: yo"


@own_thread
def test_a_pydantic_model_input_reaches_the_agent_as_json():
    seen = []

    def spy(messages, info):
        seen.append(messages[-1].parts[-1].content)
        return ModelResponse(parts=[TextPart("ok")])
    tactic = PydanticAITactic(Agent(FunctionModel(spy)), input_type=Brief, output_type=str)
    assert tactic.run({"title": "t", "bullets": []}) == "ok"
    assert seen == ['{"title":"t","bullets":[]}']


class Pair(BaseModel):
    left: int
    right: int


def add(pair: Pair) -> int:
    """Add two numbers."""
    return pair.left + pair.right


@own_thread
def test_a_tactic_is_a_tool_for_a_pydantic_ai_agent():
    from lllm.runtimes.function_tactic import as_tactic
    tool = tactic_as_tool(as_tactic(add), parameter_mode="kwargs")
    assert (tool.__name__, tool(left=2, right=3), tool.__doc__) == ("add", 5, "Add two numbers.")
    caller = Agent(TestModel(), tools=[tool])              # TestModel calls every tool once, then reports
    assert caller.run_sync("add them").output == '{"add":0}'


@own_thread
def test_the_tactic_serves_over_the_service_api():
    import httpx

    async def call():
        transport = httpx.ASGITransport(app=create_tactic_app(PydanticAITactic(ECHO, input_type=str, output_type=str)))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            ran = (await client.post("/run", json={"input": "hi", "context": {"request_id": "r1"}})).json()
            streamed = (await client.post("/stream", json={"input": "hi"})).text
            return ran, streamed
    ran, streamed = asyncio.run(call())
    assert ran == {"output": "echo: hi", "request_id": "r1", "tactic": "echo"}
    assert '"data": "echo: hi"' in streamed
