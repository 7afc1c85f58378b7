"""Platform adapter · a cell's error as a learner reads it: what went wrong and where in their code, first.

Read `browser.py`'s `run_cell` first: it runs a page's code cell and hands its error to `describe`.
A plain traceback starts with the outermost call and walks down through every library frame (an
agent's error can be 30 lines through lllm/), so the line that matters, the error and its message,
comes last. `describe` turns it round: the error type and message first, then each line of the
learner's own code (frames whose file is the cell, `"<cell>"`) innermost first, and how many library
frames it left out. The full traceback stays available (the page shows it a click away).

    >>> import linecache
    >>> code = "def half(x):\\n    return x / 0\\nhalf(4)"
    >>> linecache.cache["<cell>"] = (len(code), None, code.splitlines(True), "<cell>")   # as run_cell does
    >>> try:
    ...     exec(compile(code, "<cell>", "exec"), {})
    ... except ZeroDivisionError as e:
    ...     short, full = describe(e, skip=1)       # skip=1: this example's own frame, the runner here
    >>> print(short, end="")
    ZeroDivisionError: division by zero
      line 2 of the cell: return x / 0
      line 3 of the cell: half(4)
    >>> full.startswith("Traceback (most recent call last):") and full.endswith("ZeroDivisionError: division by zero\\n")
    True
"""

from __future__ import annotations

import linecache
import traceback

__all__ = ["describe"]


def describe(error: BaseException, filename: str = "<cell>", skip: int = 0) -> tuple[str, str]:
    """(short, full) for an exception raised by code compiled from `filename`. `skip`: outer frames
    that are the runner's own (left out of both). short = "Type: message", then one line per frame
    of the learner's code, innermost first, then "(n library frames hidden)" when there were any;
    full = the whole traceback as Python prints it (without the skipped frames)."""
    tb = error.__traceback__
    for _ in range(skip):
        tb = tb.tb_next if tb is not None else None
    if isinstance(error, SyntaxError) and error.filename == filename:
        tb = None                          # the cell's text is wrong, not a call: no frames to show
    full = "".join(traceback.format_exception(type(error), error, tb))
    headline = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()[-1]
    lines = [headline]
    if isinstance(error, SyntaxError) and error.filename == filename and error.lineno:
        lines.append(f"  line {error.lineno} of the cell: {(error.text or '').strip()}")
    frames = traceback.extract_tb(tb)
    own = [f for f in frames if f.filename == filename]
    lines += [f"  line {f.lineno} of the cell: {(f.line or linecache.getline(filename, f.lineno)).strip()}" for f in reversed(own)]
    hidden = len(frames) - len(own)
    if hidden:
        lines.append(f"  ({hidden} library frame{'s' if hidden != 1 else ''} hidden: see the full traceback)")
    return "\n".join(lines) + "\n", full
