"""Layer 3 · reasoning frameworks: Framework, Agent, Task (Environment), Model.

The framework API sits at the top of the folder and the tasks have a folder of their own; the
stand-in models are models, so they live with the others in `lllm/predictors/standins/`. Read in this order: `records.py` (State, Inference, Verification), `data.py`,
`lllm/predictors/standins/game24_arithmetic.py`, `tasks/game24.py` (the task), `agent.py`, `frameworks.py`,
`search.py`, `graph.py` (Graph of Thoughts), `mcts.py` (RAP), `search_tree.py` (a finished
run's tree, to open), `lllm/predictors/standins/game24.py` (a stand-in model), `tasks/multihop.py` (a
second task: multi-hop questions answered with a lookup tool), `lllm/predictors/standins/multihop.py`
(its stand-in), and `lllm/labs/reasoning_bench/benchmark.py` (compare frameworks; the
`python -m lllm reason` command).

The framework knows neither task nor model; the agent knows no task; only the environment
knows Game of 24.

    >>> from lllm.reasoning import Agent, Game24, ToTBFS, SimulatedModel
    >>> from lllm.model.sampling import Mulberry32
    >>> tot = ToTBFS()
    >>> tot.initialize(Agent(SimulatedModel(error_rate=0.3, rng=Mulberry32(2))), Game24())
    >>> result = tot.run(900)
    >>> result.state.steps
    ('4 * 5 = 20 (left: 6 10 20)', '10 + 20 = 30 (left: 6 30)', '30 - 6 = 24 (left: 24)')
    >>> result.verification.correct, result.usage.calls
    (True, 72)
"""

from lllm.reasoning.agent import Agent, Usage
from lllm.reasoning.tasks.multihop import BrookfieldQA
from lllm.reasoning.data import Data, DataError
from lllm.reasoning.frameworks import IO, CoT, CoTSC, Dummy, Framework, Node, ReAct, Reflexion, Result
from lllm.reasoning.graph import GraphOfThoughts
from lllm.reasoning.mcts import RAP
from lllm.reasoning.tasks.game24 import Game24, load_game24
from lllm.reasoning.records import Inference, State, Verification
from lllm.reasoning.search import FleetOfAgents, ToTBFS, ToTDFS
from lllm.predictors.standins.game24 import SimulatedModel
from lllm.predictors.standins.multihop import SimulatedReader

__all__ = ["Agent", "Usage", "Data", "DataError", "Framework", "Node", "Result", "Dummy", "IO", "CoT",
           "CoTSC", "ReAct", "Reflexion", "ToTBFS", "ToTDFS", "FleetOfAgents", "GraphOfThoughts", "RAP",
           "Game24", "load_game24", "BrookfieldQA", "Inference", "State", "Verification", "SimulatedModel",
           "SimulatedReader"]
