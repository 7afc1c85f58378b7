"""Layer 1 · `make model`: train TinyLLM, export it to ONNX, write its model card - or reuse it.

Consumes: layer 1 of the package (`lllm.model.tokenizer`) and `lllm.commands.args`' argument types.

Contract: `python -m export.build --out DIR [--preset default|seed] [--epochs N] [--seed S]
[--force]` leaves in DIR, each file written atomically (temp file + rename):

    tinyllm.onnx   the model (see onnx_export.py)
    tinyllm.json   the model card: format, vocab, config, metrics, parameters, onnx_file,
                   onnx_sha256, build_key
    loss.json      loss per epoch and per batch;  loss.svg  the same as a picture

The build key is a hash of the story, the configuration and the source of every file that
shapes the output (`SOURCES`: data, model, train, plot, onnx_export, build and lllm/model/tokenizer). When the card in DIR has the same key and
the .onnx still has the card's sha256, nothing is retrained. Bad arguments are one-line errors
with exit status 2.

Read `train.py` and `onnx_export.py` first.

Usage (a shell, from the repository root):

    $ python -m export.build --out build/model
    epoch   1/25  loss 2.5792    1.8s elapsed  ~  44s left
    ...
    wrote build/model/tinyllm.onnx (154,368 parameters, final loss 0.2240, 45 s)
    $ python -m export.build --out build/model
    reusing build/model/tinyllm.onnx: up to date (build key 3f2a...)
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # before numpy loads: same bits every run
import numpy as np  # noqa: E402

from export.data import STORY_PATH, build_vocab, load_story, windows  # noqa: E402
from export.model import PRESETS, NumpyBackend, forward, preset
from export.onnx_export import run, session_for, to_onnx
from export.plot import loss_svg
from export.recipe import card_json, greedy_text, sha256_file, write_atomic
from export.train import train
from lllm.commands.args import ArgParser, positive_int
from lllm.model.tokenizer import CharTokenizer

__all__ = ["CARD_FORMAT", "build_key", "main"]

CARD_FORMAT = "lllm.tinyllm/1"
ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "export" / name for name in       # the files that shape what is built here
           ("data.py", "model.py", "train.py", "plot.py", "onnx_export.py", "build.py")]
SOURCES.append(ROOT / "lllm" / "model" / "tokenizer.py")
SAMPLE_PROMPT = "Once"


# ---- arguments ---------------------------------------------------------------------------------

def parse_args(argv):
    parser = ArgParser(prog="export.build", description=__doc__.splitlines()[0])   # one-line errors
    parser.add_argument("--out", default="build/model", help="output folder (default build/model)")
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    parser.add_argument("--epochs", type=positive_int, help="override the preset's epoch count")
    parser.add_argument("--seed", type=int, help="override the preset's random seed")
    parser.add_argument("--force", action="store_true", help="retrain even if up to date")
    return parser.parse_args(argv)


# ---- the build key and atomic files ------------------------------------------------------------

def build_key(story: str, config) -> str:
    digest = hashlib.sha256()
    digest.update(story.encode())
    digest.update(json.dumps(config.to_dict(), sort_keys=True).encode())
    for path in SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def up_to_date(out: Path, key: str) -> bool:
    try:
        card = json.loads((out / "tinyllm.json").read_text())
        onnx_path = out / card["onnx_file"]
        return (card.get("build_key") == key and onnx_path.is_file()
                and sha256_file(onnx_path) == card["onnx_sha256"]
                and (out / "loss.json").is_file() and (out / "loss.svg").is_file())
    except (OSError, ValueError, KeyError, TypeError):
        return False


# ---- checks on the trained model ---------------------------------------------------------------

def greedy_sample(params, config, tok, prompt=SAMPLE_PROMPT, n=160) -> str:
    """The most likely continuation, one character at a time with carried state (`recipe.greedy_text`)."""
    return greedy_text(NumpyBackend(params, config), tok, prompt, n)


def onnx_max_diff(proto, params, config, ids) -> float:
    """Largest |logit difference| between onnxruntime and the numpy forward on `ids`."""
    x = np.asarray([ids], dtype=np.int64)
    ours, _, _ = forward(params, config, x)
    theirs, _ = run(session_for(proto), x)
    return float(np.max(np.abs(ours - theirs)))


def last_position_loss(params, config, x, y) -> float:
    """Loss on the last character of each window: the seed's objective, for comparison."""
    logits, _, _ = forward(params, config, x, last_only=True)
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-np.mean(logp[np.arange(len(y)), y[:, -1]]))


# ---- the build ---------------------------------------------------------------------------------

def main(argv=None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    story = load_story(STORY_PATH)
    tok = CharTokenizer(build_vocab(story))
    overrides = {k: v for k, v in (("epochs", args.epochs), ("seed", args.seed)) if v is not None}
    config = preset(args.preset, vocab_size=len(tok), **overrides)
    key = build_key(story, config)
    if out.exists() and not out.is_dir():
        print(f"export.build: error: --out {out} exists and is not a folder", file=sys.stderr)
        return 2
    if not args.force and up_to_date(out, key):
        print(f"reusing {out / 'tinyllm.onnx'}: up to date (build key {key[:12]})")
        return 0
    out.mkdir(parents=True, exist_ok=True)

    x, y = windows(tok.encode(story), config.window)
    params, history = train(config, x, y)
    proto = to_onnx(params, config)
    diff = onnx_max_diff(proto, params, config, tok.encode(story[:200]))
    if diff > 1e-4:
        print(f"export.build: error: ONNX and numpy logits differ by {diff:.2e}", file=sys.stderr)
        return 1
    onnx_bytes = proto.SerializeToString()
    metrics = {
        "final_loss": round(history["loss"][-1], 6),
        "last_position_loss": round(last_position_loss(params, config, x, y), 6),
        "epochs": config.epochs,
        "train_seconds": round(history["seconds"], 2),
        "loss_per_epoch": [round(v, 6) for v in history["loss"]],
        "onnx_max_abs_diff": diff,
        "sample_prompt": SAMPLE_PROMPT,
        "sample_greedy": greedy_sample(params, config, tok),
    }
    card = {
        "format": CARD_FORMAT, "vocab": tok.vocab, "config": config.to_dict(),
        "metrics": metrics, "parameters": int(sum(p.size for p in params.values())),
        "onnx_file": "tinyllm.onnx", "onnx_sha256": hashlib.sha256(onnx_bytes).hexdigest(),
        "build_key": key, "preset": args.preset, "story_chars": len(story),
    }
    curve = {"loss": history["loss"], "batch_loss": history["batch_loss"],
             "batches_per_epoch": len(history["batch_loss"]) // config.epochs}
    write_atomic(out / "tinyllm.onnx", onnx_bytes)
    write_atomic(out / "loss.json", json.dumps(curve).encode())
    write_atomic(out / "loss.svg", loss_svg(history, f"TinyLLM ({args.preset} preset) training loss").encode())
    write_atomic(out / "tinyllm.json", card_json(card).encode())  # written last: it vouches for the rest
    print(f"wrote {out / 'tinyllm.onnx'} ({card['parameters']:,d} parameters, final loss "
          f"{metrics['final_loss']:.4f}, {history['seconds']:.0f} s)")
    print(f"greedy from {SAMPLE_PROMPT!r}: {SAMPLE_PROMPT + metrics['sample_greedy'][:80]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
