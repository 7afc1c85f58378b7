"""Layer 1 · `make model`'s TinyGPT: the committed model when its build key matches, else train and export.

Consumes: layer 1 of the package (`lllm.model.tokenizer`, `lllm.model.gpt_backend`) and
`lllm.commands.args`' argument types.

Contract: `python -m export.gpt_build --out DIR [--steps N] [--seed S] [--force] [--verify]
[--commit]` leaves in DIR `tinygpt.onnx` (see gpt_onnx.py) and its card `tinygpt.json` (format
`lllm.tinygpt/1`: vocab, config, metrics, parameters, onnx_sha256, build_key, kernels).

The build key is a hash of the story, the configuration and the code the build runs
(`code_key.code_digest` from `build`, as the agent model's key: by name, wherever it lives, so a
move, a rename of a file or a docstring never retrains). Training takes about five minutes on two cores, so the result is committed in
`export/trained/` and CI never trains it: a build whose key matches the committed card copies it.
`--force` trains anyway; `--verify` then checks the result is bit for bit the committed model (on
a machine whose numpy and CPU agree with the card's `kernels`); `--commit` replaces it.

Read `gpt_train.py` and `gpt_onnx.py` first.

    >>> story = load_story(STORY_PATH)
    >>> key = build_key(story, gpt_preset("default", vocab_size=96))
    >>> len(key), key == build_key(story, gpt_preset("default", vocab_size=96, seed=1))
    (64, False)

Usage (a shell, from the repository root):

    $ python -m export.gpt_build --out build/model
    build/model/tinygpt.onnx: the committed model (export/trained/, build key 1c0d...)
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # before numpy loads: same bits every run
import numpy as np  # noqa: E402

from export.code_key import code_digest
from export.recipe import COMMITTED, ROOT, card_json, copy_model, greedy_text, kernels, reuse, same_as_committed, write_atomic
from export.data import STORY_PATH, build_vocab, load_story, windows
from export.gpt import NumpyBackend, count_parameters, forward, gpt_preset
from export.gpt_onnx import empty_past, run, session_for, to_onnx
from export.gpt_train import train
from lllm.commands.args import ArgParser, non_negative_int, positive_int
from lllm.model.gpt_backend import GPT_CARD_FORMAT
from lllm.model.tokenizer import CharTokenizer

__all__ = ["ENTRY", "COMMITTED", "build_key", "onnx_max_diff", "main"]

ENTRY = ("export.gpt_build", "build")      # where the build key's code digest starts (code_key.py)
FILES = ("tinygpt.onnx", "tinygpt.json")
SAMPLE_PROMPT = "Once"


# ---- the build key and the committed model -----------------------------------------------------

def build_key(story: str, config) -> str:
    digest = hashlib.sha256(story.encode())
    digest.update(json.dumps(config.to_dict(), sort_keys=True).encode())
    digest.update(b"code\0" + code_digest([ENTRY], ROOT).encode())
    return digest.hexdigest()


# ---- checks on the trained model ---------------------------------------------------------------

def onnx_max_diff(proto, params, config, ids: list[int]) -> float:
    """Largest |difference| between onnxruntime and numpy, over the logits and the attention of a
    whole text read at once, and over the logits of the same text read in two calls (the cache)."""
    session, x = session_for(proto), np.asarray([ids], np.int64)
    ours, _, _, att = forward(params, config, x)
    theirs, past, their_att = run(session, x, empty_past(config))
    half = len(ids) // 2
    _, past, _ = run(session, x[:, :half], empty_past(config))
    rest, _, _ = run(session, x[:, half:], past)
    return float(max(np.abs(ours - theirs).max(), np.abs(att - their_att).max(),
                     np.abs(ours[:, half:] - rest).max()))


def greedy_sample(params, config, tok, prompt=SAMPLE_PROMPT, n=160) -> str:
    """The most likely continuation, one character at a time with carried state (`recipe.greedy_text`)."""
    return greedy_text(NumpyBackend(params, config), tok, prompt, n)


# ---- the build ---------------------------------------------------------------------------------

def build(config, out: Path, force: bool = False, progress: bool = True) -> Path:
    story = load_story(STORY_PATH)
    tok = CharTokenizer(build_vocab(story))
    key = build_key(story, config)
    onnx_path = out / FILES[0]
    if not force and reuse(out, FILES, key, "`python -m export.gpt_build --force` (~20 min on two cores)"):
        return onnx_path
    out.mkdir(parents=True, exist_ok=True)
    x, y = windows(tok.encode(story), config.block)
    params, history = train(config, x, y, progress=progress)
    proto = to_onnx(params, config)
    diff = onnx_max_diff(proto, params, config, tok.encode(story[:config.block]))
    if diff > 1e-4:
        raise SystemExit(f"export.gpt_build: error: ONNX and numpy differ by {diff:.2e}")
    onnx_bytes = proto.SerializeToString()
    card = {
        "format": GPT_CARD_FORMAT, "vocab": tok.vocab, "config": config.to_dict(),
        "metrics": {"final_loss": round(history["loss"][-1], 6), "steps": config.steps,
                    "train_seconds": round(history["seconds"], 2),
                    "loss_per_100_steps": [round(v, 6) for v in history["loss"]],
                    "onnx_max_abs_diff": diff, "sample_prompt": SAMPLE_PROMPT,
                    "sample_greedy": greedy_sample(params, config, tok)},
        "parameters": count_parameters(params), "onnx_file": FILES[0],
        "onnx_sha256": hashlib.sha256(onnx_bytes).hexdigest(), "build_key": key,
        "preset": "default", "story_chars": len(story), "kernels": kernels(),
    }
    write_atomic(onnx_path, onnx_bytes)
    write_atomic(out / FILES[1], card_json(card).encode())      # last: it vouches for the .onnx
    print(f"wrote {onnx_path} ({card['parameters']:,d} parameters, final loss "
          f"{card['metrics']['final_loss']:.4f}, {history['seconds']:.0f} s)")
    print(f"greedy from {SAMPLE_PROMPT!r}: {SAMPLE_PROMPT + card['metrics']['sample_greedy'][:80]!r}")
    return onnx_path


def main(argv=None) -> int:
    parser = ArgParser(prog="export.gpt_build", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/model", help="output folder (default build/model)")
    parser.add_argument("--steps", type=positive_int, help="override the preset's number of updates")
    parser.add_argument("--seed", type=non_negative_int, help="override the preset's random seed")
    parser.add_argument("--force", action="store_true", help="train even if up to date")
    parser.add_argument("--verify", action="store_true", help="check the result is the committed model, bit for bit")
    parser.add_argument("--commit", action="store_true", help="make the result the committed model")
    args = parser.parse_args(argv)
    if args.verify and args.commit:
        parser.error("--verify and --commit exclude each other: verify checks the committed model, commit replaces it")
    out = Path(args.out)
    if out.resolve() == COMMITTED.resolve():
        parser.error(f"--out {args.out} is the committed model's folder: build elsewhere and use --commit")
    overrides = {k: v for k, v in (("steps", args.steps), ("seed", args.seed)) if v is not None}
    story = load_story(STORY_PATH)
    build(gpt_preset("default", vocab_size=len(build_vocab(story)), **overrides), out, args.force)
    if args.commit:
        copy_model(out, COMMITTED, FILES)
        print(f"committed: {COMMITTED.relative_to(ROOT)}/ now holds this model (git add it)")
    if args.verify:
        return 0 if same_as_committed(out, FILES, ("build_key", "kernels")) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
