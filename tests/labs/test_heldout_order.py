"""The held-out-order goals (lllm/labs/heldout/order.py): no template is training's or another held-out
set's, no goal can be produced by the training grammar, training never imports the module, every
answer is right (by hand for each template, by integer arithmetic for every goal), each family has at
least 30 goals, and the interval and the table say what they measured.
"""

import re

import pytest

from hooks import architecture
from lllm.agents.react import run_react
from lllm.labs.heldout import grammar as hg, order, structure as hs
from lllm.labs.factory.tasks import calc_split
from lllm.predictors.contract import ScriptedPredictor
from test_heldout_grammar import frame, parsed_by_training, training_closure, training_templates

MODULE = "lllm.labs.heldout.order"
GOALS = order.make_goals(per_family=40, seed=0)

# Worked by hand from each story, with a=50, b=8, c=3 (the words, not the template's expression).
BY_HAND = {
    "{who} found {b} more {x} in the afternoon. In the morning {who} had {a} {x}. "
    "How many {x} did {who} end the day with?": 58,
    "{who} gave away {b} {x} after lunch. Before lunch, {who} had {a} {x}. How many {x} were left after lunch?": 42,
    "At the end of the sale {b} {x} had been sold. The shop began the sale with {a} {x}. How many {x} did it keep?": 42,
    "Then {who} was given {b} {x}. Before that, {who} owned {a} {x}. How many {x} does {who} own now?": 58,
    "{b} {x} fell off the table last. {a} {x} had been on it first. How many {x} are still on the table?": 42,
    "How many {x} are left? {who} had {a} {x} and then ate {b} of them.": 42,
    "What is the total cost? {who} paid {a} coins for a hat and {b} coins for a coat.": 58,
    "How many {x} in all? There are {a} boxes, and every box holds {b} {x}.": 400,
    "Can you work out how many {x} {who} still has? {p} started with {a} and lent {b} to a friend.": 42,
    "How many {x} altogether, if {who} picks {a} {x} and a friend picks {b} {x}?": 58,
    "{who} is {k} years old. {p} had {a} {x} and lost {b} of them. How many {x} does {who} have?": 42,
    "On day {k} of the trip, {who} collected {a} {x} and then {b} more. How many {x} were collected that day?": 58,
    "{who} had {a} {x}. {k} friends came round, and {who} gave {b} {x} to them. How many {x} are left?": 42,
    "A class of {k} children packed {a} bags with {b} {x} in each bag. How many {x} were packed?": 400,
    "In week {k}, a shelf held {a} {x}. Someone added {b} {x}. How many {x} are on the shelf?": 58,
    "{who} had {a} {x}. {p} found {b} more and then lost {c}. How many {x} does {who} have now?": 55,
    "A shop had {a} {x}. It sold {b} and then got {c} new ones. How many {x} does it have now?": 45,
    "{who} buys {a} bags of {b} {x} and gives away {c} {x}. How many {x} does {who} keep?": 397,
    "There were {a} {x} in a jar. {who} took out {b} and put back {c}. How many {x} are in the jar?": 45,
    "Tell me, {who}: what do {a} and {b} add up to?": 58,
    "With the calculator, {who} works out {a} multiplied by {b}. What does {q} get?": 400,
    "{a} take away {b}, says {who}. What is the answer?": 42,
    "Use calc for this one: the sum of {a} and {b}, please.": 58,
    "To {a} {x}, {who} adds another {b}. How many {x} is that?": 58,
}


def test_every_template_is_worked_by_hand():
    texts = [t for family in order.templates().values() for t in family]
    assert sorted(texts) == sorted(BY_HAND), "a template was added or changed: work its answer by hand here"
    for rows in order.TEMPLATES.values():
        for t in rows:
            assert order._value(t.expression.format(a=50, b=8, c=3)) == BY_HAND[t.text], t.text


def test_every_goals_answer_is_right_by_integer_arithmetic():
    wrong = [g.goal for g in GOALS if g.answer != str(order.evaluate_expression(g)) or int(g.answer) < 0]
    assert not wrong, wrong[:3]


def test_the_answer_check_finds_a_wrong_oracle():
    g = GOALS[0]
    planted = hg.Goal(g.goal, g.family, g.calls, str(int(g.answer) + 1), g.template)
    assert planted.answer != str(order.evaluate_expression(planted))


