"""Structure noise for training goals (lllm/labs/factory/reshape.py): the oracle never changes, the
teacher's episodes still verify, every kind is drawn, and no reshaped training goal is one of the
held-out structure set's templates (except the casing and punctuation kinds, which the noise
shares by design and the agent-model page says so). Each checker is shown a planted counter-example.
"""

import random
import re

from lllm.labs.factory import reshape as factory_reshape
from lllm.labs.heldout import structure as hs
from lllm.labs.factory.episodes import run_episode
from lllm.labs.factory.reshape import reshape
from lllm.labs.factory.tasks import LOOKUP_NAMES, NAMES, THINGS, make_task

SURFACE = ("casing", "punctuation")
PAIRS = [(task, reshape(task, rng, share=1.0))
         for rng in [random.Random(7)] for task in (make_task(rng, "train") for _ in range(6000))]


def held_out_patterns() -> list[tuple[str, re.Pattern]]:
    """The held-out structure templates that are not surface shapes, as case-blind regexes that
    also ignore how a goal ends (?, ??, !, nothing)."""
    names = "|".join(map(re.escape, sorted(NAMES)))
    pronouns = "she|he"
    topics = "|".join(map(re.escape, sorted(set(LOOKUP_NAMES.values()) | {"tom", "owen", "mira", "lina", "pip",
                                                                         "bram", "dot"})))
    slots = {"{a}": r"\d+", "{b}": r"\d+", "{n}": r"\d+", "{k}": r"\d+", "{w}": r"\S+",
             "{who}": f"(?:{names})", "{p}": f"(?:{pronouns})", "{q}": f"(?:{pronouns})",
             "{x}": f"(?:{'|'.join(THINGS)})", "{t}": f"(?:{topics})", "{T}": f"(?:{topics})"}
    patterns = []
    for family in hs.templates().values():
        for template, shape in family:
            if shape in SURFACE:
                continue
            body = re.escape(template.rstrip(".?!"))
            for slot, pattern in slots.items():
                body = body.replace(re.escape(slot), pattern)
            patterns.append((template, re.compile(body + r"[.?!]*", re.IGNORECASE)))
    return patterns


def held_out_shapes(goals) -> list[tuple[str, str]]:
    patterns = held_out_patterns()
    return [(goal, template) for goal in goals for template, p in patterns if p.fullmatch(goal.strip())]


def test_no_reshaped_training_goal_is_a_held_out_structure_template():
    assert held_out_shapes(shaped.goal for _, shaped in PAIRS) == []


def test_the_shape_check_finds_planted_held_out_goals():
    planted = [g.goal for g in hs.make_goals(per_family=20, seed=1) if hs.shape_of(g.template) not in SURFACE]
    found = {goal for goal, _ in held_out_shapes(planted)}
    assert len(planted) > 50 and found == set(planted)


def test_the_oracle_never_changes():
    for task, shaped in PAIRS:
        assert (shaped.tool, shaped.args, shaped.answer, shaped.calls, shaped.split) == \
               (task.tool, task.args, task.answer, task.calls, task.split)


def test_every_reshaped_episode_verifies():
    rejected = [(shaped.goal, e.rejected) for _, shaped in PAIRS[:1500]
                if (e := run_episode(shaped)).rejected is not None]
    assert rejected == []


def test_the_operands_stay_in_the_goal():
    """Every operand of the calculation is still written in the goal (symbols only lose spaces)."""
    for task, shaped in PAIRS:
        if task.family in ("arithmetic", "word problem"):
            assert set(re.findall(r"\d+", task.args)) <= set(re.findall(r"\d+", shaped.goal)), shaped.goal


def test_every_kind_is_drawn_and_the_share_holds():
    rng = random.Random(3)
    pairs = [(t, reshape(t, rng)) for t in (make_task(rng, "train") for _ in range(4000))]
    share = sum(s is not t for t, s in pairs) / len(pairs)
    assert abs(share - factory_reshape.SHARE) < 0.06
    goals = [s.goal for _, s in PAIRS]
    assert any(g.isupper() for g in goals) and any(g == g.lower() and re.search("[a-z]", g) for g in goals)
    assert any(re.search(r"\d[-+*]\d", g) for g in goals)
    assert any(g.startswith(factory_reshape.QUESTION_FIRST) for g in goals)
    assert any(re.match(r"(?i)(\d+|the (sum|difference|product) of) ", g) for g in goals)
    assert any(g.endswith(("? Look it up.", "? Echo it.")) for g in goals)
    assert any(re.search(r"\. (" + "|".join(d.split(" ")[0] for d in factory_reshape.DISTRACTORS) + r")\b", g)
               for g in goals)
    firsts = {d.split(" ")[0].format(who="Kim") for d in factory_reshape.LEADING}
    assert any(t.family == "multi-step" and s.goal.split(" ")[0] in firsts for t, s in PAIRS)      # leading
    assert any(s.goal.startswith(tuple(e.split("{")[0] for e in factory_reshape.EMBEDDED)) for _, s in PAIRS)
    assert any(re.match(r"(?i)\d+ (plus|times) (tom's|the)", g) for g in goals)   # multi-step reversed
    assert any(re.search(r"\d+\. .* it ", g) and g.startswith(tuple(f.split("{")[0] for f in factory_reshape.IT_FIRST))
               for g in goals)                                                      # it reference


def test_only_printable_ascii():
    assert {c for _, s in PAIRS for c in s.goal} <= {chr(i) for i in range(32, 127)}


def test_a_share_of_zero_changes_nothing():
    rng = random.Random(0)
    tasks = [make_task(rng, "train") for _ in range(200)]
    assert all(reshape(t, rng, share=0.0) is t for t in tasks)


