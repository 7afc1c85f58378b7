"""`python -m lllm serve-model` as a user runs it: a real subprocess on 127.0.0.1, called by real OpenAI clients.

The official `openai` package and LiteLLM (an agent framework's own OpenAI-compatible client)
complete a chat, plain and streamed; the story model gives the same text as `python -m lllm
generate` for the same seed and settings; the ReAct agent answers through the server with the
agent-tuned brain; bad requests are OpenAI-shaped 4xx; CORS lets the site's pages in and keeps
other sites out.
"""

import json
import os
import pathlib
import subprocess
import sys
import time

import httpx
import pytest
from support.runtime import MODEL, cli_generate, free_port

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")      # LiteLLM: no download of its price list

REPO = pathlib.Path(__file__).resolve().parents[2]
AGENT_MODEL = REPO / "build" / "model" / "tinyllm-agent.onnx"
pytestmark = pytest.mark.skipif(not (MODEL.exists() and AGENT_MODEL.exists()),
                                reason="needs build/model/tinyllm.onnx and tinyllm-agent.onnx (make model, make agent-model)")


class ModelServer:
    """`lllm serve-model` in a subprocess on a free loopback port; `stop()` sends SIGTERM."""

    def __init__(self, *options: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lllm", "serve-model", "--port", str(self.port), "--log-level", "warning", *options],
            cwd=REPO, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_until_up(self, timeout: float = 60) -> "ModelServer":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                pytest.fail(f"serve-model exited with {self.process.returncode}:\n{out}\n{err}")
            try:
                httpx.get(self.base + "/v1/models", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        pytest.fail("serve-model did not answer /v1/models in time")

    def stop(self) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        return self.process.returncode, out, err


@pytest.fixture(scope="module")
def server():
    running = ModelServer().wait_until_up()
    yield running
    status, _, err = running.stop()
    assert status == 0, err


@pytest.fixture(scope="module")
def client(server):
    from openai import OpenAI
    return OpenAI(base_url=server.base + "/v1", api_key="not-needed", max_retries=0, timeout=60)


# ---- the official openai package --------------------------------------------------------------------

def test_the_models_are_listed(client):
    assert [m.id for m in client.models.list().data] == ["tinyllm-agent", "tinyllm"]
    assert client.models.retrieve("tinyllm").owned_by == "lllm"


def test_openai_completes_a_chat_with_the_same_text_as_lllm_generate(client):
    reply = client.chat.completions.create(model="tinyllm", messages=[{"role": "user", "content": "Once"}],
                                           seed=7, temperature=0.8, max_tokens=60)
    expected = cli_generate("Once", 60, 0.8, seed=7)["completion"]
    assert reply.choices[0].message.content == expected and len(expected) == 60
    assert reply.choices[0].finish_reason == "length" and reply.choices[0].message.role == "assistant"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (4, 60, 64)


@pytest.mark.parametrize("seed, temperature, top_k, top_p", [(1, 1.0, 0, 1.0), (2, 0.5, 5, 1.0), (3, 1.2, 0, 0.9),
                                                             (4, 0.0, 0, 1.0)])
def test_completions_honour_seed_temperature_top_k_and_top_p(client, seed, temperature, top_k, top_p):
    reply = client.completions.create(model="tinyllm", prompt="The fox", seed=seed, temperature=temperature,
                                      top_p=top_p, max_tokens=40, extra_body={"top_k": top_k})
    assert reply.choices[0].text == cli_generate("The fox", 40, temperature, top_k, top_p, seed)["completion"]


def test_another_seed_gives_another_text(client):
    texts = {client.completions.create(model="tinyllm", prompt="Once", seed=s, temperature=1.0,
                                       max_tokens=80).choices[0].text for s in (1, 2, 3, 4)}
    assert len(texts) > 1      # the story model knows its stories well: some seeds may agree


def test_a_stop_string_ends_the_text_and_is_not_returned(client):
    whole = cli_generate("Once", 80, 0.8, seed=5)["completion"]
    stop = whole[20:23]
    reply = client.completions.create(model="tinyllm", prompt="Once", seed=5, max_tokens=80, stop=[stop])
    assert reply.choices[0].text == whole[:whole.index(stop)]
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.completion_tokens == whole.index(stop) + len(stop)      # the model wrote the stop string


def test_openai_streams_a_chat_that_adds_up_to_the_plain_answer(client):
    settings = dict(model="tinyllm", messages=[{"role": "user", "content": "Once"}], seed=11, max_tokens=50)
    plain = client.chat.completions.create(**settings).choices[0].message.content
    chunks = list(client.chat.completions.create(**settings, stream=True, stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [c.choices[0].delta.content or "" for c in chunks if c.choices]
    assert "".join(pieces) == plain and len([p for p in pieces if p]) > 10     # written as it goes, not at once
    finals = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finals == ["length"]
    assert chunks[-1].usage.completion_tokens == 50 and chunks[-1].choices == []


def test_the_agent_models_stream_puts_the_numbers_back_as_its_answer_does(client):
    prompt = "Question: What is 48 plus 17?\n"
    settings = dict(model="tinyllm-agent", prompt=prompt, max_tokens=120, stop=["Observation:"])
    plain = client.completions.create(**settings).choices[0].text
    streamed = "".join(c.choices[0].text for c in client.completions.create(**settings, stream=True))
    assert "48" in plain and "17" in plain and "#" not in plain
    assert streamed == plain


# ---- an agent framework's own client: LiteLLM ---------------------------------------------------------

def test_litellm_completes_a_chat_plain_and_streamed(server):
    import litellm
    settings = dict(model="openai/tinyllm", api_base=server.base + "/v1", api_key="not-needed",
                    messages=[{"role": "user", "content": "Once"}], seed=3, temperature=0.8, max_tokens=40)
    plain = litellm.completion(**settings).choices[0].message.content
    assert plain == cli_generate("Once", 40, 0.8, seed=3)["completion"]
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in litellm.completion(**settings, stream=True))
    assert streamed == plain


# ---- the ReAct agent through the server ---------------------------------------------------------------

def test_the_react_agent_answers_through_the_server_with_the_agent_brain(server):
    done = subprocess.run([sys.executable, "-m", "lllm", "react", "What is 17 * 23?", "--predictor", server.base,
                           "--json"], cwd=REPO, capture_output=True, text=True, timeout=300)
    trajectory = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert trajectory["answer"] == "391"
    assert any("calc[17 * 23]" in json.dumps(step) for step in trajectory["steps"])
