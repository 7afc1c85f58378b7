"""Command line · `lllm replay RUN.json`: replay a time-travel run file and print the trace the page showed.

    python -m lllm replay run.json
    python -m lllm replay chat.json                              an OpenAI-style chat log: its trace and timeline
    python -m lllm replay chat.json --from 2 --brain tinyllm-agent   and re-run from its step 2 with a brain here
    python -m lllm replay run.json --inside 2:1:5 --json         the forward pass that drew character 5 of step 1 of branch 2
    python -m lllm replay run.json --timeline                    and each step's brain, characters and time

RUN.json is what a time-travel widget exports (schema "lllm-run", version 1, or version 2 with
"demo": "react", "memory", "workflow", "oversight", "debate", or "native-agent" / "native-tactic" for
the native runtime's, `lllm/timetravel/native.py`; `lllm/timetravel/runfile.py`; the table of demos
is `lllm/timetravel/demos.py`). Every branch is recomputed from the file's inputs and edits
(`lllm/timetravel/react.py`: a fresh predictor per step, seeded from the seed and the step's
index), and `trace_text` prints it — the same function, and so the same text, as the page.
Exit status 1 when the replay differs from the branches the file recorded (the stderr line names
the first such branch); a file that is missing, not JSON or not a run is one line and status 2.

A chat log (a JSON list of messages with `tool_calls` and `tool` results, as the `openai` client
writes it; `lllm/timetravel/chatlog.py`) is replayed through the ReAct loop at the seam: its trace,
then its timeline (each call, who answered it, its length and time). `--from K --brain B` re-runs
it from model call K with brain B, every call before K kept, and says where the two runs part.

`--inside BRANCH:STEP:CHARACTER` (a ReAct run, each counted from 1) replays the file, then shows the
forward pass of the model that wrote that character (`lllm/timetravel/drilldown.py`): what
`python -m lllm inside` shows for that prompt, seed and position, `--json` as one object.
"""

from __future__ import annotations

import json
import os
import sys

from lllm.timetravel.runfile import BRAINS, MAX_FILE_BYTES, differing_branch
from lllm.commands.args import UsageError, check_sampling_args, finite_float, int_at_least
from lllm.timetravel.demos import any_trace_text, travel_any, which_demo
from lllm.timetravel.chatlog import chat_report, is_chat_log
from lllm.timetravel.react import travel
from lllm.timetravel.drilldown import timeline_text


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("replay", help="replay a time-travel run file (a page's export)",
                              description="Recompute every branch of RUN.json from its inputs and edits and print "
                                          "the trace the page showed. Exit status 1 when the replay differs from the "
                                          "branches the file recorded.")
    p.add_argument("file", metavar="RUN.json", help="a run exported from a time-travel widget (schema lllm-run), "
                                                     "or an OpenAI-style chat log")
    p.add_argument("--from", dest="from_step", type=int_at_least(1), metavar="K",
                   help="a chat log: re-run it from model call K with --brain")
    p.add_argument("--brain", choices=BRAINS, default=None, help="the brain that writes from --from on (default rule)")
    p.add_argument("--inside", metavar="B:S:C", default=None,
                   help="a ReAct run: the forward pass that drew character C of step S of branch B (each from 1)")
    p.add_argument("--json", action="store_true", help="with --inside: the view as one JSON object")
    p.add_argument("--timeline", action="store_true",
                   help="a ReAct run: after the trace, each step's brain, characters written and time")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="the story model's seed (tinyllm)")
    p.add_argument("--temperature", type=finite_float, default=0.8, help="the story model's temperature (tinyllm)")
    p.set_defaults(run=run)


def read_run(path: str):
    """The JSON of a run file, or UsageError naming what is wrong with it (its size checked before it is read)."""
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            raise UsageError(f"{path} is {size:,} bytes; a run file is at most {MAX_FILE_BYTES:,}")
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{path} is not valid JSON: {getattr(error, 'msg', error)}") from None
    except RecursionError:
        raise UsageError(f"{path} nests too deeply to be a run file") from None


def run(args) -> int:
    check_sampling_args(args)
    data = read_run(args.file)
    if is_chat_log(data):
        return run_chat(args, data)
    if args.from_step is not None or args.brain is not None:
        raise UsageError("--from and --brain re-run a chat log; a run file's branches come from its edits")
    if args.json and args.inside is None:
        raise UsageError("--json goes with --inside B:S:C: the replay itself is printed as its trace")
    timings: dict = {}                      # --timeline: each model call's time, as this replay makes it
    try:
        if args.timeline and which_demo(data) != "react":
            raise UsageError(f"--timeline is a ReAct run's; {args.file} is a {which_demo(data)} run")
        record = travel(data, timings=timings) if args.timeline else travel_any(data)
    except ValueError as error:
        raise UsageError(f"{args.file}: {error}") from None
    if args.inside is not None:
        return run_inside(args, record)
    print(any_trace_text(record), end="")
    if args.timeline:
        print("timeline:\n" + timeline_text(record, timings), end="")
    differs = differing_branch(data["branches"], record["branches"]) if "branches" in data else None
    if differs is not None:
        print(f"lllm replay: branch {differs} differs from what {args.file} recorded", file=sys.stderr)
        return 1
    return 0


def run_inside(args, record) -> int:
    """`--inside B:S:C`: the forward pass that drew that character, as `lllm inside` prints it."""
    from lllm.commands.inside import render
    from lllm.model.onnx_backend import ModelError
    from lllm.timetravel.drilldown import character
    if record.get("demo", "react") != "react":
        raise UsageError(f"--inside opens a character of a ReAct run; {args.file} is a {record['demo']} run")
    try:
        view = character(record, args.inside)
    except ModelError as error:
        raise UsageError(f"--inside: {error}") from None
    except ValueError as error:
        raise UsageError(f"--inside {args.inside}: {error}") from None
    if args.json:
        print(json.dumps(view, ensure_ascii=False))
        return 0
    head = (f"branch {view['branch']}, step {view['step']}, character {view['character']} of {len(view['raw'])}: "
            f"{view['raw'][view['character'] - 1]!r}, written by {view['brain']}")
    if "embedding" in view:
        print(head + "\n" + render(view | {"text": view["text"][-80:]}).replace(   # the prompt's tail, not all of it
            "position ", "position (in the prompt and the output) ", 1))
    else:
        d = view["draw"]
        print(f"{head}\nattends over {len(view['keys'])} characters from position {view['first_key']} "
              f"({len(view['layers'])} layers)\ntop: " + "  ".join(f"{ch!r} {p:.4f}" for ch, p in view["top"])
              + (f"\ndraw {d['index']}: u = {d['uniform']:.6f} -> {d['char']!r}" if d["uniform"] is not None
                 else f"\ngreedy: the largest logit wins -> {d['char']!r}"))
    return 0


def run_chat(args, data) -> int:
    """A chat log: its replay's trace and timeline; with --from, the re-run's too, and where they part."""
    if args.brain is not None and args.from_step is None:
        raise UsageError("--brain needs --from K: the model call from which that brain writes")
    try:
        print(chat_report(data, args.brain, args.from_step, seed=args.seed, temperature=args.temperature), end="")
    except ValueError as error:
        raise UsageError(f"{args.file}: {error}") from None
    return 0
