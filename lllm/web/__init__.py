"""Platform adapter · the page: the browser predictor, the code-cell runner and the demos' JSON.

Nothing in the layers imports this folder. `browser.py` is TinyLLM as a Predictor inside a Web
Worker (the token loop runs in JavaScript); `demos.py` and `oversight.py` call the same
functions the command line calls and only convert their records to JSON for the page.
"""
