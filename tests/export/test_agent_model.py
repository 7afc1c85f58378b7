"""The agent-tuned TinyLLM's training: the weighted loss against finite differences and against the
story model's loss, the header trick against a full forward, a fixed-seed run that learns the
format, and the export that OnnxBackend and `--predictor tinyllm-agent` open."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from export.agent_build import build
from export.agent_recipe import (AgentSettings, HeaderCachedBackend, chrono_init, make_batch, lexicon, slots_for,
                                 train_agent, vocabulary, weighted_loss_and_grads)
from export.model import Config, NumpyBackend, init_params, loss_and_grads
from lllm.labs.factory.episodes import prompt_header
from lllm.model.generate import BackendPredictor, NumberSlots
from lllm.agents.react import build_prompt, parse_step
from lllm.agents.tools import DEFAULT_TOOLS

TINY = Config(vocab_size=5, embed=3, hidden=4, layers=1, batch=2, window=6, seed=3)


def float64(params):
    return {k: v.astype(np.float64) for k, v in params.items()}


def test_weighted_loss_matches_finite_differences():
    params = float64(init_params(TINY))
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 5, (2, 6)), rng.integers(0, 5, (2, 6))
    w = (rng.random((2, 6)) > 0.4).astype(np.float64)
    state = (rng.standard_normal((1, 2, 4)), rng.standard_normal((1, 2, 4)))
    _, grads = weighted_loss_and_grads(params, TINY, x, y, w, state)
    for key in ("embed", "W_x0", "W_h0", "b0", "W_out"):
        for index in [(0, 0), (1, 2)] if params[key].ndim == 2 else [(1,), (9,)]:
            saved = params[key][index]
            params[key][index] = saved + 1e-6
            up, _ = weighted_loss_and_grads(params, TINY, x, y, w, state)
            params[key][index] = saved - 1e-6
            down, _ = weighted_loss_and_grads(params, TINY, x, y, w, state)
            params[key][index] = saved
            assert abs((up - down) / 2e-6 - grads[key][index]) < 1e-6, (key, index)


def test_weight_one_everywhere_is_the_story_models_loss():
    params = float64(init_params(TINY))
    x = np.array([[0, 1, 2, 3, 4, 0], [4, 3, 2, 1, 0, 4]])
    y = np.roll(x, -1, axis=1)
    ours, our_grads = weighted_loss_and_grads(params, TINY, x, y, np.ones((2, 6)), None)
    theirs, their_grads = loss_and_grads(params, TINY, x, y)
    assert abs(ours - theirs) < 1e-9
    assert all(np.allclose(our_grads[k], their_grads[k]) for k in their_grads)


def test_make_batch_pads_with_zero_weight_and_masks_the_question():
    tok = vocabulary()
    texts = ["Question: 2+2?\nAction: calc[2+2]\nObservation: 4\n", "Question: hi\nFinal Answer: hi\n\n"]
    x, y, w = make_batch(texts, tok)
    assert x.shape == y.shape == w.shape == (2, len(texts[0]) - 1)
    assert tok.decode(y[1][w[1] > 0].tolist()) == "Final Answer: hi\n\n"
    assert w[1, len(texts[1]) - 1:].sum() == 0


def test_chrono_init_spreads_forget_biases_and_mirrors_input_biases():
    cfg = Config(vocab_size=5, embed=3, hidden=50)
    params = init_params(cfg)
    chrono_init(params, cfg, 80, np.random.default_rng(0))
    b_i, b_f = params["b0"][:50], params["b0"][50:100]
    assert np.all(b_f >= 0) and np.all(b_f <= np.log(79)) and b_f.std() > 0.5
    assert np.array_equal(b_i, -b_f)


def test_the_header_cache_gives_the_full_forward():
    settings = AgentSettings(hidden=16, embed=8)
    tok, cfg = vocabulary(), settings.config(96)
    params = init_params(cfg)
    ids = tok.encode(build_prompt("What is 2+2?", DEFAULT_TOOLS, []))
    cached, _ = HeaderCachedBackend(params, cfg, tok.encode(prompt_header()))(ids, None)
    full, _ = NumpyBackend(params, cfg)(ids, None)
    assert np.max(np.abs(np.array(cached) - np.array(full))) < 1e-5


def test_a_small_fixed_seed_run_learns_the_format():
    """A behaviour test: ~30 s of training from scratch on the plain grammar (no structure noise, the
    factory's own mix), without the header, and the model already
    writes the ReAct format (a Thought line, then an Action or a Final Answer) for new goals."""
    settings = AgentSettings(hidden=48, embed=16, steps=800, lr=2e-2, warmup=20, checkpoints=0, reshape=0.0, echo_extra=0,
                             header=False, seed=1)
    params, history = train_agent(settings, progress=False)
    assert np.mean(history["loss"][-20:]) < 0.5 * np.mean(history["loss"][:20])
    tok = vocabulary()
    predictor = BackendPredictor(HeaderCachedBackend(params, settings.config(len(tok)), []), tok,
                                 temperature=0, max_new_tokens=80, stop=("Observation:", "\n\n"),
                                 number_slots=slots_for(settings))   # it reads numbers and words as it was trained
    replies = [predictor(f"Question: {goal}\n") for goal in
               ("What is 31 plus 25?", "Compute 7 * 8.", "Tell me about Tom.", "Say the word tiger.")]
    assert all(reply.startswith("Thought: ") for reply in replies), replies
    steps = [parse_step(reply) for reply in replies]
    assert sum(1 for s in steps if s.action or s.final is not None) >= 3, replies


def test_build_writes_a_card_that_onnx_backend_opens_and_reuses_it(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    from lllm.predictors import make_predictor
    from lllm.model.onnx_backend import OnnxBackend
    settings = AgentSettings(hidden=8, embed=4, steps=2, batch=2, checkpoints=0)
    path = build(settings, tmp_path, progress=False)
    card = json.loads((tmp_path / "tinyllm-agent.json").read_text())
    assert card["format"] == "lllm.tinyllm/1" and card["metrics"]["steps"] == 2
    backend = OnnxBackend(str(path))
    assert backend.vocab_size == 96 and backend.tokenizer.vocab == vocabulary().vocab
    predictor = make_predictor(f"tinyllm-agent:{path}")
    assert predictor.temperature == 0 and predictor.stop == ("Observation:", "\n\n")
    assert card["reads_from"] == predictor.reads_from == "Question: "
    slots = card["number_slots"]
    assert (slots["mark"], slots["own_lines"], slots["word_mark"]) == ("#", ["Thought:", "Action:", "Final Answer:"], "@")
    assert slots["lexicon"] == sorted(lexicon()) and predictor.number_slots == slots_for(settings)
    assert isinstance(predictor("Question: hi\n", 5), str)
    full = build_prompt("What is 2+2?", DEFAULT_TOOLS, [])         # header + question: the model
    assert predictor(full, 12) == predictor("Question: What is 2+2?\n", 12)   # reads the question on
    capsys.readouterr()
    build(settings, tmp_path, progress=False)
    assert capsys.readouterr().out.startswith("reusing")


def test_a_missing_agent_model_is_a_clear_error(tmp_path):
    from lllm.predictors import make_predictor
    with pytest.raises(ValueError, match="--predictor tinyllm-agent: .*make agent-model"):
        make_predictor(f"tinyllm-agent:{tmp_path / 'none.onnx'}")


def test_checkpoints_are_validated_and_the_best_is_handed_on():
    from lllm.labs.factory.tasks import make_suite
    seen = []
    settings = AgentSettings(hidden=8, embed=4, steps=4, batch=2, checkpoints=2)
    params, history = train_agent(settings, progress=False, validation=make_suite("validation", 1)[:2],
                                  on_best=lambda p, h: seen.append(len(h["loss"])))
    assert [step for step, _ in history["validation"]] == [2, 4]
    assert seen[0] == 2 and all(0.0 <= score <= 1.0 for _, score in history["validation"])
    assert set(params) == {"embed", "W_x0", "W_h0", "b0", "W_out", "b_out"}


def test_the_weights_moving_average_is_scored_from_halfway_and_kept_on_a_tie():
    """From halfway on, each check also scores the moving average; ties go to the later candidate,
    the average. With decay 1.0 the average is the weights of the first update past halfway, so
    the kept weights are those, not the last; with ema=0 there is no average."""
    import numpy as np
    from lllm.labs.factory.tasks import make_suite
    validation = make_suite("validation", 1)[:2]
    runs = {}
    for ema in (0.0, 1.0):
        settings = AgentSettings(hidden=8, embed=4, steps=6, batch=2, checkpoints=3, ema=ema)
        runs[ema] = train_agent(settings, progress=False, validation=validation)
    assert [step for step, _ in runs[0.0][1]["validation"]] == [2, 4, 6] == [s for s, _ in runs[1.0][1]["validation"]]
    assert runs[0.0][1]["validation_average"] == [] and [s for s, _ in runs[1.0][1]["validation_average"]] == [4, 6]
    assert all(score == 0.0 for _, score in runs[1.0][1]["validation"] + runs[1.0][1]["validation_average"])
    assert runs[0.0][1]["loss"] == runs[1.0][1]["loss"]           # the average never changes training
    assert not np.array_equal(runs[0.0][0]["W_out"], runs[1.0][0]["W_out"])


def test_two_seeds_train_side_by_side_and_the_better_one_is_kept(monkeypatch):
    from export import agent_build
    from export.agent_build import train_seeds
    monkeypatch.setattr(agent_build, "validation_suite",
                        lambda: __import__("lllm.labs.factory.tasks").labs.factory.tasks.make_suite("validation", 1)[:2])
    settings = AgentSettings(hidden=8, embed=4, steps=2, batch=2, checkpoints=1, seed=5)
    params, history = train_seeds(settings, 2, progress=False)
    scores = history["seed_scores"]
    assert sorted(scores) == [5, 6] and history["seed"] in (5, 6)
    assert scores[history["seed"]] == max(scores.values())
    assert set(params) == {"embed", "W_x0", "W_h0", "b0", "W_out", "b_out"}


def test_a_card_with_a_bad_reads_from_is_refused(tmp_path):
    from lllm.model.onnx_backend import ModelError, load_card
    card = {"format": "lllm.tinyllm/1", "vocab": "ab", "config": {"layers": 1, "hidden": 4},
            "onnx_sha256": "0", "reads_from": ""}
    (tmp_path / "m.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match="reads_from must be a non-empty string"):
        load_card(str(tmp_path / "m.json"))


@pytest.mark.parametrize("number_slots, message", [
    ({"mark": "5", "own_lines": ["Thought:"]}, "number_slots.mark must be one character other than a letter, a digit"),
    ({"mark": "#"}, "number_slots must be an object with exactly the fields mark and own_lines"),
    ({"mark": "#", "own_lines": []}, "number_slots.own_lines must be a non-empty list"),
    ({"mark": "§", "own_lines": ["Thought:"]}, "number_slots.mark '§' is not in the model's vocabulary"),
])
def test_a_card_with_a_bad_number_slots_is_refused(tmp_path, number_slots, message):
    from lllm.model.onnx_backend import ModelError, load_card
    card = {"format": "lllm.tinyllm/1", "vocab": "ab#", "config": {"layers": 1, "hidden": 4},
            "onnx_sha256": "0", "number_slots": number_slots}
    (tmp_path / "m.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match=f"m.json: {message}"):
        load_card(str(tmp_path / "m.json"))


class Replay:
    """A backend that writes a masked training episode back, character by character, and checks that
    every prompt the predictor feeds it is the start of that episode (what the model was trained on)."""

    def __init__(self, episode: str, tok):
        self.episode, self.tok, self.vocab_size = episode, tok, len(tok)

    def __call__(self, ids, state):
        read = (state or "") + self.tok.decode(list(ids))
        assert self.episode.startswith(read), (read, self.episode)
        favourite = self.tok.encode(self.episode[len(read)])[0]
        return [9.0 if i == favourite else 0.0 for i in range(self.vocab_size)], read


def test_training_masks_numbers_exactly_as_the_predictor_does():
    """The oracle for number slots: for factory episodes of every family (40% reshaped, as in
    training), a predictor with the card's number slots, over a backend that replays the masked
    episode, reads only prefixes of that episode and runs the same trajectory the teacher did."""
    import random
    from export.agent_recipe import READS_FROM, fresh_episodes
    from lllm.agents.react import run_react
    NUMBER_SLOTS = slots_for(AgentSettings())
    tok, rng = vocabulary(), random.Random(7)
    texts = [t for _ in range(40) for t in fresh_episodes(rng, 2, 0.4, echo_extra=2)]
    assert sum("#" in NUMBER_SLOTS.mask(t)[0] for t in texts) > len(texts) / 2
    assert sum("Final Answer: @1\n" in NUMBER_SLOTS.mask(t)[0] for t in texts) >= 4     # echoes copy a word slot
    for text in texts:
        masked = NUMBER_SLOTS.mask(text)[0]
        predictor = BackendPredictor(Replay(masked, tok), tok, temperature=0, max_new_tokens=200,
                                     stop=("Observation:", "\n\n"), reads_from=READS_FROM, number_slots=NUMBER_SLOTS)
        goal = text[len("Question: "):text.index("\n")]
        assert run_react(goal, predictor, max_steps=4, return_trajectory=True).render() + "\n\n" == text


def test_number_slots_need_episodes_without_the_header():
    with pytest.raises(ValueError, match="number_slots needs header=False"):
        train_agent(AgentSettings(hidden=8, embed=4, steps=1, batch=2, header=True), progress=False)


def test_the_built_agent_model_calls_the_right_tool_on_its_own():
    """A behaviour check of `make agent-model`'s model (not an accuracy target): greedy, no forcing,
    on held-out goals it never saw, it calls calc for sums and lookup for facts."""
    from lllm.predictors import make_predictor
    from lllm.labs.factory.tasks import make_suite
    from lllm.agents.react import run_react
    from support.model_files import require_agent_model
    predictor = make_predictor(f"tinyllm-agent:{require_agent_model()}")
    tasks = [t for t in make_suite("test", per_group=3) if t.tool and t.phrasing == "seen"]
    tools = [[name for name, _ in run_react(t.goal, predictor, return_trajectory=True).tool_calls()]
             for t in tasks]
    right = sum(t.tool in called for t, called in zip(tasks, tools))
    assert right >= len(tasks) - 1, list(zip([t.goal for t in tasks], tools))


def test_a_factory_corpus_trains_and_is_named_in_the_card(tmp_path):
    from lllm.labs.factory.episodes import load_corpus
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Question: What is 2 + 3?\nThought: compute 2 + 3\nAction: calc[2 + 3]\nObservation: 5\n"
                      "Final Answer: 5\n\nQuestion: Say apple.\nThought: repeat apple\nFinal Answer: apple\n\n")
    settings = AgentSettings(hidden=8, embed=4, steps=3, batch=2, checkpoints=0)
    build(settings, tmp_path, progress=False, corpus=load_corpus(str(corpus)))
    card = json.loads((tmp_path / "tinyllm-agent.json").read_text())
    assert card["data"] == "a factory corpus of 2 episodes" and card["metrics"]["steps"] == 3


@pytest.mark.parametrize("text, message", [
    ("", "the corpus is empty"),
    ("Hello there\n\n", "episode 1 is not a trajectory"),
    ("Question: hi\tthere\nFinal Answer: x\n\n", "episode 1 has characters outside TinyLLM's vocabulary: '\\t'"),
])
def test_a_bad_corpus_is_a_one_line_error(tmp_path, capsys, text, message):
    from export.agent_build import main
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text)
    with pytest.raises(SystemExit) as exit_:
        main(["--out", str(tmp_path / "out"), "--corpus", str(corpus)])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and len(err.splitlines()) == 1 and message in err, err
    assert not (tmp_path / "out").exists()


# ---- the committed model: up to date, reproducible, used instead of a 35-minute training ----------

def test_the_committed_agent_model_is_up_to_date_with_its_sources():
    """export/trained/ holds the full recipe's result; a change to its sources must retrain and
    recommit it (`make agent-model-commit`), or every build would silently train for ~35 min."""
    from export.agent_build import COMMITTED, SEEDS, build_key, kernels, up_to_date
    assert up_to_date(COMMITTED, build_key(AgentSettings(), SEEDS)), (
        "export/trained/ is out of date with the agent model's sources: run `make agent-model-commit` "
        "(~35 min on two cores) and commit export/trained/")
    card = json.loads((COMMITTED / "tinyllm-agent.json").read_text())
    assert card["agent"] == {**AgentSettings().__dict__, "seed": 0} and card["seeds"] == SEEDS
    assert card["seed"] == 0 and len(card["data_sha256"]) == 64
    assert [m["seed"] for m in card["ensemble"]["members"]] == list(range(SEEDS))     # every seed, none chosen
    assert card["config"]["hidden"] == SEEDS * card["ensemble"]["hidden"] == SEEDS * AgentSettings().hidden
    assert set(card["kernels"]) == set(kernels()) and (COMMITTED / "tinyllm-agent.onnx").stat().st_size < 3_000_000
    assert card["kernels"]["openblas_coretype"] == "Haswell"           # the kernel it was trained with


def test_importing_export_pins_openblas_before_numpy_loads():
    """Which OpenBLAS kernels run decides the trained bits: `python -m export.X` pins one thread
    and (on x86-64) the Haswell kernels when the shell sets neither; a shell's own choice wins."""
    import platform
    import subprocess
    import sys
    code = ("import os, export, numpy; "
            "print(os.environ.get('OPENBLAS_NUM_THREADS'), os.environ.get('OPENBLAS_CORETYPE'))")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}

    def pinned(env):
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              check=True, cwd=Path(__file__).resolve().parents[2]).stdout.split()
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    assert pinned(clean) == ["1", "Haswell" if x86 else "None"]
    assert pinned(clean | {"OPENBLAS_CORETYPE": "Zen"}) == ["1", "Zen"]


