"""The generation loop (lllm/model/generate.py) over a small hand-written backend."""

import re

import pytest

from lllm.model.generate import BackendPredictor, NumberSlots, generate, next_char_view
from lllm.predictors.contract import Predictor
from lllm.model.sampling import Mulberry32
from lllm.model.tokenizer import CharTokenizer

TOK = CharTokenizer(["\n", " ", "a", "b", "c"])


class Cycler:
    """A "model" that prefers the character after the last one read (a -> b -> c -> a ...).

    Its state counts the characters read, so we can see the state being carried.
    """

    vocab_size = 5

    def __init__(self):
        self.calls = []

    def __call__(self, ids, state):
        self.calls.append((list(ids), state))
        read = (state or 0) + len(ids)
        last = ids[-1]
        favourite = {2: 3, 3: 4, 4: 2}.get(last, 2)
        return [3.0 if i == favourite else 0.0 for i in range(5)], read


def test_docstring_example():
    def always_b(ids, state):
        return [0.0, 5.0], state
    assert generate(always_b, CharTokenizer("ab"), "a", max_new_tokens=3, temperature=0).completion == "bbb"


def test_carry_reads_the_prompt_once_then_one_char_at_a_time():
    model = Cycler()
    out = generate(model, TOK, "ab", max_new_tokens=4, temperature=0)
    assert out.completion == "cabc"                      # completion only, no echoed prompt
    assert model.calls == [([2, 3], None), ([4], 2), ([2], 3), ([3], 4)]


def test_window_reruns_the_last_window_from_zero_state():
    model = Cycler()
    out = generate(model, TOK, "abcab", max_new_tokens=2, temperature=0, mode="window", window=3)
    assert out.completion == "ca"
    assert model.calls == [([4, 2, 3], None), ([2, 3, 4], None)]


def test_stop_string_ends_and_is_cut():
    out = generate(Cycler(), TOK, "a", max_new_tokens=50, temperature=0, stop=["ab"])
    assert out.completion == "bc" and out.stopped_by == "ab"


def test_unknown_prompt_characters_are_reported_and_empty_prompt_reads_newline():
    model = Cycler()
    out = generate(model, TOK, "aé!", max_new_tokens=1, temperature=0)
    assert out.dropped == ["é", "!"] and out.completion == "b"
    model = Cycler()
    generate(model, TOK, "", max_new_tokens=1, temperature=0)
    assert model.calls[0] == ([0], None)


def test_same_seed_same_text_and_show_top():
    a = generate(Cycler(), TOK, "a", max_new_tokens=30, temperature=1.5, seed=7, show_top=2)
    b = generate(Cycler(), TOK, "a", max_new_tokens=30, temperature=1.5, seed=7)
    c = generate(Cycler(), TOK, "a", max_new_tokens=30, temperature=1.5, seed=8)
    assert a.completion == b.completion != c.completion
    assert len(a.top) == 30 and a.top[0][0][0] == "b"


def test_next_char_view():
    view = next_char_view(Cycler(), TOK, "ab", k=2)
    assert view[0][0] == "c" and view[0][1] > 0.8 and len(view) == 2


def test_backend_predictor_is_a_predictor_with_one_seeded_stream():
    p = BackendPredictor(Cycler(), TOK, temperature=1.0, seed=3, max_new_tokens=5)
    assert isinstance(p, Predictor)
    first, second = p("a"), p("a")
    q = BackendPredictor(Cycler(), TOK, temperature=1.0, seed=3, max_new_tokens=5)
    assert (q("a"), q("a")) == (first, second)        # a whole run replays from its seed
    assert len(p("a", max_new_tokens=2)) == 2
    rng = Mulberry32(3)
    assert generate(Cycler(), TOK, "a", 5, 1.0, rng=rng).completion == first


