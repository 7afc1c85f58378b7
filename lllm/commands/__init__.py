"""Command line · the `python -m lllm` dispatcher: one subcommand per module of this folder.

The command line sits at the edge: it imports the library, and nothing in the library imports it.
Each command module defines `add_cli(subparsers)`, which adds its subparser and sets
`run=callable(args) -> exit status`. Errors in what the user typed are one line on stderr
(`lllm generate: error: ...`) and exit status 2 (`main` raises `SystemExit(2)`, as argparse
does for an unknown option) — never a traceback wall. Library code raises `ValueError` or its own
typed errors; the command turns them into `UsageError` (args.py).

Usage:

    python -m lllm generate --prompt "Once" --seed 1
    python -m lllm --help

    >>> main(["generate", "--max-new-tokens", "-1"])
    Traceback (most recent call last):
    ...
    SystemExit: 2
"""

from __future__ import annotations

import importlib
import sys

from lllm.commands.args import ArgParser, UsageError

# The command modules, in the order `--help` lists them. Listed, not discovered: no import magic.
COMMAND_MODULES = ["lllm.commands." + name for name in (
    "generate", "inside", "reason", "react", "lab", "evaluate", "playground", "explain_memory", "factory", "workflow",
    "oversee", "debate", "create", "inspect", "replay", "grade", "serve", "serve_model", "mcp", "sandbox_policy")]

__all__ = ["COMMAND_MODULES", "build_parser", "main"]


# ---- dispatch --------------------------------------------------------------------------------------

def build_parser() -> ArgParser:
    parser = ArgParser(prog="lllm", description="LLLM: learn how LLM agents work, layer by layer.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgParser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_cli(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status; a usage error exits with status 2, as argparse's own do.

    So `main([...])` returns 0 (or a command's other status) when the input was understood, and
    raises `SystemExit(2)` after one line on stderr when it was not (lllm-core's `main` does the same).
    """
    parser = build_parser()
    args = parser.parse_args(argv)                  # argparse: SystemExit(2) for an unknown option
    if not getattr(args, "run", None):
        parser.print_help()
        raise SystemExit(2)
    try:
        return args.run(args)
    except UsageError as e:
        print(f"lllm {args.command}: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print(f"lllm {args.command}: interrupted", file=sys.stderr)
        return 130
