"""Layer 1 · TinyLLM, trained in numpy and exported to ONNX (CPython only: numpy, onnx, onnxruntime).

It consumes layer 1 of the package (`lllm.model.tokenizer`, so training and the runtime share one
vocabulary) and, for the agent-tuned model, layers 2-4 (`agent_recipe.py`, run by `agent_build.py`; `code_key.py` is its build key's code digest).

Read in this order: `data.py` (story, vocabulary, windows) -> `model.py` (Embedding -> LSTM ->
Linear, forward and backward) -> `train.py` (AdamW, clipping, the loop) -> `plot.py` (the loss
curve as SVG) -> `onnx_export.py` (the same model as an ONNX graph) -> `build.py` (`make model`).

Nothing in `lllm/` imports this package: the agent layers see the model only through the ONNX
file, its model card and a `Predictor`.
"""

import os
import platform

# Before numpy loads (`python -m export.X` imports this package first): which OpenBLAS kernels
# run decides the bits a training run writes, so the committed agent model rebuilds bit for bit
# only where they match. One thread, and on x86-64 the Haswell (AVX2) kernels, which every
# AVX2 CPU runs; left alone, OpenBLAS picks SkylakeX on a CPU with AVX-512 and trains another model.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
if platform.machine().lower() in ("x86_64", "amd64"):
    os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")
