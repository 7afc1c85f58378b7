"""Layer 3 · stand-in models for the reasoning tasks: rule-following programs that err at set rates, not LLMs.

    game24_player.py    plays Game of 24 with the exact solver, and errs at a set rate (`SimulatedModel`)
    multihop_reader.py  answers the multi-hop questions only from what it looked up (`SimulatedReader`)

Each is a Predictor like any other (prompt in, completion out) that reads only the prompt, so the
frameworks can be compared without a real LLM; every page and table that uses one says so.
"""
