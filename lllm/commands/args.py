"""Command line · what every command shares: one-line usage errors and argument types that name the problem.

`UsageError` is what a command raises for input it cannot use; the dispatcher (`lllm.commands.main`)
prints it as one line, `lllm COMMAND: error: ...`, and exits with status 2, as argparse does for an
unknown option. Library code never raises it: it raises `ValueError` (or its own typed error) and
the command turns that into a usage error; `argument_type(check)` does so for an argparse `type`,
and `check_sampling_args(args)` for the sampling flags, by the sampler's own rule.

    >>> non_negative_int("3"), finite_float("0.5")
    (3, 0.5)
    >>> check_sampling_args(argparse.Namespace(temperature=0.8, top_p=0))
    Traceback (most recent call last):
    ...
    lllm.commands.args.UsageError: --top-p must be in (0, 1], got 0
    >>> argument_type(int)("x")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: invalid literal for int() with base 10: 'x'
"""

from __future__ import annotations

import argparse

from lllm.model.sampling import check_sampling
from lllm.predictors.specs import PREDICTOR_SPECS, make_predictor

__all__ = ["UsageError", "ArgParser", "int_at_least", "non_negative_int", "positive_int", "finite_float",
           "argument_type", "check_sampling_args", "add_predictor_args", "predictor_from_args", "goal_and_predictor"]


# ---- a parser whose errors are one line ----------------------------------------------------------

class UsageError(Exception):
    """Raised by a command for bad input; printed as one line, exit status 2."""


class ArgParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default prints the whole usage block first
        self.exit(2, f"{self.prog}: error: {message}\n")


def int_at_least(low: int):
    """An argparse `type` accepting integers >= low, with a message naming the problem."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value
    return parse


non_negative_int = int_at_least(0)
positive_int = int_at_least(1)


def finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def argument_type(check, keep: bool = False):
    """An argparse `type` from a checker that raises ValueError; `keep` returns the text unchanged."""
    def parse(text: str):
        try:
            value = check(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        return text if keep else value
    parse.__name__ = getattr(check, "__name__", "value")
    return parse


SAMPLING_FLAGS_OFF = {"temperature": 0.0, "top_k": 0, "top_p": 1.0}    # what an unset flag stands for here


def check_sampling_args(args) -> None:
    """Every command's --temperature, --top-k and --top-p, checked once, by the rule the sampler itself
    keeps (`lllm.model.sampling.check_sampling`): a mistake is a usage error naming the flag. A flag
    the command does not have, or leaves unset (None), is not checked."""
    values = {name: getattr(args, name, None) for name in SAMPLING_FLAGS_OFF}
    try:
        check_sampling(**{name: off if values[name] is None else values[name]
                          for name, off in SAMPLING_FLAGS_OFF.items()})
    except ValueError as error:
        raise UsageError(f"--{error}") from None


def add_predictor_args(parser, default: str = "tinyllm") -> None:
    """The --predictor, --temperature and --seed flags every agent command shares."""
    parser.add_argument("--predictor", default=default, metavar="SPEC",
                        help=f"the predictor: {PREDICTOR_SPECS} (default: {default})")
    parser.add_argument("--temperature", type=finite_float, default=None, help="sampling temperature (TinyLLM)")
    parser.add_argument("--seed", type=non_negative_int, default=None, help="sampling seed (TinyLLM)")


def predictor_from_args(args):
    """The predictor the --predictor, --temperature and --seed flags name; a bad temperature is a usage error."""
    check_sampling_args(args)
    return make_predictor(args.predictor, temperature=args.temperature, seed=args.seed)


def goal_and_predictor(args, limit: str = "max_steps"):
    """(GOAL, predictor) for an agent command: an empty goal, a step limit below 1 or a predictor spec
    that does not parse is a usage error naming the problem."""
    if not args.goal.strip():
        raise UsageError("GOAL is empty: ask the agent a question")
    value = getattr(args, limit)
    if value < 1:
        raise UsageError(f"--{limit.replace('_', '-')} must be >= 1, got {value}")
    try:
        return args.goal, predictor_from_args(args)
    except ValueError as error:
        raise UsageError(str(error)) from None
