"""The OpenAI-compatible protocol without sockets: `OpenAIService.handle` on a small made-up model.

Whatever JSON a client sends, the answer is a 2xx or an OpenAI-shaped 4xx, never an exception;
a stream adds up to the plain answer for any seed and stop strings, with number slots put back;
the chat template is the messages' text in order.
"""

import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from lllm.model.generate import NumberSlots
from lllm.model.tokenizer import CharTokenizer
from lllm.services.openai.service import OpenAIService, RequestError, chat_prompt
from lllm.services.openai.served_model import ServedModel, Settings, settled

VOCAB = "\nab #12:QFinlAswer"


def made_up(ids, state):
    """A deterministic 'model': the logits depend on everything read so far (the state)."""
    state = (state or ()) + tuple(ids)
    rng = random.Random(hash(state))
    return [rng.uniform(-2, 2) for _ in VOCAB], state


MODEL = ServedModel("made-up", made_up, CharTokenizer(VOCAB))
SLOTTED = ServedModel("slotted", made_up, CharTokenizer(VOCAB), number_slots=NumberSlots(), temperature=0.0,
                      ends=("\n\n",))
SERVICE = OpenAIService([MODEL, SLOTTED])


def post(path: str, body) -> tuple[int, object]:
    return SERVICE.handle("POST", path, json.dumps(body).encode())


def frames(chunks) -> list:
    out = [f.decode() for f in chunks.frames()]
    assert out[-1] == "data: [DONE]\n\n" and all(f.startswith("data: ") and f.endswith("\n\n") for f in out)
    return [json.loads(f[6:]) for f in out[:-1]]


# ---- the chat template ------------------------------------------------------------------------------------

def test_one_user_message_is_the_prompt_itself():
    prompt = "Tools: calc\nQuestion: What is 2 + 2?\n"
    assert chat_prompt([{"role": "user", "content": prompt}]) == prompt


def test_messages_are_joined_line_by_line_and_the_last_is_continued():
    messages = [{"role": "system", "content": "Story time."}, {"role": "user", "content": "Tell one.\n"},
                {"role": "assistant", "content": [{"type": "text", "text": "Once"}]}]
    assert chat_prompt(messages) == "Story time.\nTell one.\nOnce"


@pytest.mark.parametrize("messages, param", [([], "messages"), ("hi", "messages"), ([{"role": "wizard", "content": "x"}],
                         "messages[0].role"), ([{"role": "user", "content": 3}], "messages[0].content"),
                         ([{"role": "user", "content": [{"type": "image_url", "image_url": "x"}]}], "messages[0].content")])
def test_messages_a_character_model_cannot_read_are_refused_naming_the_field(messages, param):
    with pytest.raises(RequestError) as caught:
        chat_prompt(messages)
    assert (caught.value.status, caught.value.param) == (400, param)


# ---- answers -----------------------------------------------------------------------------------------------

def test_default_is_the_first_model_and_max_tokens_zero_writes_nothing():
    status, reply = post("/v1/chat/completions", {"model": "default", "messages": [{"role": "user", "content": "ab"}],
                                                  "max_tokens": 0})
    assert status == 200 and reply["model"] == "made-up"
    assert reply["choices"][0]["message"]["content"] == "" and reply["choices"][0]["finish_reason"] == "length"
    assert reply["usage"] == {"prompt_tokens": 2, "completion_tokens": 0, "total_tokens": 2}


def test_characters_outside_the_vocabulary_are_not_counted_as_read():
    status, reply = post("/v1/completions", {"model": "made-up", "prompt": "abé€", "max_tokens": 1})
    assert status == 200 and reply["usage"]["prompt_tokens"] == 2


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), temperature=st.sampled_from([0.0, 0.7, 1.5]),
       stop=st.lists(st.text(alphabet="ab #1\n", min_size=1, max_size=3), max_size=2),
       slotted=st.booleans(), prompt=st.sampled_from(["Question: 12 and 21?\n", "ab", "Q: 2\nAnswer: #"]))
def test_a_stream_adds_up_to_the_plain_answer(seed, temperature, stop, slotted, prompt):
    model = SLOTTED if slotted else MODEL
    options = Settings(max_tokens=40, temperature=temperature, seed=seed, stop=tuple(stop))
    whole = model.run(prompt, options)
    pieces = list(model.stream(prompt, options))
    assert pieces[-1] == whole and "".join(pieces[:-1]) == whole.text


def test_settled_holds_back_a_stop_string_start_and_a_growing_slot():
    assert settled("The end\nObs", ("Observation:",)) == "The end\n"
    assert settled("calc[#1 * #2", (), NumberSlots()) == "calc[#1 * "
    assert settled("calc[#1 * #2]", (), NumberSlots()) == "calc[#1 * #2]"


