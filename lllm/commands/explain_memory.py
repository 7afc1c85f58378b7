"""Command line · `lllm explain-memory`: memory injected into the agent's prompt, goal by goal.

    python -m lllm explain-memory
"""

from __future__ import annotations

from lllm.commands.args import UsageError, add_predictor_args, predictor_from_args
from lllm.labs.memory_explainer import DEMO_GOALS, explain_memory


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("explain-memory", help="watch memory being injected into the agent's prompt",
                              description="Run a few goals through ReAct with short- and long-term memory, "
                                          "printing the injected memory block and the agent's trace.")
    p.add_argument("goals", nargs="*", metavar="GOAL", help=f"goals to run in order (default: {DEMO_GOALS})")
    add_predictor_args(p, default="rule")
    p.set_defaults(run=run)


def run(args) -> int:
    if any(not goal.strip() for goal in args.goals):
        raise UsageError("GOAL is empty: ask the agent a question")
    try:
        predictor = predictor_from_args(args)
    except ValueError as error:
        raise UsageError(str(error))
    explain_memory(predictor, args.goals or DEMO_GOALS)
    return 0
