"""Layer 1 · opening a model: `open_model(path, load_card) -> (session, card)`, and the one error type for every model file.

Read `tokenizer.py` first. Every ONNX model here is two files side by side: `NAME.onnx` and its card
`NAME.json` (the vocabulary, the config, what training measured, the sha256 of the .onnx). Every
backend opens its files through this module — TinyLLM (`onnx_backend.py`), TinyGPT
(`gpt_backend.py`), the glass box's inspection graphs (`inside.py`) and the export's own checks
(`export/onnx_export.py`) — so a missing, damaged or mismatched file reads the same whichever model
it is: a `ModelError` whose message names the file and what is wrong.

onnxruntime (and numpy, which it brings) is imported only when a model is opened, so `import lllm`
stays stdlib-only; in the page the same files run on onnxruntime-web.

Usage:

    >>> import json, os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> card_path = os.path.join(folder, "m.json")
    >>> _ = open(card_path, "w").write(json.dumps({"format": "lllm.tinyllm/1", "vocab": ["a", "b"]}))
    >>> read_card(card_path, "lllm.tinyllm/1", "a TinyLLM model card")
    Traceback (most recent call last):
    ...
    lllm.model.files.ModelError: .../m.json: model card has no 'config' field
    >>> open_session(os.path.join(folder, "missing.onnx"))
    Traceback (most recent call last):
    ...
    lllm.model.files.ModelError: .../missing.onnx: model file not found (run `make model` to build it)
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Callable

from lllm.model.tokenizer import CharTokenizer

__all__ = ["ModelError", "card_path_for", "read_card", "session_from_bytes", "open_session", "open_model"]


class ModelError(ValueError):
    """A model file or its card is missing, damaged, or does not match."""


# ---- the card ----------------------------------------------------------------------------------------

def card_path_for(model_path: str) -> str:
    """The card beside a model: `NAME.onnx` -> `NAME.json`."""
    return os.path.splitext(model_path)[0] + ".json"


def read_card(path: str, card_format: str, what: str, positive: tuple[str, ...] = ()) -> dict:
    """A card of `card_format`, with a vocabulary, a config (each of `positive` a positive integer) and
    the .onnx's sha256; ModelError naming the file and the problem."""
    try:
        with open(path, encoding="utf-8") as f:
            card = json.load(f)
    except FileNotFoundError:
        raise ModelError(f"{path}: model card not found (it is written next to the .onnx by `make model`)") from None
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, not a model card") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ModelError(f"{path}: model card is not valid JSON ({e})") from None
    if not isinstance(card, dict) or card.get("format") != card_format:
        raise ModelError(f"{path}: not {what} (expected format {card_format!r})")
    for key in ("vocab", "config", "onnx_sha256"):
        if key not in card:
            raise ModelError(f"{path}: model card has no {key!r} field")
    try:
        CharTokenizer(card["vocab"])
    except (ValueError, TypeError) as e:
        raise ModelError(f"{path}: bad vocab: {e}") from None
    if not isinstance(card["config"], dict):
        raise ModelError(f"{path}: config must be an object")
    for key in positive:
        value = card["config"].get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ModelError(f"{path}: config.{key} must be a positive integer")
    return card


# ---- the session ---------------------------------------------------------------------------------------

# --8<-- [start:session]
def session_from_bytes(data: bytes, name: str, exact_graph: bool = False):
    """An onnxruntime session on one CPU thread. `exact_graph` runs the graph as written: int8 weights
    dequantized, then float matmuls, which is what onnxruntime-web computes in the page (left on, the
    CPU's QDQ fusion also rounds activations to 8 bits, and the page could not show the terminal's numbers)."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise ModelError("onnxruntime is not installed: pip install 'lllm-learn[model]'") from None
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3
    if exact_graph:
        options.add_session_config_entry("session.disable_quant_qdq", "1")
    try:
        return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types for bad bytes
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise ModelError(f"{name}: not a valid ONNX model ({first[:200]})") from None
# --8<-- [end:session]


def open_session(model_path: str, exact_graph: bool = False):
    """(a session, the file's bytes); ModelError naming the file if it cannot be read or run."""
    try:
        with open(model_path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise ModelError(f"{model_path}: model file not found (run `make model` to build it)") from None
    except IsADirectoryError:
        raise ModelError(f"{model_path}: is a directory, not a model file") from None
    except OSError as e:
        raise ModelError(f"{model_path}: model file not readable ({e.strerror})") from None
    return session_from_bytes(data, model_path, exact_graph), data


def open_model(model_path: str, load_card: Callable[[str], dict], card_path: str | None = None,
               exact_graph: bool = False):
    """(a session, the card) for a model and its card (read by the model's `load_card`, a `read_card`
    with what that model's cards add), once the card is shown to vouch for these bytes."""
    card_path = card_path or card_path_for(model_path)
    session, data = open_session(model_path, exact_graph)
    card = load_card(card_path)
    if hashlib.sha256(data).hexdigest() != card["onnx_sha256"]:
        raise ModelError(f"{model_path}: does not match its card {card_path} (sha256 differs; rebuild both with `make model`)")
    return session, card
