"""Layer 1 · the agent model's recipe: what shapes its weights. `train_agent(settings) -> (params, history)`.

Consumes: layer 1 (`lllm.model.tokenizer`, `lllm.model.generate`), layer 2 (`lllm.predictors`:
the task teacher writes the episodes), layer 3 (`lllm.agents.react`) and layer 4 (`lllm.labs.factory`,
`lllm.labs.factory.tasks`, `lllm.labs.factory.reshape`: the tasks, their shapes and their verification).

Here: the settings, the episodes drawn for every step, the weighted loss, the checkpoints' yardstick,
the training loop and its learning-rate schedule. `agent_build.py` runs it: seeds, the ensemble,
the build key, the committed model (`python -m export.agent_build`).

Read `model.py`, `train.py` and `lllm/labs/factory.py` first. The recipe (site/agents/agent-model.md,
re-measured here) and where each piece lives:

    fresh trajectories every step   fresh_episodes: new verified factory episodes, never a pool
    loss on the agent's lines only  factory.agent_mask -> a weight per position (weighted_loss)
    episodes start at "Question: "  from zero state; the card's reads_from makes every predictor
                                    feed the model from the last Question line (the tool header
                                    is the same in every prompt). Measured: ~3x fewer updates to
                                    the same loss than starting from the header's state
    chrono forget-gate init         chrono_init: forget biases spread over log(1..T) so some
                                    units remember across a whole question
    small batches, many updates     batch 8, AdamW, lr 8e-3 with warm-up and cosine decay
    short copies                    the teacher writes "Thought: compute 48 + 17", then the
                                    action; "Thought: repeat apple"; the final answer right
                                    under the observation it copies
    a compositional grammar         five families (factory_tasks): each operation said many ways,
                                    word problems, questions about one detail of a fact, lookup-
                                    then-calc episodes, lead-ins with distractor words and numbers
    many phrasings, hard numbers    32 arithmetic prefixes (two held out); training draws more
                                    3-digit operands than the held-out goals do
    four seeds, one ensemble        train_seeds: two at a time (one per core); each keeps its best
                                    checkpoint on validation (220 goals of the validation split
                                    plus each said in another shape), and all four are exported as
                                    one graph that averages their next-character probabilities
                                    (onnx_export.to_onnx_ensemble), matrices stored as int8
    the weights' moving average     from halfway on, each check also scores the weights' moving
                                    average (decay 0.999 per update); the better of the two is kept
    structure noise                 factory_reshape.reshape: 50% of training goals said in another
                                    shape (case, symbols, distractor sentences before, between or
                                    after, the question or the operation first, the operation
                                    embedded in a longer sentence, an operand called "it"), so where
                                    a number or an operation word stands is not fixed by a template
    a plan in the first thought     a two-step goal's first thought names both steps ("look up
                                    tom, then + 5"), written before the long observation
    echo practice, equal operands   the echo family drawn 3x as often (echo_extra); 1 in 20 training
                                    calculations uses one number twice (factory_tasks.SAME_NUMBER)
    numbers as slots                generate.NumberSlots: every episode is masked as the predictor
                                    masks a prompt (the question's and observations' numbers become
                                    #1, #2...; the agent's lines copy the slots), so the model copies
                                    a number by reference, not digit by digit; the card's
                                    number_slots makes every predictor do the same
    unknown words as slots          the same for words: a word outside lexicon() (the words training
                                    uses for their meaning) reads @1, @2..., so an echo goal's word
                                    is one slot to copy, not letters to spell; the card holds the
                                    lexicon
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import sys
import time
from dataclasses import dataclass

import numpy as np

from export.data import build_vocab, load_story
from export.model import Config, forward, init_params, lstm_backward
from export.train import AdamW, clip_global_norm
from lllm.labs.factory.episodes import agent_mask, prompt_header, run_episode
from lllm.labs.factory.reshape import reshape
from lllm.labs.factory.tasks import MIX, make_task
from lllm.model.generate import WORD_RE, NumberSlots
from lllm.model.tokenizer import CharTokenizer

__all__ = ["AgentSettings", "vocabulary", "chrono_init", "weighted_loss_and_grads", "fresh_episodes", "make_batch",
           "header_state", "HeaderCachedBackend", "READS_FROM", "lexicon", "slots_for", "validation_accuracy",
           "onnx_accuracy", "train_agent", "learning_rate"]


# ---- settings ----------------------------------------------------------------------------------

# --8<-- [start:settings]
@dataclass(frozen=True)
class AgentSettings:
    embed: int = 32            # as the story model
    hidden: int = 168          # as the story model: bigger was slower and no better (notes)
    batch: int = 8             # small batches, more updates: 8 beat 32 by far (notes)
    steps: int = 34000         # updates; each sees `batch` fresh episodes (~20 min a seed on one core)
    lr: float = 8e-3           # 6e-3..1e-2 helped, 2e-2 diverged (notes)
    warmup: int = 100          # steps of linear warm-up, then cosine decay to lr / 10
    clip: float = 1.0
    weight_decay: float = 0.01
    chrono: int = 80           # chrono init over log(1..chrono); 0 = the story model's bias 1
    mask: bool = True          # loss only on the agent's own characters
    seed: int = 0
    checkpoints: int = 9       # validation checks during training; the best one is kept
    header: bool = False       # False: episodes start at "Question: " from zero state, and the card's
                               # reads_from tells every predictor to feed the model from there (learns
                               # ~3x faster than starting from the header's state, measured)
    header_every: int = 10     # re-run the header every this many steps (it changes slowly)
    reshape: float = 0.5       # share of training goals said in another shape (factory_reshape.SHARE)
    number_slots: bool = True  # numbers the model reads become slots #1, #2... (generate.NumberSlots)
    word_slots: bool = True    # with number_slots: words outside the training lexicon become @1, @2...
    ema: float = 0.999         # with checkpoints: also try the weights' moving average (this decay per
                               # update, from halfway on) at each check, and keep it if it reads better
    echo_extra: int = 2        # the echo family drawn 1 + this many times per len(MIX): copying a
                               # word from anywhere in a goal needs more practice than the factory's mix
# --8<-- [end:settings]

    def config(self, vocab_size: int) -> Config:
        return Config(vocab_size=vocab_size, embed=self.embed, hidden=self.hidden, layers=1,
                      batch=self.batch, lr=self.lr, epochs=1, weight_decay=self.weight_decay,
                      clip=self.clip, seed=self.seed)


def vocabulary() -> CharTokenizer:
    return CharTokenizer(build_vocab(load_story()))


# ---- chrono initialisation ---------------------------------------------------------------------

def chrono_init(params, config: Config, t_max: int, rng: np.random.Generator) -> None:
    """Tallec & Ollivier (2018): forget bias log(u), u ~ U(1, t_max - 1), input bias its negative,
    so units start with memories spread from one character to about t_max. Gate order i, f, o, g."""
    H = config.hidden
    for l in range(config.layers):
        b_f = np.log(rng.uniform(1.0, t_max - 1.0, size=H)).astype(np.float32)
        params[f"b{l}"][H:2 * H] = b_f
        params[f"b{l}"][:H] = -b_f


# ---- the weighted loss -------------------------------------------------------------------------

# --8<-- [start:weighted-loss]
def weighted_loss_and_grads(params, config: Config, x, y, w, state):
    """Like model.loss_and_grads, but each target y[b, t] counts with weight w[b, t] (0 = ignore)
    and the batch starts from `state` (the header's). Returns (mean weighted loss, grads)."""
    B, T = x.shape
    H, V = config.hidden, config.vocab_size
    logits, (x, caches, top), _ = forward(params, config, x, state)      # top (T, B, H): time-major
    z = logits.transpose(1, 0, 2).reshape(T * B, V)                      # rows t-major: t, then b
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)                                    # softmax (T*B, V)
    rows, targets, weights = np.arange(T * B), y.T.reshape(-1), w.T.reshape(-1).astype(z.dtype)
    total = max(float(weights.sum()), 1.0)
    loss = float(-(np.log(p[rows, targets] + 1e-12) * weights).sum() / total)
    dlogits = p
    dlogits[rows, targets] -= 1.0
    dlogits *= (weights / total)[:, None]                                # (T*B, V)
    grads = {"W_out": top.reshape(-1, H).T @ dlogits, "b_out": dlogits.sum(axis=0)}
    dout = (dlogits @ params["W_out"].T).reshape(T, B, H)
    for l in reversed(range(config.layers)):
        dout, grads[f"W_x{l}"], grads[f"W_h{l}"], grads[f"b{l}"] = lstm_backward(dout, caches[l])
    grads["embed"] = np.zeros_like(params["embed"])
    np.add.at(grads["embed"], x.T.reshape(-1), dout.reshape(T * B, -1))  # each use of a row adds
    return loss, grads
