"""lllm/web/tracebacks.py: a cell's error reads error first, then the learner's own lines, innermost
first; library frames are counted, not shown; the full traceback is kept as Python prints it."""

from __future__ import annotations

import doctest
import linecache

import lllm.web.tracebacks as tracebacks
from lllm.web.tracebacks import describe


def fail(code: str, filename: str = "<cell>") -> BaseException:
    """Run `code` as a cell would (its source in linecache) and return what it raised."""
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    try:
        exec(compile(code, filename, "exec"), {})
    except BaseException as e:       # noqa: BLE001 - the cell's error is the value under test
        return e
    raise AssertionError("the code did not fail")


def test_the_docstring_example_runs():
    assert doctest.testmod(tracebacks).failed == 0


def test_library_frames_are_counted_not_shown_and_the_cells_line_comes_first():
    error = fail("import json\nsettings = '{\"model\": tinyllm}'\njson.loads(settings)")
    short, full = describe(error, skip=1)
    assert short.splitlines() == [
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 11 (char 10)",
        "  line 3 of the cell: json.loads(settings)",
        "  (3 library frames hidden: see the full traceback)",
    ]
    assert "json/decoder.py" in full and "json/__init__.py" in full and "json/decoder.py" not in short


def test_an_error_raised_in_lllm_shows_the_learners_call():
    error = fail("from lllm.model.sampling import check_sampling\n\ncheck_sampling(temperature=-1, top_k=0, top_p=1)")
    short, full = describe(error, skip=1)
    lines = short.splitlines()
    assert lines == ["ValueError: temperature must be a finite number >= 0, got -1",
                     "  line 3 of the cell: check_sampling(temperature=-1, top_k=0, top_p=1)",
                     "  (1 library frame hidden: see the full traceback)"]
    assert "lllm/model/sampling.py" in full


def test_a_syntax_error_names_its_line_and_has_no_frames():
    error = fail("x = 1\nprint(x +)")
    short, full = describe(error, skip=1)
    assert short == "SyntaxError: invalid syntax\n  line 2 of the cell: print(x +)\n"
    assert not full.startswith("Traceback") and 'File "<cell>", line 2' in full


def test_frames_of_other_files_are_not_the_learners():
    error = fail("raise KeyError('tinyllm')", filename="<other>")
    short, _ = describe(error, skip=1)
    assert short == "KeyError: 'tinyllm'\n  (1 library frame hidden: see the full traceback)\n"
