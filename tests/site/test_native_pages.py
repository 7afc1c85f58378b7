"""The native-runtime pages: every runnable cell runs in CPython, every included snippet exists."""

import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "site" / "native").glob("*.md"))
from support.runtime import CELL, cells  # noqa: E402
SNIPPET = re.compile(r'--8<-- "([^":]+):([^"]+)"')


def test_every_abstraction_has_a_page():
    assert {p.stem for p in PAGES} >= {"index", "tactic", "agent", "prompt", "dialog", "tools", "configuration", "proxies"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_runnable_cells_run(page):
    namespace, ran = {}, 0
    for code in cells(page.read_text()):
        if "lllm.web.browser" in code:        # needs the page's TinyLLM; the browser tests run it
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{page.name} cell", "exec"), namespace)
        assert out.getvalue().strip(), f"a cell in {page.name} printed nothing"
        ran += 1
    assert ran > 0 or page.stem == "configuration"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_snippets_name_real_sections(page):
    for path, section in SNIPPET.findall(page.read_text()):
        text = (ROOT / path).read_text()
        assert f"--8<-- [start:{section}]" in text and f"--8<-- [end:{section}]" in text, f"{path}:{section}"


def test_the_page_examples_print_what_the_text_says():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(CELL.findall((ROOT / "site/native/agent.md").read_text())[0], "agent cell", "exec"), {})
    assert "ran calc 1 time(s)" in out.getvalue()
    assert "(repeated call: same result as before)" in out.getvalue()
