"""Command line · `lllm debate QUESTION`: specialists propose, a strict critic scores, a validated synthesis answers.

    python -m lllm debate "What is 12 * 12?"
"""

from __future__ import annotations

from lllm.commands.args import UsageError
from lllm.labs.debate.panel import Debate, MAX_ROUNDS, specialists


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("debate", help="specialists debate a question, a critic scores, a synthesis answers",
                              description="Run a multi-agent debate on QUESTION and print it round by round, the "
                                          "critic's verdict, the synthesis, the answer and the session summary. "
                                          "Exit status 1 when the debate ends without an answer.")
    p.add_argument("question", metavar="QUESTION", help='e.g. "What is 48 plus 17?" or "Where does Lina live?"')
    p.add_argument("--rounds", type=int, default=1, help=f"revision rounds, 1 to {MAX_ROUNDS} (default 1)")
    p.add_argument("--predictor", action="append", metavar="SPEC",
                   help="the specialists' brain: rule (the debate's rule-based stand-ins, default), or "
                        "tinyllm[:PATH], scripted:FILE, http:URL, echo; repeat it to give specialist i "
                        "the i-th brain (the last repeats)")
    p.add_argument("--critic", default="rule", metavar="SPEC", help="the critic's and synthesizer's brain (default rule)")
    p.add_argument("--seed", type=int, default=0, help="specialist i gets seed + i (default 0)")
    p.set_defaults(run=run)


def run(args) -> int:
    from lllm.predictors import make_predictor
    if not args.question.strip():
        raise UsageError("QUESTION is empty: give the debate something to answer")
    if not 1 <= args.rounds <= MAX_ROUNDS:
        raise UsageError(f"--rounds must be between 1 and {MAX_ROUNDS}, got {args.rounds}")
    brains = args.predictor or ["rule"]
    for flag, spec in [("--predictor", spec) for spec in brains] + [("--critic", args.critic)]:
        if spec != "rule":
            try:
                make_predictor(spec)
            except ValueError as error:
                raise UsageError(str(error).replace("--predictor", flag, 1)) from None
    debate = Debate(specialists(brains, args.seed), args.critic, say=print)
    session = debate({"question": args.question, "rounds": args.rounds}, return_session=True)
    print("--- session\n" + session.report())
    print("--- dialog trees (one fork per model step)\n" + "\n".join(session.delivery.trees.values()))
    return 0 if session.delivery.answer is not None else 1
