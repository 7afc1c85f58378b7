"""Command line · `lllm serve MODULE:ATTRIBUTE`: a tactic over HTTP, under uvicorn or http.server.

`--server auto` (the default) runs the `ProtocolService` (lllm/services/protocol_service.py) as a
FastAPI app under uvicorn when the `serve` extra is installed (`pip install 'lllm-learn[serve]'`),
and otherwise says so in one line on stderr and uses `http.server`; `--server uvicorn` insists (a
usage error without the extra), `--server stdlib` never tries. Ctrl-C or SIGTERM stops either
cleanly, with exit status 0. Either way the door of lllm/services/door.py stands in front: a body
over `--max-body` is 413, a page whose origin is not in `--allow-origin` is refused, a POST must be
JSON, headers and body have `--header-timeout` and `--body-timeout`, at most
`--max-connections` are open at once, and tactics run in `--workers` processes with `--max-queue`
more requests waiting (past that, 503 with Retry-After; `/health`, `/tactics` and `/info` never
wait, and no tactic's pure-Python work holds the interpreter lock of the process answering them:
lllm/services/workers.py). Each worker builds the tactic once, so state a tactic keeps in memory
is per worker. `add_limit_args` gives `serve-model` the same flags (its workers are threads).

    python -m lllm serve main:build
    python -m lllm serve my_app.tactics:build_tactic --port 9000 --server stdlib
    python -m lllm serve main:build --allow-origin https://my-site.example --max-body 65536
"""

from __future__ import annotations

import functools
import signal
import sys

from lllm.commands.args import UsageError, argument_type, finite_float, non_negative_int, positive_int
from lllm.commands.inspect import load_for_cli
from lllm.runtimes.native.entrypoints import check_entrypoint
from lllm.services.app import INSTALL_SERVE, check_host, check_log_level, check_port, missing_server_packages
from lllm.services.http_server import check_server, serve
from lllm.services.door import DEFAULT_ORIGINS, Limits
from lllm.services.protocol_service import ProtocolService
from lllm.services.workers import ProcessPool

DEFAULTS = Limits()


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
    add_limit_args(p)
    p.set_defaults(run=run_serve)


def add_limit_args(p) -> None:
    """The door's flags (lllm/services/door.py), shared by `serve` and `serve-model`."""
    p.add_argument("--allow-origin", action="append", metavar="ORIGIN",
                   help="a web page origin that may call the server from a browser (CORS); repeat for more; "
                        "'*' allows any, 'https://*.example.org' any subdomain, 'http://127.0.0.1:*' any port. "
                        f"Default: {' '.join(DEFAULT_ORIGINS)}")
    p.add_argument("--max-body", type=positive_int, default=DEFAULTS.max_body, metavar="BYTES",
                   help=f"the largest request body; a larger one is refused with 413 unread (default {DEFAULTS.max_body})")
    p.add_argument("--header-timeout", type=finite_float, default=DEFAULTS.header_timeout, metavar="SECONDS",
                   help=f"time for a request's line and headers, else 408 and closed (default {DEFAULTS.header_timeout:g})")
    p.add_argument("--body-timeout", type=finite_float, default=DEFAULTS.body_timeout, metavar="SECONDS",
                   help=f"time for a request's body, else 408 and closed (default {DEFAULTS.body_timeout:g})")
    p.add_argument("--max-connections", type=positive_int, default=DEFAULTS.max_connections, metavar="N",
                   help=f"open connections at once; the next gets 503 and is closed (default {DEFAULTS.max_connections})")
    p.add_argument("--workers", type=positive_int, default=2, metavar="N",
                   help="requests worked on at once (a tactic run, a completion), each on a worker of its own: "
                        "a process for serve, a thread for serve-model (default 2)")
    p.add_argument("--max-queue", type=non_negative_int, default=32, metavar="N",
                   help="requests that may wait for a worker; past that, 503 with Retry-After (default 32)")


def limits_from(args) -> Limits:
    if args.header_timeout <= 0 or args.body_timeout <= 0:
        raise UsageError("--header-timeout and --body-timeout must be more than 0 seconds")
    return Limits(args.max_body, args.header_timeout, args.body_timeout, args.max_connections)


def build_service(entrypoint: str) -> ProtocolService:
    """What each worker process runs once: the entrypoint loaded again, as a service."""
    return ProtocolService(load_for_cli(entrypoint))


def run_serve(args) -> int:
    server = pick_server(args.server)               # before importing the user's module: fail fast
    limits, origins = limits_from(args), tuple(args.allow_origin or DEFAULT_ORIGINS)
    service = ProtocolService(load_for_cli(args.entrypoint))
    # SIGTERM (a supervisor, Popen.terminate) stops it as Ctrl-C does: uvicorn finishes the requests
    # in flight, http.server closes its socket, and either way the command ends with status 0.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        pool = ProcessPool(functools.partial(build_service, args.entrypoint), args.workers, args.max_queue)
    except RuntimeError as exc:                     # a worker could not load what the server itself loaded
        raise UsageError(str(exc)) from None
    try:
        if server == "uvicorn":
            from lllm.services.tactic_app import serve_uvicorn
            try:
                serve_uvicorn(service, args.host, args.port, args.log_level, limits, origins, pool)
            except ValueError as exc:               # the port is taken, the host is not ours, ...
                raise UsageError(str(exc)) from None
        else:
            try:
                serve(service, args.host, args.port, args.log_level, limits, origins, pool)
            except OSError as exc:                  # the port is taken, the host is not ours, ...
                raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    finally:
        pool.close()
    print(f"lllm serve: stopped ({server})", file=sys.stderr, flush=True)
    return 0
