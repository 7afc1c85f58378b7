"""Command line · `lllm inspect MODULE:ATTRIBUTE`: what a tactic says about itself, secrets left out.

Read `lllm/runtimes/native/entrypoints.py` (how the text becomes a tactic) and
`lllm/services/protocol_service.py` (`describe_tactic`, the description this prints) first.

    python -m lllm inspect my_app.tactics:build_tactic           name (runtime), description, capabilities
    python -m lllm inspect my_app.tactics:build_tactic --json    the whole description, as JSON
"""

from __future__ import annotations

import json
import os

from lllm.commands.args import UsageError, argument_type
from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.entrypoints import check_entrypoint, load_from_folder
from lllm.services.protocol_service import describe_tactic

__all__ = ["load_for_cli", "add_cli"]


def load_for_cli(entrypoint: str) -> Tactic:
    """The tactic an entrypoint names, '.' searched first; any failure is one UsageError line."""
    try:
        return load_from_folder(entrypoint, os.getcwd())
    except Exception as exc:            # the user's module may raise anything while it is imported
        raise UsageError(f"cannot load {entrypoint}: {exc}") from None


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("inspect", help="describe a tactic: name, runtime, schemas (secrets left out)",
                              description="Load MODULE:ATTRIBUTE (a tactic, a tactic class, a factory or a "
                                          "function) and print what it says about itself.")
    p.add_argument("entrypoint", type=argument_type(check_entrypoint, keep=True), metavar="MODULE:ATTRIBUTE",
                   help="e.g. my_app.tactics:build_tactic")
    p.add_argument("--json", action="store_true", help="print the whole description as JSON")
    p.set_defaults(run=run_inspect)


def run_inspect(args) -> int:
    resource = describe_tactic(load_for_cli(args.entrypoint))
    if args.json:
        print(json.dumps(resource, indent=2, sort_keys=True))
        return 0
    print(f"{resource['name']} ({resource['runtime']})")
    if resource["description"]:
        print(resource["description"])
    print("capabilities:", ", ".join(resource["capabilities"]))
    for side in ("input", "output"):
        schema = resource[f"{side}_schema"] or {}
        print(f"{side}: {schema.get('title', 'any')} {sorted(schema.get('properties', {}))}".rstrip())
    return 0
