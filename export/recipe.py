"""Layer 1 · what every model build shares: files written whole, the card's text, the machine's kernels, and a committed model reused while its build key matches.

Consumes: no layer of `lllm/` (the standard library, and numpy for `kernels`).

Read `build.py` (TinyLLM, trained on every fresh machine) first; `gpt_build.py` (TinyGPT) and
`agent_build.py` (the agent-tuned TinyLLM) train for minutes to an hour, so their results are
committed in `export/trained/` and `reuse` copies them while their card's build key matches what
the sources would build. Each build says only what is its own: its files, its key, its training.

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> write_atomic(out / "m.json", b'{"build_key": "k", "onnx_sha256": "' + hashlib.sha256(b"x").hexdigest().encode() + b'"}')
    >>> write_atomic(out / "m.onnx", b"x")
    >>> up_to_date(out, ("m.onnx", "m.json"), "k"), up_to_date(out, ("m.onnx", "m.json"), "other key")
    (True, False)
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

__all__ = ["ROOT", "COMMITTED", "sha256_file", "write_atomic", "card_json", "kernels", "up_to_date", "copy_model",
           "reuse", "same_as_committed", "greedy_text"]

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "export" / "trained"      # the models too slow to train on every machine


# ---- files -------------------------------------------------------------------------------------

def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temp file in the same folder, then rename: readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)                 # mkstemp makes it private; the site serves it
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def card_json(card: dict) -> str:
    """The card, indented, with its two long lists (vocab, the loss curve) kept on one line each."""
    curve = "loss_per_epoch" if "loss_per_epoch" in card["metrics"] else "loss_per_100_steps"
    metrics = {**card["metrics"], curve: "@LOSS@"}
    text = json.dumps({**card, "vocab": "@VOCAB@", "metrics": metrics}, indent=1)
    text = text.replace('"@VOCAB@"', json.dumps(card["vocab"]))
    return text.replace('"@LOSS@"', json.dumps(card["metrics"][curve])) + "\n"


def kernels() -> dict:
    """What decides the bits besides the sources: numpy's version, the CPU features it found and
    the OpenBLAS kernel asked for (export/__init__.py pins it). Two machines that agree here train
    the same model from the same sources."""
    import numpy as np
    from numpy._core._multiarray_umath import __cpu_features__ as features
    return {"numpy": np.__version__, "machine": platform.machine(),
            "cpu_features": sorted(name for name, found in features.items() if found),
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE")}


# ---- a model reused while its key matches ---------------------------------------------------------

def up_to_date(folder: Path, files: tuple[str, str], key: str) -> bool:
    """`folder` holds the model `files` (the .onnx, its card) whose card has this build key and whose bytes match it."""
    try:
        card = json.loads((folder / files[1]).read_text())
        return card["build_key"] == key and sha256_file(folder / files[0]) == card["onnx_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def copy_model(source: Path, target: Path, files: tuple[str, ...]) -> None:
    """The model's files, each written whole (a reader never sees half of one)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in files:
        write_atomic(target / name, (source / name).read_bytes())


def reuse(out: Path, files: tuple[str, str], key: str, retrain: str) -> bool:
    """True when `out` already holds the model for `key`, or now does (the committed one, copied);
    False when it must be trained (said on stderr when the committed model is out of date)."""
    if up_to_date(out, files, key):
        print(f"reusing {out / files[0]}: up to date (build key {key[:12]})")
        return True
    if up_to_date(COMMITTED, files, key):
        copy_model(COMMITTED, out, files)
        print(f"{out / files[0]}: the committed model ({COMMITTED.relative_to(ROOT)}/, build key {key[:12]}); "
              f"{retrain} retrains it from the sources")
        return True
    if (COMMITTED / files[1]).is_file():
        print(f"{COMMITTED.relative_to(ROOT)}/{files[0]} is out of date with its sources: training; "
              f"{retrain} --commit then replaces it", file=sys.stderr)
    return False


def same_as_committed(out: Path, files: tuple[str, str], fields: tuple[str, ...] = ()) -> bool:
    """Is the model in `out` bit for bit the committed one? Prints the answer and, if not, how the cards differ."""
    mine, theirs = (json.loads((folder / files[1]).read_text()) for folder in (out, COMMITTED))
    same = mine["onnx_sha256"] == theirs["onnx_sha256"]
    print(f"{out / files[0]}: " + ("bit for bit the committed model" if same else
          f"differs from the committed model (sha256 {mine['onnx_sha256'][:12]} vs {theirs['onnx_sha256'][:12]})"))
    for field in () if same else fields:
        if mine.get(field) != theirs.get(field):
            print(f"  {field}: {mine.get(field)} here, {theirs.get(field)} committed")
    return same


# ---- the card's greedy sample ------------------------------------------------------------------

def greedy_text(backend, tok, prompt: str, n: int = 160) -> str:
    """The most likely continuation of `prompt`, one character at a time with carried state, from any
    backend `backend(ids, state) -> (logits, state)` (the card shows it for TinyLLM and TinyGPT)."""
    import numpy as np
    logits, state = backend(tok.encode(prompt), None)
    out = []
    for _ in range(n):
        out.append(int(np.argmax(logits)))
        logits, state = backend([out[-1]], state)
    return tok.decode(out)
