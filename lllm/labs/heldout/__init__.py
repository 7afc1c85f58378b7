"""Layer 4 · goals held out from the factory's training grammar, to test a trained agent model honestly.

    grammar.py     held out by words: new verbs and sentence shapes training never uses
    structure.py   held out by shape: training's own words in sentence shapes it never uses
    order.py       held out by order: stories told out of time order, the question first, two operations

All three read the factory's task tables (`lllm/labs/factory/tasks.py`); nothing in the factory or the
trainer imports this folder (tests/labs/test_heldout_grammar.py checks it), so no held-out goal can leak
into training. Import the module you need: `from lllm.labs.heldout import grammar, structure, order`.
"""
