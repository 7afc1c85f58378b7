"""Layer 1 · the training data: our story, its character vocabulary, and sliding windows.

Consumes: layer 1 of the package (`lllm.model.tokenizer`).

Contract: `load_story() -> str`, `build_vocab(story) -> list[str]` (characters in id order),
`windows(ids, window) -> (x, y)` int64 arrays of shape (N, window), where y is x shifted by one.

Read `lllm/model/tokenizer.py` first: the same `CharTokenizer` encodes the training text here and
the prompts at generation time, so there is exactly one mapping from characters to ids.

The vocabulary is every character of the story *plus* every printable ASCII character and the
newline. The story never writes `[` or `*`, but an agent's formats do (`Action: calc[17*23]`),
so those characters must have an id even if the model has never seen them in training.

Usage:

    >>> story = "Once upon a time."
    >>> vocab = build_vocab(story)
    >>> len(vocab), vocab[:3]
    (96, ['\\n', ' ', '!'])
    >>> x, y = windows(CharTokenizer(vocab).encode(story), window=4)
    >>> x.shape, y.shape
    ((13, 4), (13, 4))
    >>> "".join(vocab[i] for i in x[0]), "".join(vocab[i] for i in y[0])
    ('Once', 'nce ')
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `lllm` from the repo root
from lllm.model.tokenizer import CharTokenizer  # noqa: E402

__all__ = ["STORY_PATH", "load_story", "build_vocab", "windows", "load_dataset"]

STORY_PATH = Path(__file__).with_name("story.txt")


# ---- the story ---------------------------------------------------------------------------------

def load_story(path: str | Path = STORY_PATH) -> str:
    """The training text; it must be plain ASCII so every character is in the vocabulary."""
    text = Path(path).read_text(encoding="utf-8")
    odd = sorted({ch for ch in text if not (32 <= ord(ch) <= 126 or ch == "\n")})
    if odd:
        raise ValueError(f"{path}: characters outside printable ASCII: {odd!r}")
    return text


# ---- the vocabulary ----------------------------------------------------------------------------

# --8<-- [start:vocab]
PRINTABLE_ASCII = [chr(code) for code in range(32, 127)]  # ' ' .. '~', 95 characters


def build_vocab(story: str) -> list[str]:
    """Every character of the story, every printable ASCII character, and '\\n' - sorted."""
    return sorted(set(story) | set(PRINTABLE_ASCII) | {"\n"})
# --8<-- [end:vocab]


# ---- the dataset -------------------------------------------------------------------------------

# --8<-- [start:dataset]
def windows(ids: list[int], window: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Every `window`-character slice of the text (stride 1) and the slice one character later.

    x[n] = ids[n : n + window]          the input characters
    y[n] = ids[n + 1 : n + window + 1]  the character that follows each input character
    """
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    if len(ids) < window + 1:
        raise ValueError(f"text of {len(ids)} characters is too short for {window}-character windows")
    ids = np.asarray(ids, dtype=np.int64)
    n = len(ids) - window                                     # number of windows
    starts = np.arange(n)[:, None] + np.arange(window)[None, :]   # (N, window)
    return ids[starts], ids[starts + 1]
# --8<-- [end:dataset]


def load_dataset(window: int = 30, path: str | Path = STORY_PATH):
    """(tokenizer, x, y) for the story: the usual entry point for training."""
    story = load_story(path)
    tok = CharTokenizer(build_vocab(story))
    x, y = windows(tok.encode(story), window)
    return tok, x, y


if __name__ == "__main__":
    tok, x, y = load_dataset()
    print(f"vocabulary: {len(tok)} characters; windows: x {x.shape}, y {y.shape}")
    print(repr(tok.decode(x[0].tolist())), "->", repr(tok.decode(y[0].tolist())))
    # vocabulary: 96 characters; windows: x (4298, 30), y (4298, 30)
    # 'Once upon a time there was a s' -> 'nce upon a time there was a sm'
