"""The reasoning page in real Chromium: every cell prints in Pyodide exactly what it prints in CPython
(the same puzzles, seeds and search trees: the frameworks reproduce in the browser)."""

import contextlib
import io
import re

import pytest

from runtime_support import ROOT

pytestmark = pytest.mark.browser
CELL = re.compile(r"```python \{\.runnable\}\n(.*?)```", re.DOTALL)


def cpython_output(codes):
    namespace, outputs = {}, []
    for code in codes:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<cell>", "exec"), namespace)
        outputs.append(out.getvalue())
    return outputs


def test_cells_print_in_the_page_what_they_print_in_cpython(page, site_server):
    codes = CELL.findall((ROOT / "site" / "reasoning" / "index.md").read_text())
    expected = cpython_output(codes)
    page.page.goto(site_server.url + "reasoning/")
    page.page.evaluate("lllm.ready()")
    for code, want in zip(codes, expected):
        result = page.page.evaluate("([code, ns]) => lllm.run(code, {namespace: ns})", [code, "reasoning"])
        assert result["stdout"] == want
    assert len(codes) == 4
