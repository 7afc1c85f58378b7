"""Layer 3 · reasoning frameworks: Framework, Agent, Task (Environment), Model.

The framework API sits at the top of the folder; the tasks and the stand-in models have folders
of their own. Read in this order: `records.py` (State, Inference, Verification), `data.py`,
`tasks/game24_arithmetic.py`, `tasks/game24.py` (the task), `agent.py`, `frameworks.py`,
`search.py`, `graph.py` (Graph of Thoughts), `mcts.py` (RAP), `search_tree.py` (a finished
run's tree, to open), `standins/game24_player.py` (a stand-in model), `tasks/multihop.py` (a
second task: multi-hop questions answered with a lookup tool), `standins/multihop_reader.py` (its
stand-in), and `lllm/labs/reasoning_bench/benchmark.py` (compare frameworks; the
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
from lllm.reasoning.standins.game24_player import SimulatedModel
from lllm.reasoning.standins.multihop_reader import SimulatedReader

__all__ = ["Agent", "Usage", "Data", "DataError", "Framework", "Node", "Result", "Dummy", "IO", "CoT",
           "CoTSC", "ReAct", "Reflexion", "ToTBFS", "ToTDFS", "FleetOfAgents", "GraphOfThoughts", "RAP",
           "Game24", "load_game24", "BrookfieldQA", "Inference", "State", "Verification", "SimulatedModel",
           "SimulatedReader"]
