"""The simulated Game of 24 model (lllm/predictors/standins/game24.py): an honest, seeded stand-in."""

import pytest

from lllm.predictors.contract import Predictor
from lllm.reasoning import Agent, CoT, Game24, IO
from lllm.predictors.standins.game24_arithmetic import apply_step, check_answer, good_moves
from lllm.predictors.standins.game24 import SimulatedModel
from lllm.model.sampling import Mulberry32

env = Game24()
PROMPTER = env.prompter


def test_docstring_example():
    model = SimulatedModel(error_rate=0.0, rng=Mulberry32(1))
    assert model("...\nInput: 4 6 12\nEvaluation:") == " sure"
    assert model("...\nInput: 1 1 1\nEvaluation:") == " impossible"
    assert isinstance(model, Predictor)


def test_it_reads_the_goal_not_the_examples():
    model = SimulatedModel(error_rate=0.0, rng=Mulberry32(1))
    root = env.reset(1196)                                             # 2 2 9 12
    step = model(PROMPTER.act(root)).strip()
    assert step in good_moves([2, 2, 9, 12])                          # not the few-shot "4 + 8 = 12"
    answer = model(PROMPTER.io(root))
    assert check_answer([2, 2, 9, 12], answer) == (True, answer.strip())


def test_a_perfect_model_solves_with_io_and_cot():
    for framework in (IO(), CoT()):
        framework.initialize(Agent(SimulatedModel(0.0, Mulberry32(5))), env)
        assert all(framework.run(i).verification.correct for i in range(900, 910))


def test_a_hopeless_model_always_claims_24_and_is_caught():
    framework = IO()
    framework.initialize(Agent(SimulatedModel(1.0, Mulberry32(5))), env)
    results = [framework.run(i) for i in range(900, 920)]
    assert all(r.state.steps[-1].endswith("= 24") for r in results)
    assert sum(r.verification.correct for r in results) <= 2


def test_propose_lists_distinct_steps_drawn_like_single_steps():
    perfect = SimulatedModel(0.0, Mulberry32(2))
    lines = perfect(PROMPTER.propose(env.reset(1196))).strip().splitlines()
    assert sorted(lines) == sorted(good_moves([2, 2, 9, 12]))          # every good step, nothing else
    sloppy = SimulatedModel(1.0, Mulberry32(2))
    lines = sloppy(PROMPTER.propose(env.reset(1196))).strip().splitlines()
    assert len(lines) == len(set(lines)) == 8
    rejected = [line for line in lines if apply_step([2, 2, 9, 12], line)[0] is None]
    assert rejected and all(" is " in apply_step([2, 2, 9, 12], line)[1] for line in rejected)  # slips


def test_errors_happen_at_the_set_rate():
    model = SimulatedModel(0.5, Mulberry32(7))
    prompt = PROMPTER.act(env.reset(1196))
    good = set(good_moves([2, 2, 9, 12]))
    hits = sum(model(prompt).strip() in good for _ in range(400))
    assert 190 < hits < 280                                          # 0.5 + 0.5 * (chance a random step is good)


def test_lessons_steer_it_away_and_reflection_names_the_first_step():
    model = SimulatedModel(0.0, Mulberry32(1))
    state = env.reset(1196)
    lesson = model("You tried ...\nAttempt:\n2 + 2 = 4 (left: 4 9 12)\nAnswer: x\nFeedback: no\nLesson:")
    assert lesson == " Avoid starting with 2 + 2 = 4 (left: 4 9 12)."
    banned = state.__class__(state.puzzle, state.current_state, reflexions=(lesson.strip(),))
    assert all(model(PROMPTER.act(banned)).strip() != "2 + 2 = 4 (left: 4 9 12)" for _ in range(30))


def test_same_seed_same_replies_and_truncation():
    prompt = PROMPTER.cot(env.reset(950))
    first = SimulatedModel(0.3, Mulberry32(4))
    second = SimulatedModel(0.3, Mulberry32(4))
    assert [first(prompt) for _ in range(5)] == [second(prompt) for _ in range(5)]
    full = SimulatedModel(0.0, Mulberry32(4))(prompt)
    assert SimulatedModel(0.0, Mulberry32(4))(prompt, max_new_tokens=3) == full[:3]


def test_unknown_prompts_and_bad_settings():
    model = SimulatedModel(0.0, Mulberry32(1))
    assert model("Input: 1 2 3 4\nWhat now?") == " I do not know what is asked."
    assert model("Tell me a story.\nEvaluation:") == " I cannot read the numbers."
    with pytest.raises(ValueError, match=r"error_rate must be in \[0, 1\], got 1.5"):
        SimulatedModel(1.5)
