"""Layer 1 · autoregressive generation: predict the next character, append it, repeat.

Read `tokenizer.py` and `sampling.py` first. A *backend* is the model as a function:

    backend(ids: list[int], state) -> (logits: list[float], state)

`ids` are new input characters, `state` is whatever the previous call returned (None = zero
state, i.e. nothing read yet) and `logits` are the scores for the character after the LAST id.
TinyLLM is an LSTM, so its state is (h, c): feeding the prompt once and then one character at a
time, carrying the state, reads every character exactly once.

The loop (mode "carry", the default — the page mirrors it exactly):

    ids = encode(prompt)  (unknown characters dropped and reported; an empty prompt reads as "\\n")
    logits, state = backend(ids, None)                 # the whole prompt, once
    repeat max_new_tokens times:
        if not the first step: logits, state = backend([last chosen id], state)
        next = sample(logits, temperature, top_k, top_p, rng)
        append next; stop early if the text now ends with a stop string

Mode "window" re-runs the last `window` characters from zero state at every step, as a
transformer without a cache would — slower, and it forgets everything older than the window. It
is here for teaching and for the benchmark.

Usage:

    >>> from lllm.model.tokenizer import CharTokenizer
    >>> tok = CharTokenizer("ab")
    >>> def always_b(ids, state):            # a "model" that always prefers 'b'
    ...     return [0.0, 5.0], state
    >>> generate(always_b, tok, "a", max_new_tokens=3, temperature=0).completion
    'bbb'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from lllm.model.sampling import Mulberry32, check_sampling, sample, top_predictions
from lllm.model.tokenizer import CharTokenizer

__all__ = ["Backend", "Generation", "generate", "next_char_view", "BackendPredictor", "EMPTY_PROMPT",
           "prompt_view", "NumberSlots", "model_view"]

Backend = Callable[[list[int], Any], tuple[list[float], Any]]
EMPTY_PROMPT = "\n"   # what an empty prompt is read as: the model needs at least one character


@dataclass
class Generation:
    """One generation: the prompt as given, the completion, and what happened on the way."""

    prompt: str
    completion: str
    dropped: list[str] = field(default_factory=list)   # prompt characters outside the vocabulary
    stopped_by: str | None = None                       # the stop string that ended it, if any
    top: list[list[tuple[str, float]]] = field(default_factory=list)  # per step, when asked
    numbers: list[str] = field(default_factory=list)   # with number slots: slot #k is numbers[k - 1], and
                                                        # prompt and completion are what the model read and wrote


def check_count(max_new_tokens: int) -> None:
    if not isinstance(max_new_tokens, int) or isinstance(max_new_tokens, bool) or max_new_tokens < 0:
        raise ValueError(f"max-new-tokens must be an integer >= 0, got {max_new_tokens!r}")


def _prompt_ids(tokenizer: CharTokenizer, prompt: str) -> tuple[list[int], list[str]]:
    ids, dropped = tokenizer.encode_lossy(prompt)
    if not ids:
        ids = tokenizer.encode(EMPTY_PROMPT)
    return ids, dropped


# --8<-- [start:generate-loop]
def generate(backend: Backend, tokenizer: CharTokenizer, prompt: str, max_new_tokens: int = 200,
             temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0,
             rng: Mulberry32 | None = None, mode: str = "carry", window: int = 30,
             stop: Sequence[str] = (), show_top: int = 0) -> Generation:
    """Continue `prompt` by up to `max_new_tokens` characters; returns the completion only."""
    check_count(max_new_tokens)
    check_sampling(temperature, top_k, top_p)
    if mode not in ("carry", "window"):
        raise ValueError(f"mode must be 'carry' or 'window', got {mode!r}")
    rng = rng if rng is not None else Mulberry32(seed)
    ids, dropped = _prompt_ids(tokenizer, prompt)
    out = Generation(prompt=prompt, completion="", dropped=dropped)

    logits, state = backend(ids if mode == "carry" else ids[-window:], None)
    text = ""
    for step in range(max_new_tokens):
        if step > 0:                                   # read the character just chosen
            if mode == "carry":
                logits, state = backend([ids[-1]], state)
            else:
                logits, _ = backend(ids[-window:], None)
        if show_top:
            out.top.append([(tokenizer.vocab[i], p) for i, p in top_predictions(logits, show_top)])
        next_id = sample(logits, temperature, top_k, top_p, rng)
        text += tokenizer.vocab[next_id]
        ids.append(next_id)
        out.stopped_by = next((s for s in stop if s and text.endswith(s)), None)
        if out.stopped_by:
            text = text[: -len(out.stopped_by)]
            break
    out.completion = text
    return out
# --8<-- [end:generate-loop]


# --8<-- [start:top-predictions]
def next_char_view(backend: Backend, tokenizer: CharTokenizer, prompt: str, k: int = 5,
                   temperature: float = 1.0) -> list[tuple[str, float]]:
    """The model's top-k guesses for the character after `prompt`, with probabilities."""
    ids, _ = _prompt_ids(tokenizer, prompt)
    logits, _ = backend(ids, None)
    return [(tokenizer.vocab[i], p) for i, p in top_predictions(logits, k, temperature)]
