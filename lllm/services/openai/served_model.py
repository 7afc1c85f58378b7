"""Layer 4 · one TinyLLM behind a server: `ServedModel.run(prompt, settings) -> Completion`, whole or as it is written.

Read `lllm/model/generate.py` (BackendPredictor, NumberSlots) first. A server answers many
requests with one model, so each request gets its own `BackendPredictor` over the shared backend,
seeded from the request: the same prompt, settings and seed give the same text as `python -m lllm
generate` (for the story model) and as `--predictor tinyllm-agent` (the agent model reads its
prompt from `Question: ` with numbers as slots, as its predictor does, and the caller gets the
numbers back). Counts are in characters, this model's tokens: `prompt_tokens` is what the model
read, `completion_tokens` what it wrote (a stop string it wrote included, though not returned).

`stream(prompt, settings)` yields the text in pieces while the model writes it (a piece holds all
it wrote since the reader last asked), then the `Completion`; the pieces add up to `run`'s text. Two things are held back until they are settled:
the start of a stop string (it may be cut off) and a number slot still being written (`#1` may
become `#12`).

Usage:

    >>> from lllm.model.tokenizer import CharTokenizer
    >>> tok = CharTokenizer("ab")
    >>> model = ServedModel("ab", lambda ids, state: ([0.0, 5.0], state), tok)   # always prefers 'b'
    >>> model.run("a", Settings(max_tokens=3, temperature=0))
    Completion(text='bbb', finish_reason='length', prompt_tokens=1, completion_tokens=3)
    >>> [piece for piece in model.stream("a", Settings(max_tokens=3, temperature=0, stop=("bb",)))]
    [Completion(text='', finish_reason='stop', prompt_tokens=1, completion_tokens=2)]
"""

from __future__ import annotations

import os
import queue
import re
import threading
from dataclasses import dataclass
from typing import Iterator

from lllm.model.generate import Backend, BackendPredictor, NumberSlots, model_view
from lllm.model.tokenizer import CharTokenizer
from lllm.predictors.specs import DEFAULT_TINYLLM, DEFAULT_TINYLLM_AGENT, TINYLLM_AGENT_STOP, TINYLLM_STOP

__all__ = ["MODEL_NAMES", "Settings", "Completion", "ServedModel", "open_model", "settled"]

MODEL_NAMES = ("tinyllm", "tinyllm-agent")
# The agent model's own end of text: what its predictor stops at beyond the ReAct agent's "Observation:".
PROMPT_PIECE = 1024   # characters the model reads in one call: bounds a request's memory, whatever its prompt
AGENT_ENDS = tuple(s for s in TINYLLM_AGENT_STOP if s not in TINYLLM_STOP)


@dataclass(frozen=True)
class Settings:
    """How to generate: OpenAI's request fields, checked (`lllm/services/openai/service.py` reads them)."""

    max_tokens: int = 200
    temperature: float = 0.8
    top_p: float = 1.0
    top_k: int = 0
    seed: int = 0
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class Completion:
    text: str
    finish_reason: str          # "stop" (a stop string or the model's own end) or "length"
    prompt_tokens: int
    completion_tokens: int


class Cancelled(Exception):
    """The client left while its completion was being written."""


# ---- the model ----------------------------------------------------------------------------------

class ServedModel:
    """A backend and its tokenizer, with what a request needs to know: the model's default
    temperature, its own end of text (`ends`, the agent model's blank line) and how it reads a
    prompt (`reads_from`, `number_slots`: see lllm/model/generate.py); `calls_tools` when it was
    tuned to write ReAct actions, which `toolcalls.py` turns into OpenAI's tool calls."""

    def __init__(self, name: str, backend: Backend, tokenizer: CharTokenizer, *, temperature: float = 0.8,
                 ends: tuple[str, ...] = (), reads_from: str | None = None,
                 number_slots: NumberSlots | None = None, created: int = 0, calls_tools: bool = False):
        self.name, self.backend, self.tokenizer = name, backend, tokenizer
        self.calls_tools = calls_tools     # tuned on ReAct text, so it can write tool calls (toolcalls.py)
        self.temperature, self.ends = temperature, tuple(ends)
        self.reads_from, self.number_slots, self.created = reads_from, number_slots, created

    def stops(self, settings: Settings) -> tuple[str, ...]:
        return tuple(s for s in (*settings.stop, *self.ends) if s)