def test_each_family_has_at_least_30_goals_and_every_template_is_drawn():
    for family in order.FAMILIES:
        mine = [g for g in GOALS if g.family == family]
        assert len(mine) == 40 and len({g.goal for g in mine}) == 40, family
        assert {g.template for g in mine} == set(order.templates()[family]), family


def test_no_template_is_training_s_or_another_held_out_set_s():
    others = {frame(t) for t in training_templates()}
    others |= {frame(t) for family in hg.templates().values() for t, _ in family}
    others |= {frame(t) for family in hs.templates().values() for t, _ in family}
    mine = [t for family in order.templates().values() for t in family]
    shared = [t for t in mine if frame(t) in others]
    assert not shared, shared
    assert frame(hs.templates()["word problem"][0][0]) in others     # the check sees the other sets


def test_no_goal_can_be_produced_by_the_training_grammar():
    assert parsed_by_training(GOALS) == []


def test_training_never_imports_the_module():
    closure = training_closure(architecture.import_graph())
    assert "lllm.labs.factory.tasks" in closure and MODULE not in closure


def test_two_number_goals_draw_from_the_test_buckets():
    for g in GOALS:
        a, op, b = re.match(r"(\d+) ([-+*]) (\d+)", g.calls[0][1][0]).groups()
        assert calc_split(int(a), op, int(b)) == "test", g.goal


def test_the_same_seed_gives_the_same_goals_and_another_seed_others():
    assert order.make_goals(5, seed=0) == order.make_goals(5, seed=0)
    assert order.make_goals(5, seed=0) != order.make_goals(5, seed=1)


def test_reading_order_is_wrong_where_the_story_is_told_out_of_order():
    """The family's point: the operands in reading order give the wrong answer for a subtraction."""
    goal = next(g for g in GOALS if g.family == "out of order" and "gave away" in g.goal)
    first, second = re.findall(r"\d+", goal.goal)[:2]
    reading = run_react(goal.goal, ScriptedPredictor([f"Action: calc[{first} - {second}]", "Final Answer: done"]),
                        return_trajectory=True)
    assert hg.score(reading, goal)["args"] == 0.0
    right = run_react(goal.goal, ScriptedPredictor([f"Action: calc[{goal.calls[0][1][0]}]", f"Final Answer: {goal.answer}"]),
                      return_trajectory=True)
    assert hg.score(right, goal) == {"tool": 1.0, "args": 1.0, "exact": 1.0, "lenient": 1.0}


@pytest.mark.parametrize("k, n, low, high", [(0, 10, 0.0, 0.278), (10, 10, 0.722, 1.0), (45, 50, 0.786, 0.957),
                                             (0, 0, 0.0, 0.0)])
def test_wilson_intervals(k, n, low, high):
    assert order.wilson(k, n) == (low, high)


def test_the_table_has_each_family_with_its_count_rate_and_interval():
    goals = order.make_goals(2, seed=3)
    right = [(g, {"tool": 1.0, "args": 1.0, "exact": 1.0, "lenient": 1.0}, None) for g in goals]
    wrong = [(g, {"tool": 0.0, "args": 0.0, "exact": 0.0, "lenient": 0.0}, None) for g in goals]
    lines = order.order_table({"oracle": right, "nothing": wrong}).splitlines()
    assert len(lines) == 2 + len(order.FAMILIES) and "oracle" in lines[0] and "nothing" in lines[0]
    assert re.search(r"out of order\s+2/2\s+100\.0% \[34\.2, 100\.0\]\s+0/2\s+0\.0% \[ 0\.0,  65\.8\]", lines[1]), lines[1]
    assert lines[-1].startswith("all") and "10/10" in lines[-1]


def test_calc_errors_counts_one_calculation_goals_and_skips_two_operation_stories():
    goals = order.make_goals(2, seed=0)
    rows = [(g, {"tool": 1.0, "args": 0.0, "exact": 0.0, "lenient": 0.0},
             run_react(g.goal, ScriptedPredictor(["Action: calc[1 + 1]", "Final Answer: 2"]), return_trajectory=True))
            for g in goals]
    counts = hg.calc_errors(rows)
    one = [g for g in goals if g.family != "two operations"]
    assert counts["goals"] == counts["wrong"] == len(one) == 8
