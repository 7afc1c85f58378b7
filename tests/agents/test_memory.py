"""Memory: a fixed window, deterministic retrieval by word overlap, and injection without a new loop."""


import pytest

from lllm.predictors import RulePredictor
from lllm.agents.memory import LongTermMemory, ShortTermMemory, format_memories, words
from lllm.labs.memory_explainer import explain_memory
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.react import run_react


def test_short_term_keeps_the_last_window_turns():
    short = ShortTermMemory(window=2)
    for turn in ["one", "two", "three"]:
        short.add(turn)
    assert short.get() == ["two", "three"] and len(short) == 2
    short.clear()
    assert short.get() == []


def test_short_term_window_must_be_positive():
    with pytest.raises(ValueError, match="window must be an integer >= 1, got 0"):
        ShortTermMemory(window=0)


def test_words_drop_case_punctuation_and_common_words():
    assert words("Where is Mira's red door?") == {"mira", "red", "door"}


def test_retrieve_ranks_by_overlap_and_breaks_ties_by_age():
    long = LongTermMemory(["the red door", "a red hat", "a red hat and a red door", "blue river"])
    assert long.retrieve("red door", k=3) == ["the red door", "a red hat and a red door", "a red hat"]
    assert long.retrieve(["red"], k=2) == ["the red door", "a red hat"]
    assert long.retrieve("green", k=3) == []
    assert long.retrieve("red", k=0) == []


def test_format_memories_leaves_out_empty_sections():
    assert format_memories([], []) == ""
    assert format_memories([], ["fact"]) == "Things you remember:\n- fact"


def test_memory_reaches_the_prompt_through_extra_context():
    brain = ScriptedPredictor(["Final Answer: grey"])
    block = format_memories(["user: hi | agent: hello"], ["Pip is Mira's grey cat."])
    run_react("What colour is Pip?", brain, extra_context=block)
    assert "- Pip is Mira's grey cat.\nQuestion: What colour is Pip?\n" in brain.prompts[0]


def test_explainer_shows_the_block_and_short_term_memory_growing(capsys):
    turns = explain_memory(RulePredictor(), ["What is 17 * 23?", "What is that plus 9?", "Who is Pip?"])
    assert [t.answer for t in turns] == ["391", "400", "Pip is Mira's grey cat."]
    assert turns[0].memory_block == ""
    assert turns[2].memory_block.endswith("Things you remember:\n- Pip is Mira's grey cat.")
    out = capsys.readouterr().out
    assert "[MEMORY] injected block:\n(empty)" in out
    assert "[MEMORY] short-term now holds 3 turn(s)" in out
    assert "[MODEL] 'Thought: compute 391 + 9\\nAction: calc[391 + 9]'" in out


def test_without_memory_that_means_nothing():
    assert run_react("What is that plus 9?", RulePredictor()) == "I don't know"
