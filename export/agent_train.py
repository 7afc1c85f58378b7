"""Layer 1 · training TinyLLM to act as a ReAct agent: `train_agent(settings) -> (params, history)`.

Consumes: layer 1 (`lllm.model.tokenizer`, `lllm.model.generate`), layer 2 (`lllm.predictors`:
the task teacher writes the episodes), layer 3 (`lllm.agents.react`) and layer 4 (`lllm.labs.factory.episodes`,
`lllm.labs.factory.tasks`: the tasks and their verification).

Contract: `python -m export.agent_train --out DIR [--steps N] [--seed S] [--seeds K] [--force]
[--verify] [--commit]` leaves in DIR `tinyllm-agent.onnx` and its card `tinyllm-agent.json` (the
same card format as tinyllm.json, so `lllm.model.onnx_backend.OnnxBackend` opens it), reused when
its build key is unchanged. The full recipe takes ~50 min on two cores, so its result is committed
in `export/trained/`: a build whose key matches that card copies it instead of training.
`--force` trains anyway; `--verify` then checks the result is bit for bit the committed model;
`--commit` replaces the committed model with the result (after a change to its sources).

Read `model.py`, `train.py` and `lllm/labs/factory/episodes.py` first. The recipe (site/agents/agent-model.md,
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
    a compositional grammar         five families (factory.tasks): each operation said many ways,
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
    structure noise                 factory.reshape.reshape: 50% of training goals said in another
                                    shape (case, symbols, distractor sentences before, between or
                                    after, the question or the operation first, the operation
                                    embedded in a longer sentence, an operand called "it"), so where
                                    a number or an operation word stands is not fixed by a template
    a plan in the first thought     a two-step goal's first thought names both steps ("look up
                                    tom, then + 5"), written before the long observation
    echo practice, equal operands   the echo family drawn 3x as often (echo_extra); 1 in 20 training
                                    calculations uses one number twice (factory.tasks.SAME_NUMBER)
    numbers as slots                generate.NumberSlots: every episode is masked as the predictor
                                    masks a prompt (the question's and observations' numbers become
                                    #1, #2...; the agent's lines copy the slots), so the model copies
                                    a number by reference, not digit by digit; the card's
                                    number_slots makes every predictor do the same
    unknown words as slots          the same for words: a word outside lexicon() (the words training
                                    uses for their meaning) reads @1, @2..., so an echo goal's word
                                    is one slot to copy, not letters to spell; the card holds the
                                    lexicon

The vocabulary is the story model's (printable ASCII + newline), so every format character has
an id. Shapes: B batch, T characters of the longest episode in the batch, H hidden, V vocabulary.

Usage:

    >>> settings = AgentSettings(hidden=16, embed=8, steps=3, batch=2)
    >>> params, history = train_agent(settings, progress=False)
    >>> len(history["loss"])
    3
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from export.data import build_vocab, load_story
from export.model import Config, forward, init_params, lstm_backward
from export.onnx_export import WEIGHTS
from export.train import AdamW, clip_global_norm
from lllm.cli import ArgParser, non_negative_int, positive_int
from lllm.labs.factory.episodes import agent_mask, load_corpus, prompt_header, run_episode
from lllm.labs.factory.reshape import reshape
from lllm.labs.factory.tasks import MIX, make_task
from lllm.model.generate import WORD_RE, NumberSlots
from lllm.model.tokenizer import CharTokenizer

__all__ = ["AgentSettings", "chrono_init", "weighted_loss_and_grads", "make_batch", "train_agent",
           "HeaderCachedBackend", "build", "main"]

ROOT = Path(__file__).resolve().parent.parent


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
    reshape: float = 0.5       # share of training goals said in another shape (factory.reshape.SHARE)
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
    task's teacher; `reshape_share` of their goals said in another shape (factory.reshape)."""
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


# ---- build: train, export, card, reuse ---------------------------------------------------------

SOURCES = (sorted((ROOT / "export").glob("*.py"))
           + [ROOT / "lllm" / name for name in ("model/tokenizer.py", "model/generate.py", "labs/factory/episodes.py",
                                                "labs/factory/tasks.py", "labs/factory/reshape.py", "agents/react.py",
                                                "agents/tools.py", "agents/calc.py", "predictors/rules.py")])


