"""Layer 4 · the course final: a seeded exam, and a completion record that re-grades itself.

Read in this order: `variants.py` (the templates: new numbers, tool outputs and traces every
seed), `exam.py` (a seed -> the paper: pool questions, variants, the exercise; one answer
checked), `record.py` (a record read, bounded and re-graded, the exercise run in the sandbox).
`pool.json` is the units' quiz questions, written by hooks/final_pool.py. The page
(site/course/final.md) runs these same modules in its Python; `python -m lllm grade RECORD` runs
them in a terminal, so both give the same result by construction.

    >>> from lllm.labs.final.exam import paper
    >>> len(paper(1)["questions"])
    12
"""