def test_a_build_whose_key_matches_the_committed_card_copies_it(tmp_path, capsys):
    from export.agent_build import COMMITTED
    from export.agent_build import SEEDS
    build(AgentSettings(), tmp_path, progress=False, seeds=SEEDS)
    assert "the committed model" in capsys.readouterr().out
    for name in ("tinyllm-agent.onnx", "tinyllm-agent.json"):
        assert (tmp_path / name).read_bytes() == (COMMITTED / name).read_bytes()


def test_the_full_recipe_shortened_trains_twice_to_the_same_bits(tmp_path):
    """`make test` proves the pipeline `make agent-model` runs: the real recipe (sizes, mask, chrono
    init, fresh episodes; checkpoints are tested above), 30 updates, twice: the same ONNX bytes
    and data hash."""
    from dataclasses import replace
    settings = replace(AgentSettings(), steps=30, warmup=5, checkpoints=0)
    cards = []
    for run in ("a", "b"):
        build(settings, tmp_path / run, progress=False)
        cards.append(json.loads((tmp_path / run / "tinyllm-agent.json").read_text()))
    assert cards[0]["onnx_sha256"] == cards[1]["onnx_sha256"] and cards[0]["data_sha256"] == cards[1]["data_sha256"]
    assert cards[0]["metrics"]["steps"] == 30 and cards[0]["parameters"] == 154368
    assert (tmp_path / "a" / "tinyllm-agent.onnx").read_bytes() == (tmp_path / "b" / "tinyllm-agent.onnx").read_bytes()


