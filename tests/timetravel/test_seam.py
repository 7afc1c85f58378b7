"""The seam engine: any program over a predictor and tools recorded, and re-run with a call edited or another brain."""

from lllm.agents.react import run_react
from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.predictors.contract import ScriptedPredictor
from lllm.predictors.standins.react import RulePredictor
from lllm.timetravel.seam import EDIT, RECORDED, first_difference, run, timeline


def plan_then_compute(predictor, tools):
    """A reader's program, not one of the demos: ask for an expression, compute it, ask for the answer."""
    expression = predictor("Write an expression for 6 times 7:").strip()
    value = tools["calc"](expression)
    return predictor(f"{expression} = {value}. The answer is:").strip()


def scripted(*replies):
    return lambda number: ScriptedPredictor([replies[(number - 1) % len(replies)]])


def test_a_program_is_recorded_call_by_call_in_the_order_made():
    done = run(plan_then_compute, scripted("6 * 7", "42"), DEFAULT_TOOLS, brain_name="scripted")
    assert done.answer == "42"
    assert [(c.kind, c.number, c.who, c.asked, c.said) for c in done.calls] == [
        ("model", 1, "scripted", "Write an expression for 6 times 7:", "6 * 7"),
        ("tool", 1, "calc", "6 * 7", "42"),
        ("model", 2, "scripted", "6 * 7 = 42. The answer is:", "42")]


def test_an_edited_call_changes_what_follows_and_the_calls_after_it_come_from_the_brain():
    first = run(plan_then_compute, scripted("6 * 7", "42"), DEFAULT_TOOLS, brain_name="scripted")
    edited = run(plan_then_compute, scripted("6 * 7", "48"), DEFAULT_TOOLS, brain_name="scripted",
                 edits={1: "6 * 8"}, recorded=first.calls, swap_from=2)
    assert [c.who for c in edited.calls] == [EDIT, "calc", "scripted"]
    assert edited.calls[1].said == "48" and edited.answer == "48"
    assert first_difference(first.calls, edited.calls) == 1


def test_calls_before_the_swap_are_kept_and_the_new_brain_writes_from_there():
    first = run(plan_then_compute, scripted("6 * 7", "forty-two"), DEFAULT_TOOLS, brain_name="scripted")
    swapped = run(plan_then_compute, scripted("ignored", "42 exactly"), DEFAULT_TOOLS, brain_name="other",
                  recorded=first.calls, swap_from=2)
    assert [c.who for c in swapped.calls] == [RECORDED, "calc", "other"]
    assert swapped.answer == "42 exactly" and first_difference(first.calls, swapped.calls) == 3


def test_a_replay_with_the_same_brain_is_the_same_run():
    first = run(plan_then_compute, scripted("6 * 7", "42"), DEFAULT_TOOLS)
    again = run(plan_then_compute, scripted("6 * 7", "42"), DEFAULT_TOOLS)
    assert first_difference(first.calls, again.calls) is None


def test_a_tool_that_cannot_run_here_answers_what_was_recorded_for_the_same_argument_only():
    weather = Tool("weather", "the weather in a city", lambda city: f"sunny in {city}")
    program = lambda predictor, tools: [tools["weather"](predictor("city?")) for _ in range(2)]
    first = run(program, scripted("Oslo", "Paris"), [weather])
    assert first.answer == ["sunny in Oslo", "sunny in Paris"]
    gone = Tool("weather", "the weather in a city", lambda city: 1 / 0)          # not here any more
    again = run(program, scripted("x"), [gone], recorded=first.calls, unavailable=frozenset({"weather"}))
    assert again.answer == ["sunny in Oslo", "sunny in Paris"] and [c.who for c in again.calls][1::2] == [RECORDED] * 2
    try:
        run(program, scripted("Rome"), [gone], recorded=first.calls, swap_from=1, unavailable=frozenset({"weather"}))
    except LookupError as error:
        assert str(error) == "weather cannot run here: it is only recorded, and not with this argument"
    else:
        raise AssertionError("a new call to a recorded-only tool must fail")


def test_the_react_loop_runs_over_the_seam_unchanged():
    done = run(lambda p, tools: run_react("What is 17 * 23?", p, tools.as_tools(), return_trajectory=True),
               lambda number: RulePredictor(), DEFAULT_TOOLS, brain_name="rule")
    assert done.answer.answer == "391"
    assert [(c.kind, c.who) for c in done.calls] == [("model", "rule"), ("tool", "calc"), ("model", "rule")]


def test_the_timeline_says_who_wrote_each_call_how_much_and_how_long():
    ticks = iter(range(100))
    done = run(plan_then_compute, scripted("6 * 7", "42"), DEFAULT_TOOLS, brain_name="scripted",
               clock=lambda: next(ticks) / 1000)
    assert timeline(done.calls).splitlines() == [
        "   1. model call 1                 scripted           5 chars      1.0 ms",
        "   2. tool call 1 (calc)           calc               2 chars      1.0 ms",
        "   3. model call 2                 scripted           2 chars      1.0 ms"]
