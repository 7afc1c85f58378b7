"""Command line · `lllm react GOAL`: the ReAct loop on one goal, its trace or its trajectory as JSON.

    python -m lllm react "What is 17 * 23?" --predictor rule --verbose
    python -m lllm react "What is 48 plus 17?" --predictor tinyllm-agent --json
    python -m lllm react "What is 17 * 23?" --predictor tinyllm-agent --tools-from "mcp:python -m lllm mcp"
    python -m lllm react "What is 17 * 23?" --predictor tinyllm-agent --tools-from http://127.0.0.1:8765/mcp

`--tools-from` takes the agent's tools from an MCP server instead of its own calc and lookup:
`mcp:COMMAND` is started as a child process (stdio), a URL is reached over streamable HTTP; the
connection stays open for the run (lllm/services/mcp_tools.py, the `mcp` extra). The model still
writes `Action: name[text]`; the text becomes the tool's JSON arguments, checked against its schema.
Exit status 1 when the agent ends without a final answer. A final answer that rests on no
observation is printed with the label "not grounded in any observation" (`lllm/agents/grounding.py`).
"""

from __future__ import annotations

import contextlib
import json

from lllm.agents.grounding import label
from lllm.agents.react import grounding, run_react, terminal_text, trajectory_json
from lllm.agents.tools import DEFAULT_TOOLS
from lllm.commands.args import UsageError, add_predictor_args, goal_and_predictor


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("react", help="run the ReAct agent on one goal",
                              description="Run the ReAct loop (think, act, observe) on GOAL and print its trace. "
                                          "Exit status 1 when the agent ends without a final answer.")
    p.add_argument("goal", metavar="GOAL", help='a question, e.g. "What is 17 * 23?", or a tool call, e.g. "calc[2 + 2]"')
    add_predictor_args(p)
    p.add_argument("--max-steps", type=int, default=5, help="steps before giving up (default 5)")
    p.add_argument("--verbose", action="store_true", help="label every step [AGENT]/[MODEL]: prompt tail, raw output")
    p.add_argument("--json", action="store_true", help="print the trajectory as JSON")
    p.add_argument("--tools-from", metavar="mcp:COMMAND|URL",
                   help="take the tools from an MCP server: a command started over stdio (mcp:python -m lllm mcp) "
                        "or a streamable HTTP URL (http://127.0.0.1:8765/mcp); needs the mcp extra")
    p.set_defaults(run=run)


def run(args) -> int:
    goal, predictor = goal_and_predictor(args)
    with tools_for(args.tools_from) as tools:
        trajectory = run_react(goal, predictor, tools, max_steps=args.max_steps,
                               verbose=args.verbose and not args.json, return_trajectory=True)
    if args.json:
        print(json.dumps(trajectory_json(trajectory), indent=2))
    elif not args.verbose:
        print(terminal_text(trajectory), end="")
    elif grounding(trajectory):
        print(f"[AGENT] {label(grounding(trajectory))}")
    return 0 if trajectory.answer is not None else 1


@contextlib.contextmanager
def tools_for(spec: str | None):
    """The agent's own tools, or those of the MCP server SPEC, connected for the whole run."""
    if spec is None:
        yield DEFAULT_TOOLS
        return
    from lllm.services.mcp_tools import McpTools
    try:
        served = McpTools(spec).__enter__()
    except ValueError as error:              # no SDK, a bad SPEC, a server that cannot be started or reached
        raise UsageError(str(error)) from None
    try:
        yield served.tools
    finally:
        served.__exit__(None, None, None)
