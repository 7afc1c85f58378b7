"""Layer 4 · `lllm inspect MODULE:ATTRIBUTE`: what a tactic says about itself, secrets left out.

Read `entrypoints.py` (how the text becomes a tactic) and `protocol_service.py` (`public_info`)
first. `tactic_resource(tactic)` is the tactic's description as one JSON object: name,
description, runtime, capabilities, input and output schemas, refs, examples and metadata. Keys
that look like secrets (`api_key`, `authorization`, `cookie`, `clientSecret`, `accessToken`, ...)
are dropped at every depth of the examples and metadata; a key ending in `ref` (`api_key_ref`)
names where a secret lives, not the secret, so it stays.

    lllm inspect my_app.tactics:build_tactic           name (runtime), description, capabilities
    lllm inspect my_app.tactics:build_tactic --json    the whole resource, as JSON

Usage:

    >>> from lllm.runtimes.python import as_tactic
    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> resource = tactic_resource(as_tactic(shout, metadata={"api_key": "sk-1", "api_key_ref": "vault/openai"}))
    >>> resource["runtime"], resource["metadata"]
    ('python', {'api_key_ref': 'vault/openai'})
"""

from __future__ import annotations

import json
import os

from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.entrypoints import check_entrypoint, load_from_folder
from lllm.runtimes.native.protocol_service import public_info

__all__ = ["tactic_resource", "load_for_cli", "add_cli"]


def tactic_resource(tactic: Tactic) -> dict:
    info = public_info(tactic)
    return {"name": info["name"], "description": info["description"], "runtime": info["runtime_kind"],
            "capabilities": list(info["capabilities"]), "input_schema": info["input_schema"],
            "output_schema": info["output_schema"], "package_ref": info["package_ref"],
            "service_ref": info["service_ref"], "examples": info["examples"], "metadata": info["metadata"]}


def load_for_cli(entrypoint: str) -> Tactic:
    """The tactic an entrypoint names, '.' searched first; any failure is one UsageError line."""
    from lllm.cli import UsageError
    try:
        return load_from_folder(entrypoint, os.getcwd())
    except Exception as exc:            # the user's module may raise anything while it is imported
        raise UsageError(f"cannot load {entrypoint}: {exc}") from None


# ---- `lllm inspect MODULE:ATTRIBUTE [--json]` ------------------------------------------------------

def add_cli(subparsers) -> None:
    from lllm.cli import argument_type
    p = subparsers.add_parser("inspect", help="describe a tactic: name, runtime, schemas (secrets left out)",
                              description="Load MODULE:ATTRIBUTE (a tactic, a tactic class, a factory or a "
                                          "function) and print what it says about itself.")
    p.add_argument("entrypoint", type=argument_type(check_entrypoint, keep=True), metavar="MODULE:ATTRIBUTE",
                   help="e.g. my_app.tactics:build_tactic")
    p.add_argument("--json", action="store_true", help="print the whole description as JSON")
    p.set_defaults(run=run_inspect)


def run_inspect(args) -> int:
    resource = tactic_resource(load_for_cli(args.entrypoint))
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
