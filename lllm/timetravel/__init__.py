"""Layer 3 · time travel at the Predictor seam: record a program's model and tool calls, re-run it from any call.

Read `seam.py` first (the engine: any program over a predictor and tools, recorded and re-run with
a call edited or another brain from a chosen call), then `chatlog.py` (a run from elsewhere: an
OpenAI-style chat log replayed and re-run here). The demos' run files are still read by
`lllm/agents/runfile.py` and computed by their own engines (`lllm/labs/timetravel/demos.py`).
"""