# --8<-- [end:weighted-loss]


def fresh_episodes(rng: random.Random, batch: int, reshape_share: float = 0.0, echo_extra: int = 0) -> list[str]:
    """`batch` new verified episodes of one family (similar lengths pad less), each acted by its
    task's teacher; `reshape_share` of their goals said in another shape (factory_reshape)."""
    family, texts = rng.choice(MIX + ("no-tool",) * echo_extra), []
    while len(texts) < batch:
        episode = run_episode(reshape(make_task(rng, "train", family), rng, reshape_share))
        if episode.rejected is None:
            texts.append(episode.text())
    return texts


def make_batch(texts: list[str], tok: CharTokenizer, mask: bool = True):
    """Episodes -> x, y, w (B, T): inputs, next characters, weights; padding has weight 0."""
    T = max(len(t) for t in texts) - 1
    x = np.zeros((len(texts), T), np.int64)
    y = np.zeros((len(texts), T), np.int64)
    w = np.zeros((len(texts), T), np.float32)
    for b, text in enumerate(texts):
        ids, weights = tok.encode(text), agent_mask(text) if mask else [1] * len(text)
        n = len(ids) - 1
        x[b, :n], y[b, :n], w[b, :n] = ids[:-1], ids[1:], weights[1:]
    return x, y, w


