"""Command line · `lllm create [TEMPLATE] NAME`: a tactic service project, or a config-driven app.

The library does the writing (`lllm/create/`): `create_project` for the service templates (plain,
native, pydantic-ai), `create_app` for the `lllm.toml` app; their `ValueError` and `OSError`
become one-line usage errors here.

    python -m lllm create plain hello              # a tactic service project
    python -m lllm create myapp                    # a config-driven app (lllm.toml, prompts/, tactics/)
"""

from __future__ import annotations

from pathlib import Path

from lllm.commands.args import UsageError, argument_type
from lllm.create.project import create_project, directory_path, project_slug
from lllm.create.scaffold import create_app
from lllm.create.templates import TEMPLATES



def add_cli(subparsers) -> None:
    p = subparsers.add_parser("create", help="create a project: a tactic service (plain, native, pydantic-ai) or an lllm.toml app",
                              description="lllm create TEMPLATE NAME writes a tactic service project (templates: "
                                          f"{', '.join(TEMPLATES)}); lllm create NAME writes a config-driven app "
                                          "(lllm.toml, prompts/, configs/, tactics/, main.py).")
    p.add_argument("first", metavar="TEMPLATE", help=f"{', '.join(TEMPLATES)} or app (or NAME alone, for an app)")
    p.add_argument("name", nargs="?", type=argument_type(project_slug, keep=True), metavar="NAME",
                   help="the project's folder name")
    p.add_argument("--directory", type=argument_type(directory_path), default=Path("."),
                   help="the folder to create it in (default: here)")
    p.add_argument("--force", action="store_true", help="write into a project folder that is not empty")
    p.set_defaults(run=run_create)


def run_create(args) -> int:
    template, name = ("app", args.first) if args.name is None else (args.first, args.name)
    if args.name is None and args.first in TEMPLATES:
        raise UsageError(f"the {args.first} template needs a project name: lllm create {args.first} NAME")
    try:
        if template == "app":
            if args.force:
                raise UsageError("--force works with the service templates, not with an lllm.toml app")
            root = create_app(name, str(args.directory))
            print(f"created app project at {root}: cd {root} && python main.py && python -m pytest")
            return 0
        result = create_project(template, name, directory=args.directory, force=args.force)
    except (ValueError, OSError) as exc:           # FileExistsError is an OSError
        raise UsageError(str(exc)) from None
    print(f"created {template} project at {result.path}")
    print(f"next: cd {result.path} && pip install -e \".[dev,server]\" && pytest")
    return 0