# --8<-- [end:top-predictions]


# ---- a Predictor over any backend --------------------------------------------------------------

def prompt_view(prompt: str, reads_from: str | None) -> str:
    """What a model trained on one kind of text reads of a prompt: from the last line that starts
    with `reads_from` (None, or no such line: all of it).

    The agent-tuned TinyLLM was trained on episodes that start at `Question: `; the tool header
    above that line is the same in every prompt, so it carries nothing the model needs.

    >>> prompt_view("Tools: calc\\nQuestion: 2+2?\\nThought: add\\n", "Question: ")
    'Question: 2+2?\\nThought: add\\n'
    """
    if not reads_from or prompt.startswith(reads_from) and "\n" + reads_from not in prompt:
        return prompt
    at = prompt.rfind("\n" + reads_from)
    return prompt[at + 1:] if at >= 0 else prompt


# --8<-- [start:number-slots]
NUMBER_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?")    # a number literal: ASCII digits, an optional decimal part
WORD_RE = re.compile(r"[A-Za-z]+")               # a word, for word slots: ASCII letters
TOKEN_RE = re.compile(NUMBER_RE.pattern + "|" + WORD_RE.pattern)
SLOT_RE = re.compile(r"([^\s\w])([1-9][0-9]*)")  # a mark, then a slot number


@dataclass(frozen=True)
class NumberSlots:
    """Numbers (and unknown words) by reference: the model reads and writes `#1`, `#2`... instead of
    the digits it copies, and `@1`, `@2`... instead of a word it never learned.

    `mask(text)` scans a prompt line by line. In a line the model reads (the question, an
    observation: any line not starting with one of `own_lines`) every number literal gets a slot,
    numbered by first appearance; the same literal is always the same slot. In the model's own
    lines (its Thought / Action / Final Answer) a number that already has a slot is written as the
    slot, and any other number is one the model wrote itself and stays digits. Reading left to
    right, masking a prompt gives the start of masking the longer prompt the next step sees, so a
    whole training episode masked once is what the model reads at every step.

    With a `lexicon` (the words training uses for their meaning, lower case), a word of a read line
    that is not in it gets a word slot the same way (`word_mark`, numbered on its own): a word to
    copy, like the word an echo goal asks for, is then one slot to copy, not letters to spell.

    A number literal is digits with an optional decimal part (`3.5` is one slot); a sign stays
    outside it, so `-45` reads `-#3`. `unmask(text, values)` puts the numbers and words back into
    what the model wrote (`values` in order of first appearance: slot #k is the k-th number of
    them, @k the k-th word); a slot with nothing behind it (`#9` of three) is left as written, so
    the tool that gets it says so.

    >>> slots = NumberSlots()
    >>> slots.mask("Question: 96 plus 85?\\nThought: compute 96 + 85\\nObservation: 181\\n")
    ('Question: #1 plus #2?\\nThought: compute #1 + #2\\nObservation: #3\\n', ['96', '85', '181'])
    >>> slots.unmask("Final Answer: #3", ["96", "85", "181"])
    'Final Answer: 181'
    >>> words = NumberSlots(lexicon=frozenset({"question", "say", "repeat"}))
    >>> words.mask("Question: Say gorbel 3.\\nThought: repeat gorbel")
    ('Question: Say @1 #1.\\nThought: repeat @1', ['gorbel', '3'])
    """

    mark: str = "#"
    own_lines: tuple[str, ...] = ("Thought:", "Action:", "Final Answer:")   # the ReAct agent's own lines
    word_mark: str = "@"
    lexicon: frozenset[str] = frozenset()    # empty: words are read as letters

    def mask(self, text: str) -> tuple[str, list[str]]:
        """(text with slots, the values behind them in order of first appearance)."""
        slot: dict[str, str] = {}
        counts = {self.mark: 0, self.word_mark: 0}

        def read(match: re.Match) -> str:
            token = match.group()
            if token not in slot:
                word = token[0].isalpha()
                if word and (not self.lexicon or token.lower() in self.lexicon):
                    return token                     # a word read as letters: no lexicon, or a known word
                mark = self.word_mark if word else self.mark
                counts[mark] += 1
                slot[token] = f"{mark}{counts[mark]}"
            return slot[token]

        def copied(match: re.Match) -> str:
            return slot.get(match.group(), match.group())

        pattern = TOKEN_RE if self.lexicon else NUMBER_RE
        lines = text.split("\n")
        for i, line in enumerate(lines):
            lines[i] = pattern.sub(copied if line.startswith(self.own_lines) else read, line)
        return "\n".join(lines), list(slot)

    def unmask(self, text: str, values: list[str]) -> str:
        """`text` with each slot that has a value replaced by it."""
        numbers = [v for v in values if not v[0].isalpha()]
        words = [v for v in values if v[0].isalpha()]

        def value(match: re.Match) -> str:
            mark, k = match.group(1), int(match.group(2))
            table = numbers if mark == self.mark else words if mark == self.word_mark and self.lexicon else None
            return table[k - 1] if table is not None and k <= len(table) else match.group()
        return SLOT_RE.sub(value, text)

    def to_card(self) -> dict:
        card = {"mark": self.mark, "own_lines": list(self.own_lines)}
        if self.lexicon:
            card |= {"word_mark": self.word_mark, "lexicon": sorted(self.lexicon)}
        return card

    @classmethod
    def from_card(cls, value, vocab) -> "NumberSlots | None":
        """A card's `number_slots` field (None: the model reads digits); ValueError saying what is wrong."""
        if value is None:
            return None
        if not isinstance(value, dict) or set(value) not in ({"mark", "own_lines"},
                                                              {"mark", "own_lines", "word_mark", "lexicon"}):
            raise ValueError("number_slots must be an object with exactly the fields mark and own_lines "
                             "(and, for word slots, word_mark and lexicon)")
        mark, own = value["mark"], value["own_lines"]
        for name, m in (("mark", mark), ("word_mark", value.get("word_mark", "@"))):
            if not (isinstance(m, str) and len(m) == 1) or m.isspace() or m.isalnum() or m in ".-_":
                raise ValueError(f"number_slots.{name} must be one character other than a letter, a digit, "
                                 f"'.', '-', '_' or a space, got {m!r}")
            if name == "mark" or "word_mark" in value:
                if m not in vocab:
                    raise ValueError(f"number_slots.{name} {m!r} is not in the model's vocabulary")
        if (not isinstance(own, list) or not own
                or not all(isinstance(p, str) and p.strip() and "\n" not in p for p in own)):
            raise ValueError("number_slots.own_lines must be a non-empty list of line starts "
                             "(non-empty strings without a newline)")
        if "lexicon" not in value:
            return cls(mark, tuple(own))
        lexicon = value["lexicon"]
        if (not isinstance(lexicon, list) or not lexicon
                or not all(isinstance(w, str) and WORD_RE.fullmatch(w) and w == w.lower() for w in lexicon)):
            raise ValueError("number_slots.lexicon must be a non-empty list of lower-case words (ASCII letters)")
        if value["word_mark"] == mark:
            raise ValueError(f"number_slots.word_mark must differ from mark, both are {mark!r}")
        return cls(mark, tuple(own), value["word_mark"], frozenset(lexicon))
