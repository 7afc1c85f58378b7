"""Layer 1 · TinyLLM in CPython: the exported ONNX model run by onnxruntime, as a backend and a Predictor.

Read `generate.py` first. This is a platform adapter: onnxruntime (and numpy, which it brings) are
imported only when a model is opened, so `import lllm` stays stdlib-only. In the page the same
model runs on onnxruntime-web (`lllm.web.browser`).

A model is two files side by side: `tinyllm.onnx` and its card `tinyllm.json` (vocabulary,
config, training metrics, sha256 of the .onnx). Opening them is `files.py`'s, as for every model:
any problem is a `ModelError` whose message names the file.

Usage (after `make model`):

    from lllm.model.onnx_backend import from_onnx
    predictor = from_onnx("build/model/tinyllm.onnx", temperature=0.8, seed=1)
    print(predictor("Once", max_new_tokens=80))
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from lllm.model.files import ModelError, open_model, read_card
from lllm.model.generate import BackendPredictor, NumberSlots
from lllm.model.tokenizer import CharTokenizer

__all__ = ["DEFAULT_MODEL", "ModelError", "OnnxBackend", "load_card", "from_onnx"]

DEFAULT_MODEL = os.path.join("build", "model", "tinyllm.onnx")
CARD_FORMAT = "lllm.tinyllm/1"


# ---- the model card ----------------------------------------------------------------------------

def load_card(path: str) -> dict:
    """Read and check a TinyLLM card (`files.read_card`, then what TinyLLM's cards add); ModelError naming the file."""
    card = read_card(path, CARD_FORMAT, "a TinyLLM model card", ("layers", "hidden"))
    reads_from = card.get("reads_from")
    if reads_from is not None and not (isinstance(reads_from, str) and reads_from.strip()):
        raise ModelError(f"{path}: reads_from must be a non-empty string (where the model's prompt starts)")
    try:
        NumberSlots.from_card(card.get("number_slots"), card["vocab"])
    except ValueError as e:
        raise ModelError(f"{path}: {e}") from None
    return card


# ---- the backend -------------------------------------------------------------------------------

# --8<-- [start:onnx-backend]
class OnnxBackend:
    """`backend(ids, state) -> (logits for the last position, state)` on onnxruntime; state = (h, c)."""

    def __init__(self, model_path: str = DEFAULT_MODEL, card_path: str | None = None):
        self.session, self.card = open_model(model_path, load_card, card_path)
        self.tokenizer = CharTokenizer(self.card["vocab"])
        self.vocab_size = len(self.tokenizer)
        self.layers, self.hidden = self.card["config"]["layers"], self.card["config"]["hidden"]
        _check_graph(self.session, model_path, self.layers, self.hidden, self.vocab_size)

    def __call__(self, ids: Sequence[int], state: Any = None) -> tuple[list[float], Any]:
        import numpy as np
        if state is None:
            zeros = np.zeros((self.layers, 1, self.hidden), dtype=np.float32)
            state = (zeros, zeros)
        x = np.asarray([list(ids)], dtype=np.int64)                    # (1, T)
        logits, h, c = self.session.run(None, {"input_ids": x, "h0": state[0], "c0": state[1]})
        return logits[0, -1].tolist(), (h, c)                          # (V,), (L, 1, H) x 2
# --8<-- [end:onnx-backend]


def _check_graph(session, path: str, layers: int, hidden: int, vocab: int) -> None:
    inputs = {i.name: i.shape for i in session.get_inputs()}
    outputs = {o.name: o.shape for o in session.get_outputs()}
    if set(inputs) != {"input_ids", "h0", "c0"} or set(outputs) != {"logits", "hn", "cn"}:
        raise ModelError(f"{path}: not a TinyLLM graph (inputs {sorted(inputs)}, outputs {sorted(outputs)})")
    if inputs["h0"][0] != layers or inputs["h0"][2] != hidden:
        raise ModelError(f"{path}: state shape {inputs['h0']} does not match the card "
                         f"(layers={layers}, hidden={hidden})")
    if outputs["logits"][-1] != vocab:
        raise ModelError(f"{path}: logits have {outputs['logits'][-1]} entries but the card's vocab has {vocab}")


# ---- the seed's from_tiny_llm, for ONNX ----------------------------------------------------------

# --8<-- [start:from-onnx]
def from_onnx(path: str = DEFAULT_MODEL, temperature: float = 0.8, top_k: int = 0, top_p: float = 1.0,
              seed: int = 0, max_new_tokens: int = 200, stop: Sequence[str] = ()) -> BackendPredictor:
    """TinyLLM as a Predictor: `from_onnx(...)(prompt, max_new_tokens) -> completion only`.

    A card's `reads_from` (the agent model's "Question: ") says where in a prompt the model's
    training text started; the predictor feeds it from there (`lllm.model.generate.prompt_view`).
    A card's `number_slots` says the model reads and writes numbers as slots (`generate.NumberSlots`)."""
    backend = OnnxBackend(path)
    return BackendPredictor(backend, backend.tokenizer, temperature=temperature, top_k=top_k,
                            top_p=top_p, seed=seed, max_new_tokens=max_new_tokens, stop=stop,
                            reads_from=backend.card.get("reads_from"),
                            number_slots=NumberSlots.from_card(backend.card.get("number_slots"), backend.card["vocab"]))
# --8<-- [end:from-onnx]
