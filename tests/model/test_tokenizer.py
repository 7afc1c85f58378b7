"""The character tokenizer (lllm/model/tokenizer.py)."""

import json

import pytest

from lllm.model.tokenizer import CharTokenizer, UnknownCharacters

VOCAB = ["\n", " ", "a", "b", "c"]


def test_round_trip():
    tok = CharTokenizer(VOCAB)
    assert tok.encode("abc cab") == [2, 3, 4, 1, 4, 2, 3]
    assert tok.decode(tok.encode("a\nb c")) == "a\nb c"
    assert len(tok) == 5


def test_unknown_characters_are_named_never_dropped_silently():
    tok = CharTokenizer(VOCAB)
    with pytest.raises(UnknownCharacters) as err:
        tok.encode("abéxé")
    assert err.value.chars == ["é", "x"]
    assert "'é', 'x'" in str(err.value)
    assert tok.encode_lossy("abéxé") == ([2, 3], ["é", "x"])
    assert tok.unknown("cab") == []


def test_from_card_dict_and_file(tmp_path):
    card = {"vocab": VOCAB}
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    assert CharTokenizer.from_card(card).vocab == VOCAB
    assert CharTokenizer.from_card(str(path)).encode("cab") == [4, 2, 3]
    with pytest.raises(ValueError, match="no 'vocab'"):
        CharTokenizer.from_card({})


def test_bad_vocabularies():
    with pytest.raises(ValueError, match="duplicate"):
        CharTokenizer(["a", "b", "a"])
    with pytest.raises(ValueError, match="entry 1 must be a single character"):
        CharTokenizer(["a", "bc"])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        CharTokenizer(VOCAB).decode([5])
