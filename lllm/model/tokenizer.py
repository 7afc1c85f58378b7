"""Layer 1 · the character tokenizer: text <-> integer ids, one id per character.

Read `lllm/predictors/contract.py` first. The vocabulary is stored in the model card (`tinyllm.json`, key
`vocab`, the characters in id order), so the tokenizer always matches the model it came with.

Characters outside the vocabulary are never dropped in silence: `encode` raises
`UnknownCharacters` naming them, and `encode_lossy` returns the ids together with the
characters it had to remove, so a caller (the CLI, a predictor) can say so.

Usage:

    >>> tok = CharTokenizer(["\\n", " ", "a", "b", "c"])
    >>> tok.encode("abc cab")
    [2, 3, 4, 1, 4, 2, 3]
    >>> tok.decode([4, 2, 3])
    'cab'
    >>> tok.encode_lossy("abé")
    ([2, 3], ['é'])
"""

from __future__ import annotations

import json
from typing import Iterable, Sequence

__all__ = ["CharTokenizer", "UnknownCharacters"]


class UnknownCharacters(ValueError):
    """Text contains characters the vocabulary cannot encode."""

    def __init__(self, chars: Sequence[str]):
        self.chars = list(chars)
        shown = ", ".join(repr(c) for c in self.chars)
        super().__init__(f"characters not in the model's vocabulary: {shown}")


# --8<-- [start:tokenizer]
class CharTokenizer:
    """Maps each character to its index in `vocab` (a sequence of distinct 1-char strings)."""

    def __init__(self, vocab: Iterable[str]):
        self.vocab = list(vocab)
        for i, ch in enumerate(self.vocab):
            if not isinstance(ch, str) or len(ch) != 1:
                raise ValueError(f"vocab entry {i} must be a single character, got {ch!r}")
        if len(set(self.vocab)) != len(self.vocab):
            dupes = sorted({c for c in self.vocab if self.vocab.count(c) > 1})
            raise ValueError(f"vocab has duplicate characters: {dupes!r}")
        self.char_to_id = {ch: i for i, ch in enumerate(self.vocab)}

    @classmethod
    def from_card(cls, card: dict | str) -> "CharTokenizer":
        """Build from a model card (a dict, or the path of its JSON file)."""
        if isinstance(card, str):
            with open(card, encoding="utf-8") as f:
                card = json.load(f)
        if "vocab" not in card:
            raise ValueError("model card has no 'vocab' field")
        return cls(card["vocab"])

    def __len__(self) -> int:
        return len(self.vocab)

    def unknown(self, text: str) -> list[str]:
        """The distinct characters of `text` not in the vocabulary, in order of first appearance."""
        seen: dict[str, None] = {}
        for ch in text:
            if ch not in self.char_to_id:
                seen.setdefault(ch)
        return list(seen)

    def encode(self, text: str) -> list[int]:
        """Ids for `text`; raises UnknownCharacters if any character is outside the vocabulary."""
        missing = self.unknown(text)
        if missing:
            raise UnknownCharacters(missing)
        return [self.char_to_id[ch] for ch in text]

    def encode_lossy(self, text: str) -> tuple[list[int], list[str]]:
        """(ids of the known characters, the distinct unknown characters that were removed)."""
        ids = [self.char_to_id[ch] for ch in text if ch in self.char_to_id]
        return ids, self.unknown(text)

    def decode(self, ids: Iterable[int]) -> str:
        out = []
        for i in ids:
            if not 0 <= i < len(self.vocab):
                raise ValueError(f"token id {i} is outside the vocabulary (size {len(self.vocab)})")
            out.append(self.vocab[i])
        return "".join(out)
# --8<-- [end:tokenizer]
