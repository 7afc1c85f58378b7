"""Layer 1 · TinyLLM, trained in numpy and exported to ONNX (CPython only: numpy, onnx, onnxruntime).

It consumes layer 1 of the package (`lllm.model.tokenizer`, so training and the runtime share one
vocabulary) and, for the agent-tuned model, layers 2-4 (`agent_train.py`).

Read in this order: `data.py` (story, vocabulary, windows) -> `model.py` (Embedding -> LSTM ->
Linear, forward and backward) -> `train.py` (AdamW, clipping, the loop) -> `plot.py` (the loss
curve as SVG) -> `onnx_export.py` (the same model as an ONNX graph) -> `build.py` (`make model`).

Nothing in `lllm/` imports this package: the agent layers see the model only through the ONNX
file, its model card and a `Predictor`.
"""