# --8<-- [start:run]
    def run(self, prompt: str, settings: Settings, on_char=None, cancel: threading.Event | None = None) -> Completion:
        """The whole completion. `on_char(ch)` is told each character once the model has read it
        back (every one but the last); it may raise to stop the generation. Setting `cancel`
        stops it too (`Cancelled`), between two characters or two pieces of the prompt."""
        def backend(ids, state):
            if cancel is not None and cancel.is_set():
                raise Cancelled
            if state is not None:          # after the prompt, each call reads the character just chosen
                if on_char is not None:
                    on_char(self.tokenizer.vocab[ids[-1]])
                return self.backend(ids, state)
            done = 0                       # the prompt, a piece at a time: memory stays that of one piece
            while len(ids) - done > PROMPT_PIECE:
                state = self.backend(ids[done:done + PROMPT_PIECE], state)[1]
                done += PROMPT_PIECE
                if cancel is not None and cancel.is_set():
                    raise Cancelled
            return self.backend(ids[done:], state)
        predictor = BackendPredictor(backend, self.tokenizer, settings.temperature, settings.top_k, settings.top_p,
                                     settings.seed, settings.max_tokens, self.stops(settings),
                                     self.reads_from, self.number_slots)
        text = predictor(prompt)
        last = predictor.last
        read = len(self.tokenizer.encode_lossy(last.prompt)[0]) or 1      # an empty prompt reads as "\n"
        wrote = len(last.completion) + len(last.stopped_by or "")
        return Completion(text, "stop" if last.stopped_by else "length", read, wrote)
# --8<-- [end:run]

    def stream(self, prompt: str, settings: Settings, cancel: threading.Event | None = None,
               start=None) -> Iterator[str | Completion]:
        """Pieces of text while the model writes, then the Completion; closing it (or setting
        `cancel`) stops the model. `start(work)` runs the model's work (default: a thread of its own;
        a server passes its bounded pool's `submit`)."""
        chars: queue.SimpleQueue = queue.SimpleQueue()
        cancel = cancel or threading.Event()

        def told(ch: str) -> None:
            if cancel.is_set():
                raise Cancelled
            chars.put(ch)

        def work() -> None:
            try:
                chars.put(self.run(prompt, settings, on_char=told, cancel=cancel))
            except BaseException as error:          # handed to the reader, who raises it
                chars.put(error)

        numbers = model_view(prompt, self.reads_from, self.number_slots)[1]
        stops, written, sent = self.stops(settings), "", ""
        if start is None:
            threading.Thread(target=work, daemon=True, name=f"serve-{self.name}").start()
        else:
            start(work)
        try:
            while True:
                item = chars.get()
                while isinstance(item, str) and not chars.empty():     # the reader fell behind: take
                    item, written = chars.get(), written + item        # all the model wrote meanwhile
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, Completion):
                    if item.text[len(sent):]:
                        yield item.text[len(sent):]
                    yield item
                    return
                written += item
                shown = settled(written, stops, self.number_slots)
                if self.number_slots:
                    shown = self.number_slots.unmask(shown, numbers)
                if len(shown) > len(sent) and shown.startswith(sent):
                    yield shown[len(sent):]
                    sent = shown
        finally:
            cancel.set()


def settled(text: str, stops: tuple[str, ...], slots: NumberSlots | None = None) -> str:
    """The part of `text` that no later character can change: without a tail that may be the start
    of a stop string, then without a number slot that may still grow.

    >>> settled("Final Answer: #1", ("\\n\\n",), NumberSlots())
    'Final Answer: '
    >>> settled("391\\n", ("\\n\\n",))
    '391'
    """
    held = max((n for s in stops for n in range(1, len(s)) if text.endswith(s[:n])), default=0)
    text = text[:len(text) - held]
    if slots is not None:
        text = re.sub(f"[{re.escape(slots.mark + slots.word_mark)}][0-9]*$", "", text)
    return text


# ---- opening the models -------------------------------------------------------------------------

def open_model(spec: str) -> ServedModel:
    """`tinyllm[:PATH]` or `tinyllm-agent[:PATH]` (as `--predictor` names them) as a ServedModel;
    ValueError naming the problem. The agent model is greedy unless a request says otherwise and
    ends its text with a blank line, as its predictor does (lllm/predictors/specs.py)."""
    name, _, path = spec.strip().partition(":")
    if name not in MODEL_NAMES:
        raise ValueError(f"--models: {spec!r} is not tinyllm[:PATH] or tinyllm-agent[:PATH]")
    from lllm.model.onnx_backend import OnnxBackend     # onnxruntime: CPython only, so imported late
    agent = name == "tinyllm-agent"
    path = path or (DEFAULT_TINYLLM_AGENT if agent else DEFAULT_TINYLLM)
    try:
        backend = OnnxBackend(path)
    except ValueError as error:
        build = "make agent-model" if agent else "make model"
        raise ValueError(f"--models {name}: {error} (`{build}` builds it)") from None
    card = backend.card
    return ServedModel(name, backend, backend.tokenizer, temperature=0.0 if agent else 0.8,
                       ends=AGENT_ENDS if agent else (), reads_from=card.get("reads_from"),
                       number_slots=NumberSlots.from_card(card.get("number_slots"), card["vocab"]),
                       created=int(os.path.getmtime(path)), calls_tools=agent)
