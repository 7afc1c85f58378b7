"""Layer 3 · the reasoning tasks (environments): each knows its puzzles, prompts, parser and checks.

    game24.py             Game of 24 (the standard 4nums.com ranking), the task every framework runs on
    multihop.py           multi-hop questions answered with the lookup tool (the Brookfield set)

A task is the only thing that knows what its puzzles are; the frameworks and the agent in
`lllm/reasoning/` run on any of them unchanged. Their data files are in `lllm/reasoning/data/`; Game of 24's exact
arithmetic is in `lllm/predictors/standins/game24_arithmetic.py`, below both the task and its stand-in player.
"""
