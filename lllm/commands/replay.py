"""Command line · `lllm replay RUN.json`: replay a time-travel run file and print the trace the page showed.

    python -m lllm replay run.json

RUN.json is what a time-travel widget exports (schema "lllm-run", version 1, or version 2 with
"demo": "react", "memory", "workflow", "oversight", "debate", or "native-agent" / "native-tactic" for
the native runtime's, `lllm/runtimes/native/timetravel.py`; `lllm/agents/runfile.py`; the table of demos
is `lllm/labs/timetravel/demos.py`). Every branch is recomputed from the file's inputs and edits
(`lllm/agents/timetravel.py`: a fresh predictor per step, seeded from the seed and the step's
index), and `trace_text` prints it — the same function, and so the same text, as the page.
Exit status 1 when the replay differs from the branches the file recorded (the stderr line names
the first such branch); a file that is missing, not JSON or not a run is one line and status 2.
"""

from __future__ import annotations

import json
import sys

import os

from lllm.agents.runfile import MAX_FILE_BYTES, differing_branch
from lllm.labs.timetravel.demos import any_trace_text, travel_any
from lllm.commands.args import UsageError


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("replay", help="replay a time-travel run file (a page's export)",
                              description="Recompute every branch of RUN.json from its inputs and edits and print "
                                          "the trace the page showed. Exit status 1 when the replay differs from the "
                                          "branches the file recorded.")
    p.add_argument("file", metavar="RUN.json", help="a run exported from a time-travel widget (schema lllm-run)")
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
    data = read_run(args.file)
    try:
        record = travel_any(data)
    except ValueError as error:
        raise UsageError(f"{args.file}: {error}") from None
    print(any_trace_text(record), end="")
    differs = differing_branch(data["branches"], record["branches"]) if "branches" in data else None
    if differs is not None:
        print(f"lllm replay: branch {differs} differs from what {args.file} recorded", file=sys.stderr)
        return 1
    return 0
