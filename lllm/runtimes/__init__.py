"""Layer 3 · runtimes: ways to build agents on top of the Predictor seam.

`lllm.runtimes.native` is the LLLM native runtime (seed 004): Tactic, Agent, Prompt, Dialog,
with parsers, repair handlers, tools and configuration, in pure Python.
"""
