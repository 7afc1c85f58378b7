"""lllm/model/inside.py: the inspection trace is the generation, and its draw is the sampler's, step for step."""

import random

import pytest

from lllm.model.inside import InsideModel, draw, position_view, trace, uniform_of_draw
from lllm.model.onnx_backend import ModelError, from_onnx
from lllm.model.sampling import Mulberry32, sample
from support.model_files import MODEL, build_inside_model


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return InsideModel(build_inside_model(tmp_path_factory.mktemp("inside")))


@pytest.mark.parametrize("prompt, seed, knobs", [("Once", 1, (0.8, 0, 1.0)), ("The dog", 7, (1.3, 5, 0.9)),
                                                  ("Once", 3, (0.0, 0, 1.0))])
def test_the_trace_writes_what_generation_writes(model, prompt, seed, knobs):
    temperature, top_k, top_p = knobs
    t = trace(model, prompt, 60, seed, temperature, top_k, top_p)
    expected = from_onnx(MODEL, temperature=temperature, top_k=top_k, top_p=top_p, seed=seed)(prompt, 60)
    assert t.text == prompt + expected
    assert len(t.steps) == len(t.ids) == len(prompt) + 60      # one model run per character


def test_draw_is_the_sampler_with_its_work_shown():
    rnd = random.Random(0)
    for case in range(300):
        logits = [rnd.gauss(0, 3) for _ in range(12)]
        temperature = rnd.choice([0.0, 0.3, 1.0, 2.5])
        top_k, top_p = rnd.choice([0, 1, 3, 20]), rnd.choice([1.0, 0.9, 0.5, 0.05])
        seed = rnd.randrange(2**32)
        expected = sample(logits, temperature, top_k, top_p, Mulberry32(seed))
        u = None if temperature == 0 else Mulberry32(seed).uniform()
        got = draw(logits, temperature, top_k, top_p, u)
        assert got["id"] == expected, case
        assert got["id"] in got["kept"] and (top_k == 0 or len(got["kept"]) <= top_k)
        assert got["total"] == pytest.approx(sum(got["weights"]))


def test_the_uniform_of_draw_d_is_the_seeds_dth_number():
    rng = Mulberry32(42)
    assert [uniform_of_draw(42, d) for d in range(5)] == [rng.uniform() for _ in range(5)]


def test_a_view_redraws_its_position_with_other_knobs_and_never_runs_the_model(model):
    t = trace(model, "Once", 40, 1)
    runs = model.runs
    view = position_view(t, 12)
    assert view["char"] == t.text[12] and view["draw"]["index"] == 12 - 3
    assert view["draw"]["char"] == view["next"]["char"] == t.text[13]      # the generation's own draw
    assert view["draw"]["uniform"] == uniform_of_draw(1, 9)
    assert sum(view["probs"]) == pytest.approx(1)
    assert [len(view["layers"][0][s]) for s in ("input_gate", "forget_gate", "output_gate", "candidate", "cn", "hn")] \
        == [model.hidden] * 6
    sharp = position_view(t, 12, temperature=0.2, top_k=1)
    assert sharp["top"][0][1] > view["top"][0][1] and len(sharp["draw"]["kept"]) == 1
    assert sharp["draw"]["char"] == sharp["top"][0][0] and sharp["logits"] == view["logits"]
    assert model.runs == runs
    prompt_view = position_view(t, 1)
    assert prompt_view["draw"] is None and prompt_view["char"] == "n" and prompt_view["next"] == {"char": "c", "given": True}
    greedy = position_view(t, 3, temperature=0)
    assert greedy["draw"]["uniform"] is None and greedy["probs"].count(1.0) == 1


@pytest.mark.parametrize("position", [-1, 44, 1.5, True])
def test_a_position_outside_the_text_names_the_range(model, position):
    with pytest.raises(ValueError, match=r"between 0 and 43 \(the text has 44 characters\)"):
        position_view(trace(model, "Once", 40, 1), position)


def test_a_missing_or_mismatched_model_is_a_model_error(tmp_path, model):
    with pytest.raises(ModelError, match="not found"):
        InsideModel(str(tmp_path / "none.onnx"))
    with pytest.raises(ModelError, match="not an inspection model card"):
        InsideModel(MODEL)                       # the production model's card is another format


# ---- the agent model: an ensemble, greedy, reading prompts as its predictor does -------------------

from lllm.agents.react import DEFAULT_TOOLS, Step, build_prompt  # noqa: E402
from lllm.predictors.specs import TINYLLM_AGENT_STOP, make_predictor  # noqa: E402
from support.model_files import AGENT_MODEL, build_agent_inside_model  # noqa: E402

AGENT_PROMPTS = [build_prompt("What is 17 * 23?", DEFAULT_TOOLS, []),
                 build_prompt("What is 17 * 23?", DEFAULT_TOOLS,
                              [Step(thought="compute 17 * 23", action=("calc", "17 * 23"), observation="391")]),
                 build_prompt("Who runs the bakery?", DEFAULT_TOOLS, [])]


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    return InsideModel(build_agent_inside_model(tmp_path_factory.mktemp("agent-inside")))


@pytest.mark.parametrize("prompt", AGENT_PROMPTS)
def test_the_agent_trace_writes_what_the_agent_predictor_writes(agent, prompt):
    predictor = make_predictor(f"tinyllm-agent:{AGENT_MODEL}")
    written = predictor(prompt)
    t = trace(agent, prompt, 200, 0, 0.0, stop=TINYLLM_AGENT_STOP)
    assert t.completion == written
    assert t.text == predictor.last.prompt + predictor.last.completion + (predictor.last.stopped_by or "")
    assert t.stopped_by == predictor.last.stopped_by and t.numbers == predictor.last.numbers


def test_an_ensembles_view_shows_every_member_side_by_side_and_a_greedy_draw(agent):
    assert (agent.members, agent.member_hidden, agent.hidden) == (4, 168, 672)
    t = trace(agent, AGENT_PROMPTS[0], 200, 0, 0.0, stop=TINYLLM_AGENT_STOP)
    view = position_view(t, t.prompt_length + 3)
    assert len(view["layers"][0]["hn"]) == 4 * 168 and len(view["embedding"]) == 4 * 32
    assert [m["member"] for m in view["members"]] == [0, 1, 2, 3]
    import math
    average = [sum(m["probs"][i] for m in view["members"]) / 4 for i in range(96)]
    assert max(abs(math.log(max(p, 1e-30)) - z) for p, z in zip(average, view["logits"])) < 1e-3
    assert view["draw"]["greedy"] is True and view["draw"]["uniform"] is None
    assert view["draw"]["char"] == t.text[t.prompt_length + 4] == view["top"][0][0]
    assert view["numbers"] == ["17", "23"]


def test_a_bad_agent_model_is_a_model_error(tmp_path):
    (tmp_path / "tinyllm-agent-inside.onnx").write_bytes(b"not onnx")
    with pytest.raises(ModelError, match="not a valid ONNX model"):
        InsideModel(str(tmp_path / "tinyllm-agent-inside.onnx"))
