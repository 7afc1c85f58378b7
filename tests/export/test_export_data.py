"""export/data.py: the story, the vocabulary every agent format needs, and the sliding windows."""


import numpy as np
import pytest

from export.data import build_vocab, load_dataset, load_story, windows
from lllm.model.tokenizer import CharTokenizer


def test_story_is_ours_plain_ascii_and_a_few_kilobytes():
    story = load_story()
    assert 4_000 <= len(story.encode()) <= 8_000
    assert story.startswith("Once upon a time")
    assert "Mira lives above the bakery on Apple Street." in story


def test_vocabulary_covers_every_character_the_agent_formats_use():
    tok = CharTokenizer(build_vocab(load_story()))
    agent_text = ("Question: what is 17*23?\nThought: compute 17*23\nAction: calc[17*23]\n"
                  "Observation: 391\nFinal Answer: 391 (a/b + c-d; {x: 'y'} #1 @2 ~3 $4 %5 ^6 &7 |8 <9>)")
    assert tok.decode(tok.encode(agent_text)) == agent_text
    assert len(tok) == 96
    assert tok.vocab[:4] == ["\n", " ", "!", '"'] and tok.vocab[-1] == "~"


def test_non_ascii_story_is_a_clear_error(tmp_path):
    bad = tmp_path / "story.txt"
    bad.write_text("Once upon a t\u00efme.")
    with pytest.raises(ValueError, match=r"story.txt: characters outside printable ASCII: \['\u00ef'\]"):
        load_story(bad)


def test_windows_slide_by_one_and_targets_are_shifted():
    x, y = windows([10, 11, 12, 13, 14, 15], window=3)
    assert x.tolist() == [[10, 11, 12], [11, 12, 13], [12, 13, 14]]
    assert y.tolist() == [[11, 12, 13], [12, 13, 14], [13, 14, 15]]
    assert x.dtype == np.int64


def test_windows_reject_text_that_is_too_short():
    with pytest.raises(ValueError, match="too short for 5-character windows"):
        windows([1, 2, 3], window=5)


def test_dataset_of_the_story_has_30_character_windows():
    tok, x, y = load_dataset()
    assert x.shape == y.shape == (len(load_story()) - 30, 30)
    assert tok.decode(x[0].tolist()) == "Once upon a time there was a s"
    assert np.array_equal(x[1:, :], np.concatenate([x[1:, :-1], y[:-1, -1:]], axis=1))
