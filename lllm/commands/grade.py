"""Command line · `lllm grade RECORD`: re-grade a course final's completion record, as its page does.

    python -m lllm grade final-record.json          the file the final page saves
    python -m lllm grade 'https://.../course/final/#record=eyJz...'   or the link it gives
    python -m lllm grade final-record.json --json   the whole result as one JSON object

Nothing the record says about its own score is read: the paper is drawn again from the record's
seed (`lllm/labs/final/exam.py`), each answer is checked, and the exercise runs against its hidden
checks in run_python's sandbox (`lllm/labs/final/record.py`) — the same modules the page runs in
its Python, so both print the same result. Exit status 0 on a pass and 1 on a fail, with one line
per item that did not check and the sections to re-read; a record that cannot be graded (missing,
not JSON, a field wrong, a seed that does not give its questions) is one sentence and status 2.
"""

from __future__ import annotations

import json
import os

from lllm.commands.args import UsageError
from lllm.labs.final.record import MAX_BYTES, RecordError, from_link, read_record, regrade


def add_cli(subparsers) -> None:
    p = subparsers.add_parser("grade", help="re-grade a course final's completion record",
                              description="Draw the final again from the record's seed, check every answer and run "
                                          "the exercise's hidden checks in the sandbox. Exit status 0 on a pass, 1 "
                                          "on a fail, 2 when the record cannot be graded.")
    p.add_argument("record", metavar="RECORD", help="the record file the final page saved, or the link it gave")
    p.add_argument("--json", action="store_true", help="print the whole result as one JSON object")
    p.set_defaults(run=run)


def record_text(where: str) -> str:
    """The record's JSON text from a file or a `#record=` link; UsageError names what is wrong."""
    if "#record=" in where and not os.path.exists(where):
        return from_link(where)
    try:
        if os.stat(where).st_size > MAX_BYTES:
            raise UsageError(f"{where} is larger than {MAX_BYTES} bytes; a final's record is a few kB")
        with open(where, encoding="utf-8") as f:
            return f.read()
    except OSError as error:
        raise UsageError(f"cannot read {where}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{where} is not text: a record is a JSON file") from None


def report(result: dict) -> str:
    lines = [f"Re-graded now from seed {result['seed']} (site version {result['site_version']}), for "
             f"{result['name']}, {result['seconds'] // 60} min {result['seconds'] % 60} s taken.", result["summary"]]
    lines += result["problems"]
    if result["reread"]:
        lines.append("Re-read: " + "; ".join(f"{t['title']} ({t['page']}#{t['anchor']})" for t in result["reread"]))
    return "\n".join(lines)


def run(args) -> int:
    try:
        result = regrade(read_record(record_text(args.record)))
    except RecordError as error:
        raise UsageError(str(error)) from None
    print(json.dumps(result, indent=1) if args.json else report(result))
    return 0 if result["passed"] else 1
