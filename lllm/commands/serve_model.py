"""Command line · `lllm serve-model`: TinyLLM and the agent-tuned TinyLLM as an OpenAI-compatible server on loopback.

Any OpenAI client can then use them: the `openai` package, LiteLLM, a ReAct agent with
`--predictor http://127.0.0.1:8080`, and, through JSON tool calls (`tools`, `tool_calls`), the
tool-calling loops of agent frameworks such as Pydantic AI, with the agent-tuned model. The routes,
the chat template and what each request field does are in lllm/services/openai/service.py, tool
calls in lllm/services/toolcalls.py; CORS in lllm/services/openai/server.py. Needs the `serve`
extra (FastAPI and uvicorn) and the `model` extra (onnxruntime). Ctrl-C or SIGTERM stops it.

    python -m lllm serve-model
    python -m lllm serve-model --models tinyllm-agent --port 8081
    python -m lllm serve-model --allow-origin https://my-copy.example.org --allow-origin 'http://127.0.0.1:*'
    python -m lllm serve-model --workers 4 --max-queue 64

Bounded: `--workers` requests are written at once, `--max-queue` more wait, the next is refused
with 503 and Retry-After; the door's flags (--max-body, --header-timeout, --body-timeout,
--max-connections, --allow-origin) are `lllm serve`'s (lllm/commands/serve.py).
"""

from __future__ import annotations

import signal
import sys

from lllm.commands.args import UsageError, argument_type
from lllm.commands.serve import add_limit_args, limits_from
from lllm.services.app import INSTALL_SERVE, check_host, check_log_level, check_port, missing_server_packages

DEFAULT_MODELS = "tinyllm-agent,tinyllm"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("serve-model", help="serve TinyLLM as an OpenAI-compatible server (/v1/chat/completions)",
                              description="Serve TinyLLM and the agent-tuned TinyLLM over OpenAI's API "
                                          "(/v1/models, /v1/chat/completions, /v1/completions, streaming too) "
                                          f"under uvicorn. Needs the serve extra: {INSTALL_SERVE}.")
    p.add_argument("--models", default=DEFAULT_MODELS, metavar="NAME[:PATH],...",
                   help="models to serve, comma-separated, tinyllm[:PATH] and/or tinyllm-agent[:PATH]; the first "
                        f"also answers to the model name 'default' (default {DEFAULT_MODELS}: those that are built)")
    p.add_argument("--host", type=argument_type(check_host), default="127.0.0.1",
                   help="default 127.0.0.1 (this machine only)")
    p.add_argument("--port", type=argument_type(check_port), default=8080, help="1-65535 (default 8080)")
    p.add_argument("--log-level", type=argument_type(check_log_level), default="info",
                   help="critical, error, warning, info (default: one line per request), debug or trace")
    add_limit_args(p)                               # the door's flags, --workers and --max-queue among them
    p.set_defaults(run=run_serve_model)


def open_models(text: str) -> list:
    """The ServedModels `--models` names; with the default list, the ones that are not built are skipped."""
    from lllm.services.openai.served_model import open_model
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise UsageError("--models is empty: name tinyllm and/or tinyllm-agent")
    names = [s.partition(":")[0] for s in specs]
    if len(set(names)) != len(names):
        raise UsageError(f"--models names a model twice: {text}")
    models, missing = [], []
    for spec in specs:
        try:
            models.append(open_model(spec))
        except ValueError as error:
            if text != DEFAULT_MODELS:
                raise UsageError(str(error).removeprefix("--models ")) from None
            missing.append(str(error))
    for problem in missing:
        print(f"lllm serve-model: not serving {problem.removeprefix('--models ')}", file=sys.stderr, flush=True)
    if not models:
        raise UsageError("no model to serve: build one with `make model` or `make agent-model`")
    return models


def run_serve_model(args) -> int:
    missing = missing_server_packages()
    if missing:
        raise UsageError(f"serve-model needs {' and '.join(missing)}, which this Python cannot import; {INSTALL_SERVE}")
    from lllm.services.openai.server import DEFAULT_ORIGINS, run
    from lllm.services.openai.service import OpenAIService
    limits = limits_from(args)
    service = OpenAIService(open_models(args.models))
    # SIGTERM (a supervisor, Popen.terminate) stops it as Ctrl-C does, with exit status 0.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if args.host not in LOOPBACK:
        print(f"lllm serve-model: note: --host {args.host} lets other machines reach the models", file=sys.stderr, flush=True)
    try:
        run(service, args.host, args.port, tuple(args.allow_origin or DEFAULT_ORIGINS), args.log_level, limits,
            args.workers, args.max_queue)
    except ValueError as error:                     # the port is taken, the host is not ours, ...
        raise UsageError(str(error)) from None
    print("lllm serve-model: stopped", file=sys.stderr, flush=True)
    return 0