def test_verify_says_when_a_model_is_not_the_committed_one(tmp_path, capsys, monkeypatch):
    from export import agent_build
    from export.agent_build import main
    monkeypatch.setattr(agent_build, "validation_suite", lambda: [])      # no checkpoints: fast
    code = main(["--out", str(tmp_path), "--steps", "2", "--seeds", "1", "--verify"])
    out = capsys.readouterr().out
    assert code == 1 and "differs from the committed model" in out and "build_key" in out, out


def test_several_seeds_kept_all_are_one_ensemble_that_the_predictors_open(tmp_path, monkeypatch):
    """keep="all": every seed's weights in one graph (the state is the members' side by side), its
    card scored on the same validation goals as the seeds; OnnxBackend and the predictor open it."""
    pytest.importorskip("onnxruntime")
    from export import agent_build
    from export.agent_build import build_key
    from lllm.labs.factory.tasks import make_suite
    from lllm.model.onnx_backend import OnnxBackend
    from lllm.predictors import make_predictor
    monkeypatch.setattr(agent_build, "validation_suite", lambda: make_suite("validation", 1)[:2])
    settings = AgentSettings(hidden=8, embed=4, steps=2, batch=2, checkpoints=1)
    path = build(settings, tmp_path, progress=False, seeds=2, weights="float32")
    card = json.loads((tmp_path / "tinyllm-agent.json").read_text())
    assert card["config"]["hidden"] == 16 and card["ensemble"]["hidden"] == 8 and card["ensemble"]["weights"] == "float32"
    assert [m["seed"] for m in card["ensemble"]["members"]] == [0, 1] and card["metrics"]["seed_scores"].keys() == {"0", "1"}
    assert [step for step, _ in card["metrics"]["validation"]] == [2] and card["parameters"] == 2 * 4 * 96 + 2 * (
        4 * 32 + 8 * 32 + 32 + 8 * 96 + 96)
    assert OnnxBackend(str(path)).hidden == 16
    assert isinstance(make_predictor(f"tinyllm-agent:{path}")("Question: What is 2 + 3?\n", 8), str)
    keys = {build_key(settings, 2, keep=keep, weights=w) for keep in ("all", "best") for w in ("int8", "float32")}
    assert len(keys) == 4 and build_key(settings, 1, keep="all") == build_key(settings, 1, keep="best")


@pytest.mark.parametrize("args, message", [
    (["--verify", "--commit"], "--verify and --commit exclude each other"),
    (["--keep", "some"], "argument --keep: invalid choice: 'some'"),
    (["--weights", "int4"], "argument --weights: invalid choice: 'int4'"),
    (["--out", "@committed"], "is the committed model's folder"),
])
def test_misused_options_are_a_one_line_error(capsys, args, message):
    from export.agent_build import COMMITTED, main
    with pytest.raises(SystemExit) as exit_:
        main([str(COMMITTED) if arg == "@committed" else arg for arg in args])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and message in err, err


def test_the_lexicon_holds_trainings_words_and_no_word_to_copy():
    """Word slots stand for words training never uses for their meaning: the lexicon has the
    operation words, names and topics of training episodes, and none of the made-up echo words."""
    from lllm.labs.factory.tasks import MADE_UP_WORDS
    words = lexicon()
    assert {"plus", "minus", "times", "lookup", "calc", "question", "tom", "shells", "deduct"} <= words
    assert not words & set(MADE_UP_WORDS)
    assert "reduce" not in words          # only the grammar's held-out templates say it
    assert lexicon() is words and all(w == w.lower() and w.isalpha() for w in words)
