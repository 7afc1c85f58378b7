"""Layer 4 · usage and testing: the labs that run the agents and measure them honestly.

`scoring.py` is the one place answers are compared and a trajectory's own steps are counted;
everything else composes the layers below: `lab.py` (the reliability lab), `evaluator.py`,
`inference_playground.py`, `memory_explainer.py`, `factory_tasks.py` / `factory.py` /
`factory_eval.py` (the synthetic data factory and its before/after check), `typed_workflow.py`,
`human_in_loop.py`, `debate_predictors.py` / `debate.py`, and `reasoning_lab.py` (reasoning
frameworks compared on Game of 24).
"""