def header_state(params, config: Config, header_ids, batch: int):
    """Run the tool header once (batch 1) and copy its final (h, c) for every episode."""
    _, _, (h, c) = forward(params, config, np.asarray([header_ids]), None, last_only=True)
    return np.repeat(h, batch, axis=1), np.repeat(c, batch, axis=1)      # (L, B, H) each


# ---- greedy runs on held-out tasks (for checkpoints) -------------------------------------------

class HeaderCachedBackend:
    """A NumpyBackend-like `backend(ids, state)` that skips re-reading the fixed header."""

    def __init__(self, params, config: Config, header_ids: list[int]):
        self.params, self.config, self.vocab_size = params, config, config.vocab_size
        self.header = header_ids
        self.header_state = header_state(params, config, header_ids, 1) if header_ids else None

    def __call__(self, ids, state=None):
        if state is None and self.header and list(ids[:len(self.header)]) == self.header:
            ids, state = ids[len(self.header):], self.header_state
        logits, _, state = forward(self.params, self.config, np.asarray([ids]), state, last_only=True)
        return logits[0].astype(np.float64).tolist(), state


READS_FROM = "Question: "     # where an episode (and so the model's view of a prompt) starts
NUMBER_SLOTS = NumberSlots()  # the ReAct agent's own lines (Thought, Action, Final Answer) copy the slots


@functools.lru_cache(maxsize=None)
def lexicon(episodes: int = 20000, seed: int = 0) -> frozenset[str]:
    """The words training uses for their meaning: every word (lower case) of `episodes` training
    episodes drawn as training draws them (each family in turn, reshaped at the recipe's share),
    except the word an echo goal asks for. Any other word a prompt holds is one to copy, not to
    know, and word slots make it one (`generate.NumberSlots`)."""
    rng, words = random.Random(seed), set()
    for i in range(episodes):
        task = reshape(make_task(rng, "train", MIX[i % len(MIX)]), rng, AgentSettings.reshape)
        episode = run_episode(task)
        if episode.rejected is None:
            text = episode.text().replace(task.answer, " ") if task.family == "no-tool" else episode.text()
            words.update(w.lower() for w in WORD_RE.findall(text))
    return frozenset(words)


def slots_for(settings: "AgentSettings") -> NumberSlots | None:
    """What the model reads numbers (and unknown words) as, for these settings (None: as written)."""
    if not settings.number_slots:
        return None
    return NumberSlots(lexicon=lexicon()) if settings.word_slots else NUMBER_SLOTS


def validation_accuracy(params, config, tok, header, tasks, number_slots: NumberSlots | None = None) -> float:
    """Share of tasks whose greedy run is fully right (tool, arguments and final answer)."""
    return backend_accuracy(HeaderCachedBackend(params, config, tok.encode(header)), tok, header, tasks, number_slots)


def onnx_accuracy(onnx_bytes: bytes, tok, tasks, number_slots: NumberSlots | None = None) -> float:
    """The same score for an exported graph (the ensemble's), run by onnxruntime as a predictor runs it."""
    from export.onnx_export import run, session_for
    import onnx
    session = session_for(onnx.load_from_string(onnx_bytes))

    def backend(ids, state=None):
        logits, state = run(session, [list(ids)], state)
        return logits[0, -1].tolist(), state
    return backend_accuracy(backend, tok, "", tasks, number_slots)


