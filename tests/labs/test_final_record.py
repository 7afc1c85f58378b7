"""lllm/labs/final/record.py: a record is graded anew, never believed; every edit that claims more than
the learner did fails with a sentence naming what did not check; 200 fuzzed records, no traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lllm.labs.final.exam import paper
from lllm.labs.final.record import RecordError, from_link, read_record, regrade, to_link
from support.final_record import record, right_answers, solution

SEED = 4242


def grade(data: dict) -> dict:
    return regrade(read_record(json.dumps(data)))


def test_a_learner_who_knows_the_course_passes():
    result = grade(record(SEED))
    assert result["passed"] and result["right"] == result["total"] == 12 and result["exercise"]["ok"]
    assert result["summary"] == "Passed: 12 of 12 answers right (10 needed), the exercise passed 8 of 8 hidden checks."
    assert result["problems"] == [] and result["reread"] == []


def test_three_wrong_answers_fail_and_name_the_sections_to_reread():
    result = grade(record(SEED, wrong=3))
    assert not result["passed"] and result["right"] == 9
    p = paper(SEED)
    assert result["problems"] == [f"Question {q['n']} ({q['unit']}) did not check: the record holds an answer that is "
                                  "not the right one." for q in p["questions"][:3]]
    assert {t["anchor"] for t in result["reread"]} == {q["teaches"]["anchor"] for q in p["questions"][:3]}


def test_flipping_an_answer_is_named():
    data = record(SEED)
    q = paper(SEED)["questions"][5]
    data["answers"][q["id"]] = "edited" if isinstance(data["answers"][q["id"]], str) else [0, 1, 2]
    result = grade(data)
    assert not result["questions"][5]["right"]
    assert result["problems"][0].startswith(f"Question 6 ({q['unit']}) did not check")


def test_another_seeds_passing_exercise_does_not_pass():
    result = grade(record(SEED, code=solution(paper(SEED + 1))))
    assert not result["passed"] and not result["exercise"]["ok"]
    assert result["problems"] == ["The exercise did not pass its hidden checks: Check 1 of 8 failed: a perfect run scores 1.0"]
    assert result["reread"][0]["page"] == "agents/evaluator.md"


def test_a_changed_seed_is_refused_with_a_sentence():
    data = record(SEED) | {"seed": SEED + 1}
    with pytest.raises(RecordError, match=f"^The record's seed {SEED + 1} does not give the questions it was sat "
                                          "with: its seed or its fingerprint was edited.$"):
        grade(data)


def test_a_record_from_another_site_version_says_so():
    data = record(SEED) | {"site_version": "0.0.9+deadbeef", "fingerprint": "0" * 16}
    with pytest.raises(RecordError, match="it was made with site version 0.0.9\\+deadbeef, and this is .*, whose final differs.$"):
        grade(data)


def test_a_changed_seed_with_its_fingerprint_still_fails_on_every_answer():
    data = record(SEED) | {"seed": SEED + 1, "fingerprint": paper(SEED + 1)["fingerprint"]}
    result = grade(data)
    assert not result["passed"] and result["right"] < 10 and not result["exercise"]["ok"]


@pytest.mark.parametrize("edit, sentence", [
    ({"passed": True}, "The record has a field 'passed' that no final record has."),
    ({"seed": "4242"}, "The record's 'seed' must be a whole number."),
    ({"version": 2}, "The record is version 2 of the format; this grader reads version 1."),
    ({"schema": "lllm-run"}, "This is not a course final record: its 'schema' must be 'lllm.final-record'."),
    ({"name": " "}, "The record's 'name' must be 1 to 80 characters."),
    ({"code": "x" * 5000}, "The record's exercise code is 5000 characters; at most 4000."),
    ({"answers": {"a": {"b": 1}}}, "Each answer in the record must be a choice's number, a list of them, or text of at most 200 characters."),
])
def test_a_malformed_record_gets_one_sentence(edit, sentence):
    with pytest.raises(RecordError) as caught:
        read_record(json.dumps(record(SEED) | edit))
    assert str(caught.value) == sentence


def test_not_json_and_too_big():
    with pytest.raises(RecordError, match="not JSON"):
        read_record('{"schema": ')
    with pytest.raises(RecordError, match="larger than 64000 bytes"):
        read_record(" " * 70_000)


def test_a_link_carries_the_record():
    data = record(SEED)
    assert read_record(from_link(to_link(data, "http://127.0.0.1/course/final/"))) == data
    with pytest.raises(RecordError, match="holds no record"):
        from_link("http://127.0.0.1/course/final/")


def test_right_answers_helper_is_right():
    p = paper(SEED)
    assert grade(record(SEED))["right"] == len(right_answers(p))


# ---- fuzzing: whatever the file holds, a sentence or a result, never a traceback ---------------------------

VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                      max_leaves=8)
FIELDS = ["schema", "version", "name", "seed", "site_version", "fingerprint", "seconds", "answers", "code", "finished", "x"]


@st.composite
def fuzzed(draw) -> str:
    data = record(SEED, wrong=draw(st.integers(0, 12)))
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=3)):
        if draw(st.booleans()):
            data.pop(key, None)
        else:
            data[key] = draw(VALUES)
    for qid in draw(st.lists(st.sampled_from(sorted(data.get("answers") or {"none": 0})), max_size=2)):
        if isinstance(data.get("answers"), dict):
            data["answers"][qid] = draw(VALUES)
    text = json.dumps(data)
    cut = draw(st.one_of(st.none(), st.integers(0, len(text))))
    return text if cut is None else text[:cut]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(fuzzed())
def test_200_fuzzed_records_give_no_traceback(text):
    try:
        result = regrade(read_record(text))
    except RecordError as error:
        assert str(error).endswith(".") and "\n" not in str(error)
    else:
        assert isinstance(result["passed"], bool) and result["summary"]
