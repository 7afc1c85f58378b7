"""Layer 3 · agents composed over a predictor: tools, the ReAct loop, memory.

Read in this order: `calc.py` (a safe arithmetic tool), `tools.py` (what a tool is, and the
town's facts), `react.py` (think -> act -> observe, one typed step at a time), `grounding.py`
(does a final answer rest on an observation?), `memory.py`
(short- and long-term memory rendered into the prompt).
"""
