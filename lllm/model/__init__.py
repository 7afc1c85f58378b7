"""Layer 1 · TinyLLM in Python: the tokenizer, sampling, the generation loop and the ONNX backend.

Read in this order: `tokenizer.py` (characters <-> ids), `sampling.py` (logits -> the next id,
with a PRNG shared with the page), `generate.py` (the autoregressive loop carrying the LSTM
state), `onnx_backend.py` (the exported model on onnxruntime, as a Predictor). Training and
export live outside the package, in `export/` (numpy, CPython only).
"""
