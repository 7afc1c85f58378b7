"""Layer 3 · the reasoning tasks (environments): each knows its puzzles, prompts, parser and checks.

    game24.py             Game of 24 (the standard 4nums.com ranking), the task every framework runs on
    game24_arithmetic.py  Game of 24 arithmetic, exactly: steps, answers and a solver over Fractions
    multihop.py           multi-hop questions answered with the lookup tool (the Brookfield set)

A task is the only thing that knows what its puzzles are; the frameworks and the agent in
`lllm/reasoning/` run on any of them unchanged. Their data files are in `lllm/reasoning/data/`.
"""