def backend_accuracy(backend, tok, header, tasks, number_slots: NumberSlots | None = None) -> float:
    from lllm.labs.factory.episodes import verify
    from lllm.model.generate import BackendPredictor
    from lllm.agents.react import run_react
    predictor = BackendPredictor(backend, tok, temperature=0, max_new_tokens=128,
                                 stop=("Observation:", "\n\n"), reads_from=None if header else READS_FROM,
                                 number_slots=number_slots)
    right = sum(verify(run_react(t.goal, predictor, max_steps=4, return_trajectory=True), t) is None
                for t in tasks)
    return right / len(tasks)


# ---- the training loop -------------------------------------------------------------------------

# --8<-- [start:train-agent]
def train_agent(settings: AgentSettings, progress: bool = True, validation=None, on_best=None,
                corpus: list[str] | None = None):
    """Train from scratch on fresh factory episodes (or on `corpus`, a factory corpus's episodes,
    drawn at random); with `validation` tasks, keep the best of `settings.checkpoints`
    checkpoints (and call `on_best(params, history)` with each new best). Returns (params, history)."""
    slots = slots_for(settings)
    if settings.header and settings.number_slots:
        raise ValueError("AgentSettings: number_slots needs header=False (slots are numbered from the "
                         "Question line on, and the header's own numbers would take the first slots)")
    tok = vocabulary()
    config = settings.config(len(tok))
    params = init_params(config)
    if settings.chrono:
        chrono_init(params, config, settings.chrono, np.random.default_rng([settings.seed, 2]))
    optimiser = AdamW(params, settings.lr, settings.weight_decay)
    rng = random.Random(settings.seed)
    header = prompt_header() if settings.header else ""
    header_ids = tok.encode(header)
    history = {"loss": [], "validation": [], "validation_average": [], "seconds": 0.0}
    data = hashlib.sha256()                          # every training text, in order: the card's data hash
    best, start, state, average = (-1.0, None), time.perf_counter(), None, None
    every = max(1, settings.steps // max(1, settings.checkpoints))
    for step in range(1, settings.steps + 1):
        texts = ([corpus[rng.randrange(len(corpus))] for _ in range(settings.batch)] if corpus
                 else fresh_episodes(rng, settings.batch, settings.reshape, settings.echo_extra))
        if slots:                                    # what the model reads at every step of the episode
            texts = [slots.mask(text)[0] for text in texts]
        data.update("\0".join(texts).encode() + b"\1")
        x, y, w = make_batch(texts, tok, settings.mask)
        if header_ids and (step - 1) % settings.header_every == 0:
            state = header_state(params, config, header_ids, settings.batch)
        loss, grads = weighted_loss_and_grads(params, config, x, y, w, state)
        clip_global_norm(grads, settings.clip)
        optimiser.lr = learning_rate(settings, step)
        optimiser.step(params, grads)
        history["loss"].append(loss)
        if settings.ema and validation and step > settings.steps // 2:
            if average is None:
                average = {k: v.copy() for k, v in params.items()}
            for k, v in params.items():              # in place: average = ema * average + (1 - ema) * v
                average[k] *= settings.ema
                average[k] += (1.0 - settings.ema) * v
        if validation and (step % every == 0 or step == settings.steps):
            candidates = [("validation", params)] + ([("validation_average", average)] if average is not None else [])
            for label, weights in candidates:
                score = validation_accuracy(weights, config, tok, header, validation, slots)
                history[label].append((step, score))
                if score >= best[0]:                 # ties go to the later, longer-trained weights
                    best = (score, {k: v.copy() for k, v in weights.items()})
                    if on_best:
                        history["seconds"] = time.perf_counter() - start
                        on_best(best[1], history)
        if progress and (step % 500 == 0 or step == settings.steps):
            seen = history["validation"][-1] if history["validation"] else None
            elapsed = time.perf_counter() - start
            print(f"seed {settings.seed}  step {step:5d}/{settings.steps}  loss {np.mean(history['loss'][-100:]):.4f}  "
                  f"{elapsed:5.0f}s" + (f"  validation {seen[1]:.1%} at step {seen[0]}" if seen else "")
                  + (f" (average {history['validation_average'][-1][1]:.1%})" if history["validation_average"] else ""),
                  file=sys.stderr, flush=True)
    history["seconds"], history["data_sha256"] = time.perf_counter() - start, data.hexdigest()
    return (best[1] if best[1] is not None else params), history
# --8<-- [end:train-agent]


def learning_rate(settings: AgentSettings, step: int) -> float:
    if step <= settings.warmup:
        return settings.lr * step / settings.warmup
    progress = (step - settings.warmup) / max(1, settings.steps - settings.warmup)
    return settings.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress)))
