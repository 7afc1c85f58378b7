"""Command line · `lllm oversee GOAL`: the agent paused before every tool, a human approving each step in the terminal.

    python -m lllm oversee "What is 17 * 23?"
"""

from __future__ import annotations

from lllm.commands.args import add_predictor_args, goal_and_predictor
from lllm.labs.human_in_loop import HELP, MODES, OversightSession
from typing import Callable


def terminal(session: OversightSession, ask: Callable[[str], str] | None = None,
             say: Callable = print) -> None:
    """Drive a session from a terminal: show each proposal, read `action [text]` lines."""
    ask = ask or input
    while (p := session.next()) is not None:
        say(f"step {p.step}: the model proposes {p.describe()}  (thought: {p.thought or 'none'}; "
            f"confidence {p.confidence:.2f})")
        try:
            line = ask("approve / edit TEXT / inject TEXT / skip / quit / help > ").strip()
        except EOFError:
            line = "quit"
        action, _, text = line.partition(" ")
        action = {"a": "approve", "": "approve", "e": "edit", "i": "inject", "s": "skip",
                  "q": "quit", "h": "help", "?": "help"}.get(action, action)
        try:
            session.decide(action, text, reason="typed at the terminal")
        except ValueError as error:
            say(f"  not done: {error}")
        if action == "help":
            say(HELP)
    say(session.summary())


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("oversee", help="run the agent with a human approving each step",
                              description="Run the ReAct agent and pause before each tool call or final answer "
                                          "for your decision: approve, edit, inject, skip, quit, help.")
    p.add_argument("goal", metavar="GOAL")
    add_predictor_args(p, default="rule")
    p.add_argument("--mode", choices=MODES, default="approve")
    p.add_argument("--max-steps", type=int, default=5)
    p.add_argument("--json", metavar="FILE", help="write the session (steps and interventions) as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    goal, predictor = goal_and_predictor(args)
    session = OversightSession(goal, predictor, mode=args.mode, max_steps=args.max_steps)
    terminal(session)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(session.to_json())
    return 0 if session.answer is not None else 1
