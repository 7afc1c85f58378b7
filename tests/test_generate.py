"""The generation loop (lllm/model/generate.py) over a small hand-written backend."""

import pytest

from lllm.model.generate import BackendPredictor, generate, next_char_view
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