SEEDS = 4                                    # trained two at a time (one per core here)
KEEP = ("all", "best")                       # all: the seeds' ensemble (default); best: the best seed alone
STORED = "int8"                              # how the ensemble's matrices are stored (onnx_export.WEIGHTS)
COMMITTED = ROOT / "export" / "trained"      # the full recipe's result, rebuilt by `make agent-model`
FILES = ("tinyllm-agent.onnx", "tinyllm-agent.json")


def kernels() -> dict:
    """What decides the bits besides the sources: numpy's version, the CPU features it found and
    the OpenBLAS kernel asked for (export/__init__.py pins it). Two machines that agree here train
    the same model from the same sources."""
    import os
    import platform
    from numpy._core._multiarray_umath import __cpu_features__ as features
    return {"numpy": np.__version__, "machine": platform.machine(),
            "cpu_features": sorted(name for name, found in features.items() if found),
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE")}


def up_to_date(folder: Path, key: str) -> bool:
    """`folder` holds a model whose card has this build key and whose bytes match the card."""
    from export.build import sha256_file
    try:
        card = json.loads((folder / FILES[1]).read_text())
        return card["build_key"] == key and sha256_file(folder / FILES[0]) == card["onnx_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def copy_model(source: Path, target: Path) -> None:
    """Both files, each written whole (a reader never sees half of one)."""
    from export.build import write_atomic
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        write_atomic(target / name, (source / name).read_bytes())


def verify(out: Path, committed: Path = COMMITTED) -> bool:
    """Is the model in `out` bit for bit the committed one? Prints the answer and, if not, why."""
    mine, theirs = (json.loads((folder / FILES[1]).read_text()) for folder in (out, committed))
    same = mine["onnx_sha256"] == theirs["onnx_sha256"]
    print(f"{out / FILES[0]}: " + ("bit for bit the committed model" if same else
          f"differs from the committed model (sha256 {mine['onnx_sha256'][:12]} vs {theirs['onnx_sha256'][:12]})"))
    if not same:
        for field in ("build_key", "data_sha256", "kernels"):
            if mine.get(field) != theirs.get(field):
                print(f"  {field}: {mine.get(field)} here, {theirs.get(field)} committed")
    return same


def build_key(settings: AgentSettings, seeds: int = 1, corpus: list[str] | None = None, keep: str = "all",
              weights: str = STORED) -> str:
    what = {"seeds": seeds} | ({"keep": keep, "weights": weights} if seeds > 1 else {})
    digest = hashlib.sha256(json.dumps(asdict(settings) | what, sort_keys=True).encode())
    if corpus:
        digest.update(b"corpus\0" + "".join(corpus).encode())
    for path in SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def main(argv=None) -> int:
    parser = ArgParser(prog="export.agent_train", description=__doc__.splitlines()[0])   # one-line errors
    parser.add_argument("--out", default="build/model")
    parser.add_argument("--steps", type=positive_int, default=AgentSettings.steps)
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--seeds", type=positive_int, default=SEEDS,
                        help=f"train this many seeds (seed, seed+1, ...), one process per core, and keep them "
                             f"all as one ensemble (default {SEEDS})")
    parser.add_argument("--keep", choices=KEEP, default="all",
                        help="with several seeds: all = their ensemble (the default), best = the best seed on "
                             "the validation split alone")
    parser.add_argument("--weights", choices=WEIGHTS, default=STORED,
                        help=f"how an ensemble's matrices are stored in the .onnx (default {STORED})")
    parser.add_argument("--no-mask", action="store_true", help="loss on every character (for comparison)")
    parser.add_argument("--corpus", metavar="FILE",
                        help="train on a factory corpus (`python -m lllm factory --out DIR` writes DIR/corpus.txt) "
                             "instead of fresh episodes every step")
    parser.add_argument("--force", action="store_true", help="retrain even if up to date")
    parser.add_argument("--verify", action="store_true",
                        help=f"after building, check the model is bit for bit the committed one in "
                             f"{COMMITTED.relative_to(ROOT)}/ (exit 1 if not)")
    parser.add_argument("--commit", action="store_true",
                        help=f"after building, make the result the committed model in {COMMITTED.relative_to(ROOT)}/")
    args = parser.parse_args(argv)
    if args.verify and args.commit:
        parser.error("--verify and --commit exclude each other: verify checks the committed model, commit replaces it")
    corpus = None
    if args.corpus:
        try:
            corpus = load_corpus(args.corpus)
        except ValueError as error:
            parser.error(str(error))
        vocab = set(vocabulary().vocab)
        for i, text in enumerate(corpus, 1):
            if set(text) - vocab:
                parser.error(f"{args.corpus}: episode {i} has characters outside TinyLLM's vocabulary: "
                             f"{''.join(sorted(set(text) - vocab))!r}")
    out = Path(args.out)
    if out.resolve() == COMMITTED.resolve():
        parser.error(f"--out {args.out} is the committed model's folder: build elsewhere and use --commit")
    build(AgentSettings(steps=args.steps, seed=args.seed, mask=not args.no_mask), out, args.force,
          seeds=args.seeds, corpus=corpus, keep=args.keep, weights=args.weights)
    if args.commit:
        copy_model(out, COMMITTED)
        print(f"committed: {COMMITTED.relative_to(ROOT)}/ now holds this model (git add it)")
    return 0 if not args.verify or verify(out) else 1


def validation_suite():
    """The checkpoints' and seeds' yardstick: 20 goals per (family, phrasing) group of the validation
    split, each also said in another training shape (factory.reshape), so the kept weights are the
    ones that read both the grammar's sentences and their reshaped forms best."""
    from lllm.labs.factory.tasks import make_suite
    plain = make_suite("validation", per_group=20, seed=0)
    return plain + [reshape(task, random.Random(i), share=1.0) for i, task in enumerate(plain)]


def best_score(history: dict) -> float:
    """The best validation score of a run, its weights' or their moving average's."""
    return max([s for _, s in history["validation"] + history.get("validation_average", [])] or [0.0])


def _train_seed(settings: AgentSettings, progress: bool, corpus: list[str] | None = None):
    """One seed in its own process: (best validation score, params, history)."""
    validation = validation_suite() if settings.checkpoints else None
    params, history = train_agent(settings, progress=progress, validation=validation, corpus=corpus)
    return best_score(history), params, history


def train_seeds(settings: AgentSettings, seeds: int, progress: bool = True, corpus: list[str] | None = None,
                keep: str = "best"):
    """Train seeds settings.seed .. + seeds - 1 (fork: one process each, as many at once as there
    are cores). keep="best": the one that scores best on the validation split - never the test
    split - as (params, history); ties go to the lower seed. keep="all": every seed, as
    ([params, ...], history) in seed order, for an ensemble."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor
    from dataclasses import replace
    runs = [replace(settings, seed=settings.seed + i) for i in range(seeds)]
    if settings.number_slots and settings.word_slots:
        lexicon()                                    # once, here: every forked seed inherits the cache
    context = multiprocessing.get_context("fork")
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=min(seeds, os.cpu_count() or 1), mp_context=context) as pool:
        results = list(pool.map(_train_seed, runs, [progress] * seeds, [corpus] * seeds))
    scores = [r[0] for r in results]
    if keep == "all":
        histories = [r[2] for r in results]
        history = {"loss": [float(np.mean(step)) for step in zip(*(h["loss"] for h in histories))],
                   "validation": [], "validation_average": [], "seconds": time.perf_counter() - start,
                   "seed": settings.seed, "seed_scores": {r.seed: s for r, s in zip(runs, scores)},
                   "members": [{"seed": r.seed, "validation": h["validation"],
                                "validation_average": h["validation_average"], "seconds": round(h["seconds"], 2),
                                "data_sha256": h["data_sha256"]} for r, h in zip(runs, histories)],
                   "data_sha256": hashlib.sha256("".join(h["data_sha256"] for h in histories).encode()).hexdigest()}
        if progress:
            print("validation (fully right) by seed: " + ", ".join(f"seed {r.seed} {s:.1%}" for r, s in zip(runs, scores))
                  + "; keeping all of them as one ensemble", file=sys.stderr)
        return [r[1] for r in results], history
    best = scores.index(max(scores))
    if progress:
        print("validation (fully right) by seed: " + ", ".join(f"seed {r.seed} {s:.1%}" for r, s in zip(runs, scores))
              + f"; keeping seed {runs[best].seed}", file=sys.stderr)
    _, params, history = results[best]
    history["seed"], history["seed_scores"] = runs[best].seed, {r.seed: s for r, s in zip(runs, scores)}
    return params, history


def build(settings: AgentSettings, out: Path, force: bool = False, progress: bool = True,
          seeds: int = 1, corpus: list[str] | None = None, keep: str = "all", weights: str = STORED) -> Path:
    """Train, export and write the card into `out` - or reuse the model there if up to date.
    With seeds > 1, train that many seeds and keep them all as one ensemble (keep="all", its
    matrices stored as `weights`) or the best on validation alone (keep="best")."""
    from export.build import CARD_FORMAT, card_json, write_atomic
    from export.onnx_export import to_onnx, to_onnx_ensemble
    if keep not in KEEP:
        raise ValueError(f"keep must be one of {', '.join(KEEP)}, got {keep!r}")
    key = build_key(settings, seeds, corpus, keep, weights)
    onnx_path, card_path = out / FILES[0], out / FILES[1]
    if not force and up_to_date(out, key):
        print(f"reusing {onnx_path}: up to date (build key {key[:12]})")
        return onnx_path
    if not force and up_to_date(COMMITTED, key):
        copy_model(COMMITTED, out)
        print(f"{onnx_path}: the committed model ({COMMITTED.relative_to(ROOT)}/, build key {key[:12]}); "
              f"`make agent-model` retrains it from the sources")
        return onnx_path
    if not force and (COMMITTED / FILES[1]).is_file():
        print(f"{COMMITTED.relative_to(ROOT)}/ is out of date with its sources: training (~50 min on two "
              f"cores); `python -m export.agent_train --force --commit` then replaces it", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    validation = validation_suite() if settings.checkpoints else None

    def write(params, history, final: bool):
        """The model and its card; a checkpoint's card never matches a build key, so a run
        stopped early leaves a usable model that the next build replaces."""
        config = settings.config(len(vocabulary()))
        members = params if isinstance(params, list) else [params]
        onnx_bytes = (to_onnx_ensemble(members, config, weights) if len(members) > 1
                      else to_onnx(params, config)).SerializeToString()
        steps_done = len(history["loss"])
        card = {
            "format": CARD_FORMAT, "vocab": vocabulary().vocab,       # hidden: the state's width, every member's
            "config": config.to_dict() | {"hidden": config.hidden * len(members)},
            "metrics": {"final_loss": round(float(np.mean(history["loss"][-100:])), 6),
                        "steps": steps_done, "train_seconds": round(history["seconds"], 2),
                        "loss_per_100_steps": [round(float(np.mean(history["loss"][i:i + 100])), 6)
                                           for i in range(0, len(history["loss"]), 100)],
                        "validation": history["validation"],
                        "validation_average": history.get("validation_average", []),
                        "seed_scores": history.get("seed_scores", {settings.seed: None})},
            "parameters": int(sum(p.size for member in members for p in member.values())),
            "onnx_file": onnx_path.name, "onnx_sha256": hashlib.sha256(onnx_bytes).hexdigest(),
            "build_key": key if final else f"checkpoint at step {steps_done}", "preset": "agent",
            "agent": asdict(settings), "seeds": seeds, "seed": history.get("seed", settings.seed),
            "data_sha256": history.get("data_sha256"), "kernels": kernels(),
            "data": f"a factory corpus of {len(corpus)} episodes" if corpus else "fresh factory episodes every step",
        }
        if not settings.header:
            card["reads_from"] = READS_FROM
        if settings.number_slots:
            card["number_slots"] = slots_for(settings).to_card()
        if len(members) > 1:                         # the ensemble's own score on the same yardstick
            card["ensemble"] = {"members": history["members"], "hidden": config.hidden, "weights": weights}
            if validation:
                card["metrics"]["validation"] = [(steps_done, onnx_accuracy(onnx_bytes, vocabulary(), validation,
                                                                            slots_for(settings)))]
        write_atomic(onnx_path, onnx_bytes)
        write_atomic(card_path, card_json(card).encode())
        return card

    if seeds > 1:
        params, history = train_seeds(settings, seeds, progress, corpus, keep)
    else:
        params, history = train_agent(settings, progress=progress, validation=validation, corpus=corpus,
                                      on_best=lambda p, h: write(p, h, final=False))
    card = write(params, history, final=True)
    best = card["metrics"]["validation"][-1][1] if "ensemble" in card and card["metrics"]["validation"] \
        else best_score(history)
    print(f"wrote {onnx_path} ({card['parameters']:,d} parameters, {settings.steps} steps, "
          f"{history['seconds']:.0f} s, best validation {best:.1%})")
    return onnx_path


if __name__ == "__main__":
    sys.exit(main())
