"""Layer 1 · the agent model's build: seeds, the ensemble, the build key, the committed model.

Consumes: through `agent_recipe.py`, layers 1-4 of `lllm/` (the factory's episodes, the ReAct
loop that scores checkpoints), and `lllm.commands.args` for its command line.

Contract: `python -m export.agent_build --out DIR [--steps N] [--seed S] [--seeds K] [--force]
[--verify] [--commit]` leaves in DIR `tinyllm-agent.onnx` and its card `tinyllm-agent.json` (the
same card format as tinyllm.json, so `lllm.model.onnx_backend.OnnxBackend` opens it), reused when
its build key is unchanged. The full recipe takes ~45 min on two cores, so its result is committed
in `export/trained/`: a build whose key matches that card copies it instead of training.
`--force` trains anyway; `--verify` then checks the result is bit for bit the committed model;
`--commit` replaces the committed model with the result (after a change to its sources).

The build key (`build_key`) is the sha256 of the settings (and seeds, keep, weights), the corpus
if one is given, the vocabulary, and the code digest of `code_key.py`: every definition `build`
can run, found by name from `build` through imports into `export/` and `lllm/`, docstrings and
print statements removed, keyed by name and not by file. So moving code between files, editing a
docstring or a comment, or changing a command line keeps the key (and the committed model); a
change to code the build runs changes it, and the model is retrained.

    >>> key = build_key(AgentSettings(), SEEDS)
    >>> len(key), key == build_key(AgentSettings(), SEEDS), key == build_key(AgentSettings(steps=10), SEEDS)
    (64, True, False)
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from export.agent_recipe import (READS_FROM, AgentSettings, lexicon, onnx_accuracy, slots_for, train_agent,
                                 vocabulary)
from export import recipe
from export.code_key import code_digest
from export.recipe import COMMITTED, ROOT, card_json, copy_model, kernels, reuse, same_as_committed, write_atomic
from export.onnx_export import WEIGHTS
from lllm.commands.args import ArgParser, non_negative_int, positive_int
from lllm.labs.factory.episodes import load_corpus
from lllm.labs.factory.reshape import reshape

__all__ = ["SEEDS", "COMMITTED", "build_key", "build", "train_seeds", "verify", "up_to_date", "main"]

ENTRY = ("export.agent_build", "build")      # where the build key's code digest starts (code_key.py)


# ---- build: train, export, card, reuse ---------------------------------------------------------

SEEDS = 4                                    # trained two at a time (one per core here)
KEEP = ("all", "best")                       # all: the seeds' ensemble (default); best: the best seed alone
STORED = "int8"                              # how the ensemble's matrices are stored (onnx_export.WEIGHTS)
FILES = ("tinyllm-agent.onnx", "tinyllm-agent.json")


def up_to_date(folder: Path, key: str) -> bool:
    """`folder` holds the agent model whose card has this build key (`recipe.up_to_date`)."""
    return recipe.up_to_date(folder, FILES, key)


def verify(out: Path) -> bool:
    """Is the model in `out` bit for bit the committed one? Prints the answer and, if not, why."""
    return same_as_committed(out, FILES, ("build_key", "data_sha256", "kernels"))


def build_key(settings: AgentSettings, seeds: int = 1, corpus: list[str] | None = None, keep: str = "all",
              weights: str = STORED, root: Path = ROOT, entry: tuple[str, str] = ENTRY) -> str:
    """What shapes the model's bytes: the settings, the corpus, the vocabulary and the code `build`
    runs (code_key.code_digest: by name, wherever it lives; docstrings, comments, prints and code the
    build never calls left out)."""
    what = {"seeds": seeds} | ({"keep": keep, "weights": weights} if seeds > 1 else {})
    return key_of(asdict(settings) | what, corpus, vocabulary().vocab, code_digest([entry], root))


def key_of(settings: dict, corpus: list[str] | None, vocab: list[str], code: str) -> str:
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    if corpus:
        digest.update(b"corpus\0" + "".join(corpus).encode())
    digest.update(b"vocab\0" + json.dumps(vocab).encode() + b"\0code\0" + code.encode())
    return digest.hexdigest()


def validation_suite():
    """The checkpoints' and seeds' yardstick: 20 goals per (family, phrasing) group of the validation
    split, each also said in another training shape (factory_reshape), so the kept weights are the
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
    from export.build import CARD_FORMAT
    from export.onnx_export import to_onnx, to_onnx_ensemble
    if keep not in KEEP:
        raise ValueError(f"keep must be one of {', '.join(KEEP)}, got {keep!r}")
    key = build_key(settings, seeds, corpus, keep, weights)
    onnx_path, card_path = out / FILES[0], out / FILES[1]
    if not force and reuse(out, FILES, key, "`make agent-model` (~50 min on two cores)"):
        return onnx_path
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



def main(argv=None) -> int:
    parser = ArgParser(prog="export.agent_build", description=__doc__.splitlines()[0])   # one-line errors
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
        copy_model(out, COMMITTED, FILES)
        print(f"committed: {COMMITTED.relative_to(ROOT)}/ now holds this model (git add it)")
    return 0 if not args.verify or verify(out) else 1


if __name__ == "__main__":
    sys.exit(main())
