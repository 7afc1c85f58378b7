"""Command line · `lllm sandbox-policy`: the system calls run_python's sandbox refuses, and why.

Read `lllm/runtimes/native/sandbox/seccomp.py` first: this prints its list, the same data the
filter is compiled from, with each call's number on this machine (or the one `--arch` names).

    python -m lllm sandbox-policy                 call, number, answer, why: one line each
    python -m lllm sandbox-policy --json          the same rows as JSON
    python -m lllm sandbox-policy --arch aarch64  another architecture's numbers
"""

from __future__ import annotations

import json

from lllm.commands.args import UsageError
from lllm.runtimes.native.sandbox.seccomp import FilterUnavailable, compile_filter, machine, policy

__all__ = ["add_cli"]


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("sandbox-policy", help="the system calls run_python's sandbox refuses, and why",
                              description="Print the syscall filter run_python's sandbox installs under "
                                          "bubblewrap: every refused call, its number here, the answer and why.")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--arch", default=None, help="x86_64 or aarch64 (default: this machine's)")
    p.set_defaults(run=run_policy)


def run_policy(args) -> int:
    arch = args.arch or machine()
    try:
        size = len(compile_filter(arch)) // 8
    except FilterUnavailable as exc:
        raise UsageError(str(exc)) from None
    rows = policy(arch)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"run_python's syscall filter on {arch}: {len(rows)} rules, {size} BPF instructions; everything else is allowed")
    for row in rows:
        number = "-" if row["number"] is None else str(row["number"])
        print(f"  {row['call']:24s} {number:>4s}  {row['answer']:22s} {row['why']}")
    return 0