def test_a_streamed_chat_opens_with_the_role_and_ends_with_the_reason_and_usage():
    status, chunks = post("/v1/chat/completions", {"model": "made-up", "messages": [{"role": "user", "content": "a"}],
                                                   "max_tokens": 5, "stream": True, "seed": 1,
                                                   "stream_options": {"include_usage": True}})
    events = frames(chunks)
    assert status == 200 and events[0]["choices"][0]["delta"]["role"] == "assistant"
    assert events[-2]["choices"][0]["finish_reason"] == "length" and events[-1]["usage"]["completion_tokens"] == 5
    text = "".join(e["choices"][0]["delta"].get("content", "") for e in events if e["choices"])
    assert text == post("/v1/chat/completions", {"model": "made-up", "messages": [{"role": "user", "content": "a"}],
                                                 "max_tokens": 5, "seed": 1})[1]["choices"][0]["message"]["content"]


# ---- never a 500 for what a client sends ------------------------------------------------------------------

FIELDS = ["model", "messages", "prompt", "max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k",
          "seed", "stop", "n", "stream", "stream_options"]
JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(["/v1/chat/completions", "/v1/completions"]),
       body=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=6) | JSON,
       model=st.sampled_from([None, "made-up", "slotted", "default", "gpt-4"]))
def test_any_json_is_answered_with_a_completion_or_an_openai_shaped_4xx(path, body, model):
    if isinstance(body, dict) and model is not None:
        body = {**body, "model": model, "max_tokens": 3} if "max_tokens" not in body else {**body, "model": model}
    status, reply = SERVICE.handle("POST", path, json.dumps(body).encode())
    if status == 200:
        if hasattr(reply, "frames"):
            assert all("error" not in event for event in frames(reply))
        return
    assert status in (400, 404), (status, reply)
    assert set(reply) == {"error"} and set(reply["error"]) == {"message", "type", "param", "code"}
    assert reply["error"]["type"] == "invalid_request_error" and reply["error"]["message"]


@pytest.mark.parametrize("method, path, status, code", [
    ("GET", "/v1/chat/completions", 405, "method_not_allowed"), ("POST", "/v1/models", 405, "method_not_allowed"),
    ("GET", "/v1/nope", 404, "not_found"), ("GET", "/v1/models/gpt-4", 404, "model_not_found")])
def test_wrong_routes_and_methods_are_openai_shaped(method, path, status, code):
    answer, reply = SERVICE.handle(method, path, b"")
    assert (answer, reply["error"]["code"]) == (status, code)


@pytest.mark.parametrize("body", [b"{not json", b"\xff", b"[1]", b"", b"[" * 100_000, b'{"seed": ' + b"9" * 5000 + b"}"])
def test_a_body_that_is_not_a_json_object_is_a_400(body):
    status, reply = SERVICE.handle("POST", "/v1/completions", body)
    assert status == 400 and "JSON" in reply["error"]["message"]


# ---- a client that leaves stops the model --------------------------------------------------------------------

def test_closing_a_stream_stops_the_model_writing():
    import threading
    gate, calls = threading.Semaphore(0), []

    def gated(ids, state):            # one model step per permit the test hands out
        gate.acquire()
        calls.append(len(ids))
        return made_up(ids, state)

    model = ServedModel("gated", gated, CharTokenizer(VOCAB))
    for _ in range(6):
        gate.release()
    stream = model.stream("ab", Settings(max_tokens=4000, temperature=1.0, seed=1))
    first = next(stream)
    assert isinstance(first, str) and first
    stream.close()
    workers = [t for t in threading.enumerate() if t.name == "serve-gated"]
    for _ in range(10):
        gate.release()                # let a step in flight finish: the next one sees the client gone
    for worker in workers:
        worker.join(timeout=60)
    assert workers and not any(w.is_alive() for w in workers)
    assert len(calls) < 20            # of 4000 steps


def test_a_prompt_longer_than_the_server_reads_is_a_400():
    status, reply = post("/v1/completions", {"model": "made-up", "prompt": "a" * 100_001})
    assert status == 400 and reply["error"]["param"] == "prompt" and "100001 characters" in reply["error"]["message"]


def test_a_model_that_fails_is_a_500_in_openais_shape_not_a_crash():
    def broken(ids, state):
        raise RuntimeError("onnxruntime fell over")
    service = OpenAIService([ServedModel("broken", broken, CharTokenizer(VOCAB))])
    status, reply = service.handle("POST", "/v1/completions", b'{"model": "broken", "prompt": "a"}')
    assert status == 500 and reply["error"]["type"] == "server_error" and "fell over" in reply["error"]["message"]
    status, chunks = service.handle("POST", "/v1/completions", b'{"model": "broken", "prompt": "a", "stream": true}')
    assert status == 200 and frames(chunks)[-1]["error"]["type"] == "server_error"