# --8<-- [end:number-slots]


def model_view(prompt: str, reads_from: str | None, number_slots: NumberSlots | None) -> tuple[str, list[str]]:
    """What the model reads of `prompt` (`prompt_view`, then number slots if it has them), and the
    numbers its slots stand for. Both predictors, in CPython and in the page, read prompts so."""
    view = prompt_view(prompt, reads_from)
    return number_slots.mask(view) if number_slots else (view, [])


class BackendPredictor:
    """The seam: wraps a backend + tokenizer as `predictor(prompt, max_new_tokens) -> completion`.

    One Mulberry32 stream, seeded once, runs across calls, so a whole agent run is reproducible
    from its seed. `last` keeps the most recent Generation (e.g. to see dropped characters).
    `reads_from` (see `prompt_view`) is for a model trained on text that starts at a marker, and
    `number_slots` (see `NumberSlots`) for one trained to read and write numbers as slots: it
    reads the masked prompt and the caller gets its reply with the numbers put back (`last` keeps
    the masked view and the slot table).
    """

    def __init__(self, backend: Backend, tokenizer: CharTokenizer, temperature: float = 0.8,
                 top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_new_tokens: int = 200,
                 stop: Sequence[str] = (), reads_from: str | None = None,
                 number_slots: NumberSlots | None = None):
        check_sampling(temperature, top_k, top_p)
        check_count(max_new_tokens)
        self.backend, self.tokenizer = backend, tokenizer
        self.temperature, self.top_k, self.top_p = temperature, top_k, top_p
        self.max_new_tokens, self.stop = max_new_tokens, tuple(stop)
        self.reads_from, self.number_slots = reads_from, number_slots
        self.rng = Mulberry32(seed)
        self.last: Generation | None = None

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        n = self.max_new_tokens if max_new_tokens is None else max_new_tokens
        view, numbers = model_view(prompt, self.reads_from, self.number_slots)
        self.last = generate(self.backend, self.tokenizer, view, n, self.temperature, self.top_k,
                             self.top_p, rng=self.rng, stop=self.stop)
        self.last.numbers = numbers
        return self.number_slots.unmask(self.last.completion, numbers) if self.number_slots else self.last.completion
