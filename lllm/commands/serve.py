"""Command line · `lllm serve MODULE:ATTRIBUTE`: a tactic over HTTP, under uvicorn or http.server.

`--server auto` (the default) runs the `ProtocolService` (lllm/services/protocol_service.py) as a
FastAPI app under uvicorn when the `serve` extra is installed (`pip install 'lllm-learn[serve]'`),
and otherwise says so in one line on stderr and uses `http.server`; `--server uvicorn` insists (a
usage error without the extra), `--server stdlib` never tries. Ctrl-C or SIGTERM stops either
cleanly, with exit status 0.

    python -m lllm serve main:build
    python -m lllm serve my_app.tactics:build_tactic --port 9000 --server stdlib
"""

from __future__ import annotations

import signal
import sys

from lllm.commands.args import UsageError, argument_type
from lllm.commands.inspect import load_for_cli
from lllm.runtimes.native.entrypoints import check_entrypoint
from lllm.services.http_server import (INSTALL_SERVE, check_host, check_log_level, check_port, check_server,
                                       missing_server_packages, serve, serve_uvicorn)
from lllm.services.protocol_service import ProtocolService


def pick_server(choice: str) -> str:
    """"uvicorn" or "stdlib" for `--server CHOICE`; auto falls back in one line, uvicorn insists."""
    if choice == "stdlib":
        return "stdlib"
    missing = missing_server_packages()
    if not missing:
        return "uvicorn"
    names = " and ".join(missing)
    if choice == "uvicorn":
        raise UsageError(f"--server uvicorn needs {names}, which this Python cannot import; {INSTALL_SERVE}")
    print(f"lllm serve: {names} not installed, so serving with the standard library's http.server "
          f"(for uvicorn and FastAPI: {INSTALL_SERVE})", file=sys.stderr, flush=True)
    return "stdlib"


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("serve", help="serve a tactic over HTTP (lllm-core's /health, /info, /run, /stream)",
                              description="Load MODULE:ATTRIBUTE (a tactic, a tactic class, a factory or a function) "
                                          "and serve it over HTTP, speaking the protocol envelope of "
                                          "lllm/services/protocol_service.py: under uvicorn (FastAPI) when the serve extra is "
                                          f"installed ({INSTALL_SERVE}), else with the standard library's http.server.")
    p.add_argument("entrypoint", type=argument_type(check_entrypoint, keep=True), metavar="MODULE:ATTRIBUTE",
                   help="e.g. my_app.tactics:build_tactic or main:build")
    p.add_argument("--host", type=argument_type(check_host), default="127.0.0.1", help="default 127.0.0.1")
    p.add_argument("--port", type=argument_type(check_port), default=8000, help="1-65535 (default 8000)")
    p.add_argument("--log-level", type=argument_type(check_log_level), default="info",
                   help="critical, error, warning, info (default: one line per request), debug or trace")
    p.add_argument("--server", type=argument_type(check_server), default="auto",
                   help="auto (default: uvicorn if installed, else http.server), uvicorn or stdlib")
    p.set_defaults(run=run_serve)


def run_serve(args) -> int:
    server = pick_server(args.server)               # before importing the user's module: fail fast
    service = ProtocolService(load_for_cli(args.entrypoint))
    # SIGTERM (a supervisor, Popen.terminate) stops it as Ctrl-C does: uvicorn finishes the requests
    # in flight, http.server closes its socket, and either way the command ends with status 0.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if server == "uvicorn":
        serve_uvicorn(service, args.host, args.port, args.log_level)
    else:
        try:
            serve(service, args.host, args.port, args.log_level)
        except OSError as exc:                      # the port is taken, the host is not ours, ...
            raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    print(f"lllm serve: stopped ({server})", file=sys.stderr, flush=True)
    return 0