@pytest.mark.parametrize("kwargs, message", [
    ({"max_new_tokens": -1}, "max-new-tokens"),
    ({"temperature": -1}, "temperature"),
    ({"top_p": 0}, "top-p"),
    ({"mode": "beam"}, "mode"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate(Cycler(), TOK, "a", **kwargs)


# ---- number slots: what a model trained with them reads and writes ------------------------------

def test_number_slots_docstring_example():
    slots = NumberSlots()
    masked, numbers = slots.mask("Question: 96 plus 85?\nThought: compute 96 + 85\nObservation: 181\n")
    assert masked == "Question: #1 plus #2?\nThought: compute #1 + #2\nObservation: #3\n"
    assert numbers == ["96", "85", "181"]
    assert slots.unmask("Final Answer: #3", numbers) == "Final Answer: 181"


def test_number_slots_round_trip_a_read_text():
    text = "Question: Ben packs 17 boxes of 4 beads; 2.5 kg, -45 and 6:30.\nObservation: 68\n"
    masked, numbers = NumberSlots().mask(text)
    assert masked == "Question: Ben packs #1 boxes of #2 beads; #3 kg, -#4 and #5:#6.\nObservation: #7\n"
    assert numbers == ["17", "4", "2.5", "45", "6", "30", "68"]
    assert not any(c.isdigit() for c in re.sub(r"#\d+", "", masked))      # every digit is in a slot
    assert NumberSlots().unmask(masked, numbers) == text


def test_the_same_number_twice_is_the_same_slot():
    assert NumberSlots().mask("Question: 20 bags of 20, then 7 and 20.") == \
        ("Question: #1 bags of #1, then #2 and #1.", ["20", "7"])


def test_decimals_are_one_slot_and_a_minus_stays_outside():
    masked, numbers = NumberSlots().mask("Question: -3.5 times 2. and .5\nObservation: -7\n")
    assert masked == "Question: -#1 times #2. and .#3\nObservation: -#4\n"
    assert numbers == ["3.5", "2", "5", "7"]
    assert NumberSlots().unmask("Final Answer: -#4", numbers) == "Final Answer: -7"


def test_the_models_own_lines_copy_slots_and_keep_numbers_it_wrote_itself():
    text = ("Question: A dozen eggs at 3 each?\nThought: compute 12 * 3\nAction: calc[12 * 3]\n"
            "Observation: 36\nFinal Answer: 36\n")
    masked, numbers = NumberSlots().mask(text)
    assert masked == ("Question: A dozen eggs at #1 each?\nThought: compute 12 * #1\nAction: calc[12 * #1]\n"
                      "Observation: #2\nFinal Answer: #2\n")
    assert numbers == ["3", "36"]


def test_masking_a_prompt_gives_the_start_of_masking_the_longer_one():
    """Prefix-stable: each step's prompt is re-masked from scratch, and agrees with the episode."""
    episode = ("Question: 5 times 12?\nThought: compute 5 * 12\nAction: calc[5 * 12]\nObservation: 60\n"
               "Final Answer: 60\n\n")
    whole, numbers = NumberSlots().mask(episode)
    for cut in (episode.index("Thought:"), episode.index("Final Answer:")):
        part, part_numbers = NumberSlots().mask(episode[:cut])
        assert whole.startswith(part) and numbers[:len(part_numbers)] == part_numbers


def test_an_unknown_slot_is_left_as_written():
    assert NumberSlots().unmask("Action: calc[#1 + #3 + #0 + #01]", ["8", "9"]) == "Action: calc[8 + #3 + #0 + #01]"


def test_a_prompt_with_no_numbers_is_unchanged():
    text = "Question: Say the word tiger.\nThought: repeat tiger\n"
    assert NumberSlots().mask(text) == (text, [])
    assert NumberSlots().unmask("Final Answer: tiger #1", []) == "Final Answer: tiger #1"


def test_another_mark_and_other_own_lines():
    slots = NumberSlots(mark="@", own_lines=("A:",))
    assert slots.mask("Q: 4 and 5\nA: 5 + 1\n") == ("Q: @1 and @2\nA: @2 + 1\n", ["4", "5"])
    assert slots.unmask("@2@1", ["4", "5"]) == "54"


def test_number_slots_card_field_round_trips():
    slots = NumberSlots.from_card(NumberSlots().to_card(), "#0123456789")
    assert slots == NumberSlots() and NumberSlots.from_card(None, "ab") is None


# ---- word slots: a word outside the lexicon is one slot to copy -----------------------------------

WORDS = NumberSlots(lexicon=frozenset("question say the word back observation thought final answer repeat "
                                      "what is plus compute action calc then".split()))


def test_a_word_outside_the_lexicon_is_a_slot_numbered_apart_from_numbers():
    text = "Question: Say the word gorbel, then 48 plus 17.\nThought: repeat gorbel\nFinal Answer: gorbel\n"
    masked, values = WORDS.mask(text)
    assert masked == "Question: Say the word @1, then #1 plus #2.\nThought: repeat @1\nFinal Answer: @1\n"
    assert values == ["gorbel", "48", "17"]
    assert WORDS.unmask("Final Answer: @1 #2", values) == "Final Answer: gorbel 17"


def test_the_lexicon_ignores_case_and_a_slot_keeps_the_words_own_case():
    masked, values = WORDS.mask("Question: SAY THE WORD Pebble AND pebble.")
    assert masked == "Question: SAY THE WORD @1 @2 @3."          # "AND" is not in this lexicon
    assert values == ["Pebble", "AND", "pebble"]
    assert WORDS.unmask("@1 @3", values) == "Pebble pebble"


def test_the_models_own_lines_keep_words_it_wrote_itself():
    masked, _ = WORDS.mask("Question: What is 2 plus 3?\nThought: compute flurb 2 + 3\n")
    assert masked == "Question: What is #1 plus #2?\nThought: compute flurb #1 + #2\n"


def test_word_slots_are_prefix_stable():
    episode = "Question: Say zandor.\nThought: repeat zandor\nFinal Answer: zandor\n\n"
    whole, values = WORDS.mask(episode)
    part, part_values = WORDS.mask(episode[:episode.index("Final")])
    assert whole.startswith(part) and values[:len(part_values)] == part_values


def test_without_a_lexicon_an_at_slot_is_left_as_written():
    assert NumberSlots().unmask("Final Answer: @1 #1", ["5"]) == "Final Answer: @1 5"
    assert WORDS.unmask("Final Answer: @2 #3", ["x", "5"]) == "Final Answer: @2 #3"


def test_a_word_slots_card_field_round_trips():
    card = WORDS.to_card()
    assert card["word_mark"] == "@" and card["lexicon"] == sorted(WORDS.lexicon)
    assert NumberSlots.from_card(card, "#@0123456789") == WORDS
    assert "lexicon" not in NumberSlots().to_card()


@pytest.mark.parametrize("value, message", [
    ({"mark": "#", "own_lines": ["A:"], "lexicon": ["a"]}, "exactly the fields mark and own_lines"),
    ({"mark": "#", "own_lines": ["A:"], "word_mark": "@", "lexicon": []}, "lexicon must be a non-empty list"),
    ({"mark": "#", "own_lines": ["A:"], "word_mark": "@", "lexicon": ["Say"]}, "lower-case words"),
    ({"mark": "#", "own_lines": ["A:"], "word_mark": "@", "lexicon": ["two words"]}, "lower-case words"),
    ({"mark": "#", "own_lines": ["A:"], "word_mark": "w", "lexicon": ["a"]}, "word_mark must be one character"),
    ({"mark": "#", "own_lines": ["A:"], "word_mark": "%", "lexicon": ["a"]}, "word_mark '%' is not in the model's"),
    ({"mark": "#", "own_lines": ["A:"], "word_mark": "#", "lexicon": ["a"]}, "word_mark must differ from mark"),
])
def test_a_bad_word_slots_field_is_a_clear_error(value, message):
    with pytest.raises(ValueError, match=message):
        NumberSlots.from_card(value, "#@ab")


@pytest.mark.parametrize("value, message", [
    ("#", "must be an object with exactly the fields mark and own_lines"),
    ({"mark": "#"}, "must be an object with exactly the fields mark and own_lines"),
    ({"mark": "##", "own_lines": ["A:"]}, "mark must be one character"),
    ({"mark": "7", "own_lines": ["A:"]}, "mark must be one character other than a letter, a digit"),
    ({"mark": "-", "own_lines": ["A:"]}, "mark must be one character"),
    ({"mark": "§", "own_lines": ["A:"]}, "mark '§' is not in the model's vocabulary"),
    ({"mark": "#", "own_lines": []}, "own_lines must be a non-empty list"),
    ({"mark": "#", "own_lines": ["A:", ""]}, "own_lines must be a non-empty list"),
    ({"mark": "#", "own_lines": "Thought:"}, "own_lines must be a non-empty list"),
])
def test_a_bad_number_slots_field_is_a_clear_error(value, message):
    with pytest.raises(ValueError, match=message):
        NumberSlots.from_card(value, "#ab")


def test_backend_predictor_reads_slots_and_returns_numbers():
    """A backend that always writes "#2": the caller sees the second number of the prompt, and
    `last` keeps what the model read and wrote."""
    tok = CharTokenizer(["\n", " ", "#", "1", "2", "3", "5", "?", "Q", ":"])

    def writes_slot_two(ids, state):                  # state: characters written so far
        favourite = tok.encode("#2")[0 if state is None else 1]
        return [5.0 if i == favourite else 0.0 for i in range(len(tok))], (state or 0) + 1
    predictor = BackendPredictor(writes_slot_two, tok, temperature=0, number_slots=NumberSlots())
    assert predictor("Q: 5 3?\n", 2) == "3"
    assert (predictor.last.prompt, predictor.last.completion, predictor.last.numbers) == ("Q: #1 #2?\n", "#2", ["5", "3"])
