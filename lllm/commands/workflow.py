"""Command line · `lllm workflow GOAL`: the typed workflow, numbered typed steps with checked transitions.

    python -m lllm workflow "What is 17 * 23?" --predictor rule
"""

from __future__ import annotations

from lllm.commands.args import add_predictor_args, goal_and_predictor
from lllm.labs.typed_workflow import run_typed


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("workflow", help="run the typed workflow: numbered typed steps, checked transitions",
                              description="Run the ReAct agent as a typed state machine and print its numbered "
                                          "steps. Exit status 1 when the run does not complete.")
    p.add_argument("goal", metavar="GOAL", help='a question, e.g. "What is 17 * 23?"')
    add_predictor_args(p, default="rule")
    p.add_argument("--max-turns", type=int, default=5, help="model replies before giving up (default 5)")
    p.set_defaults(run=run)


def run(args) -> int:
    goal, predictor = goal_and_predictor(args, "max_turns")
    run = run_typed(goal, predictor, max_turns=args.max_turns)
    print(run.render())
    print(f"completed: {'yes, answer ' + repr(run.answer) if run.completed else 'no'}")
    return 0 if run.completed else 1
