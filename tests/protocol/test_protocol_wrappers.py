"""ProxyTactic and SandboxedTactic as a learner uses them: watch a call, limit a call, serve the result."""

import asyncio
import time

import pytest

from lllm import CallContext, InMemoryProxyLog, ProxyTactic, SandboxedTactic, SandboxLimitError, SandboxTimeoutError
from lllm.protocol.tactic import Tactic
from lllm.runtimes.function_tactic import as_tactic
from lllm.services import create_tactic_app
from support.own_thread import own_thread


def shout(text: str) -> str:
    """Shout the text back."""
    if text == "boom":
        raise RuntimeError("the tactic broke")
    return text.upper()


class Sleepy(Tactic[float, str]):
    name = "sleepy"
    input_type, output_type = float, str

    def _run(self, seconds, *, context=None):
        time.sleep(seconds)
        return "awake"


# ---- the proxy ---------------------------------------------------------------------------------------------

@own_thread
def test_a_proxy_records_each_call_and_can_reshape_it():
    log = InMemoryProxyLog()
    proxy = ProxyTactic(as_tactic(shout), before=lambda text, ctx: text.strip(), after=lambda out, ctx: out + "!",
                        sink=log.append, capture_inputs=True, capture_outputs=True, metadata={"team": "docs"})
    assert proxy.run("  hi  ", context=CallContext(request_id="r1")) == "HI!"
    record = log.records[0]
    assert (record.request_id, record.proxy, record.tactic, record.state) == ("r1", "shout_proxy", "shout", "success")
    assert (record.input_value, record.output_value, record.metadata["proxy"]) == ("hi", "HI!", {"team": "docs"})
    assert record.latency_ms >= 0


@own_thread
def test_a_proxy_records_a_failure_and_raises_it_again():
    log = InMemoryProxyLog()
    with pytest.raises(RuntimeError, match="the tactic broke"):
        ProxyTactic(as_tactic(shout), sink=log.append).run("boom")
    assert (log.records[0].state, log.records[0].error_type, log.records[0].input_value) == \
        ("failure", "RuntimeError", None)            # inputs are kept only when asked to


@own_thread
def test_a_proxy_refuses_a_flag_that_is_not_a_bool():
    with pytest.raises(TypeError, match="capture_inputs must be True or False, got 'yes'"):
        ProxyTactic(as_tactic(shout), capture_inputs="yes")


# ---- the sandbox -------------------------------------------------------------------------------------------------

@own_thread
def test_a_sandbox_limits_sizes_and_metadata_keys():
    safe = SandboxedTactic(as_tactic(shout), policy={"max_input_bytes": 10, "allowed_metadata_keys": ["tenant"]})
    assert safe.run("hi", context=CallContext(metadata={"tenant": "a"})) == "HI"
    with pytest.raises(SandboxLimitError, match="the input is 12 bytes of JSON; the policy allows 10"):
        safe.run("0123456789")
    with pytest.raises(SandboxLimitError, match=r"metadata key\(s\) \['token'\] not allowed"):
        safe.run("hi", context=CallContext(metadata={"token": "x"}))


@own_thread
def test_a_sandbox_timeout_stops_waiting_for_a_sync_tactic():
    safe = SandboxedTactic(Sleepy(), policy={"timeout_seconds": 0.1})
    start = time.monotonic()
    with pytest.raises(SandboxTimeoutError, match=r"sleepy_sandbox: timeout after 0.1 s"):
        safe.run(2.0)
    assert time.monotonic() - start < 1.5
    assert asyncio.run(safe.arun(0.0)) == "awake"


@own_thread
def test_a_sandboxed_proxy_serves_its_errors_in_the_envelope():
    import httpx
    app = create_tactic_app(SandboxedTactic(ProxyTactic(as_tactic(shout)), policy={"max_output_bytes": 4}))

    async def call():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            return (await client.post("/run", json={"input": "hello"})).json()
    error = asyncio.run(call())["detail"]["error"]
    assert (error["type"], error["tactic"], error["endpoint"]) == ("SandboxLimitError", "shout_proxy_sandbox", "run")
    assert "the output is 7 bytes of JSON; the policy allows 4" in error["message"]
