"""The reasoning page (site/reasoning/index.md): its cells run, its snippets exist, its diagrams are flat,
and its measured tables are what the command prints."""

import contextlib
import io
import pathlib
import re
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "site" / "reasoning" / "index.md"
CELL = re.compile(r"```python \{\.runnable\}\n(.*?)```", re.DOTALL)
SNIPPET = re.compile(r'--8<-- "([^":]+):([^"]+)"')
MERMAID = re.compile(r"```mermaid\n(.*?)```", re.DOTALL)


def test_runnable_cells_run_and_print():
    namespace, outputs = {}, []
    for code in CELL.findall(PAGE.read_text()):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "reasoning/index.md cell", "exec"), namespace)
        outputs.append(out.getvalue())
    assert len(outputs) == 5
    # the first cell prints the search tree as the lab draws it (lllm.reasoning.search_tree)
    assert outputs[0].startswith("* #0 puzzle 4 5 6 10 | root |") and "| the answer" in outputs[0]
    assert "also from #" in outputs[1]
    assert outputs[1].splitlines()[-4:] == [
        "step 1: 2 + 2 is 4, not 5", "step 1: 7 is not among the numbers left (2 2 9 12)",
        "step 1: 'two plus two' is not of the form 'a op b = c (left: ...)'", "step 2: 9 / 0 divides by zero"]
    assert "visits" in outputs[2] and "-> " in outputs[2]
    assert "lookup[dot] -> Dot is Mr. Hale's small brown dog." in outputs[3]
    assert outputs[3].splitlines()[-1].startswith("-> '18' is right (correct)")
    assert outputs[4].splitlines()[0].startswith("framework   success   95% interval") and "calls per puzzle" in outputs[4]


def test_snippets_name_real_sections():
    found = SNIPPET.findall(PAGE.read_text())
    assert len(found) >= 16
    for path, section in found:
        text = (ROOT / path).read_text()
        assert f"--8<-- [start:{section}]" in text and f"--8<-- [end:{section}]" in text, f"{path}:{section}"


def test_diagrams_follow_the_house_rules():
    diagrams = MERMAID.findall(PAGE.read_text())
    assert len(diagrams) == 11                    # the pattern, one per framework family, the second task
    for d in diagrams:
        assert d.startswith("flowchart TD\n")
        assert "subgraph" not in d and "classDef" not in d
        assert not re.search(r"^\s*end\b|-->\s*end\b", d, re.MULTILINE)


def test_measured_table_rows_are_what_the_command_prints():
    from lllm.labs.reasoning_bench.benchmark import benchmark
    from lllm.labs.reasoning_bench.report import format_table, summarize
    page = PAGE.read_text()
    for name in ("cot", "react"):                 # the cheap rows; the rest come from the same code
        line = format_table(summarize(benchmark([name], split="test", seeds=range(10), error_rate=0.5))).splitlines()[1]
        assert line in page, line
    line = format_table(summarize(benchmark(["react"], task="brookfield", seeds=range(10)))).splitlines()[1]
    assert line in page, line


def test_the_page_says_which_numbers_come_from_the_stand_in():
    page = PAGE.read_text()
    assert "**Every number in this section comes from the stand-ins, not from an LLM.**" in page
    assert "the stand-in's numbers again" in page


def test_the_site_wheel_holds_the_task_data(tmp_path):
    sys.path.insert(0, str(ROOT))
    from hooks.runtime import build_wheel
    names = zipfile.ZipFile(build_wheel(tmp_path)).namelist()
    for data in ("game24-4nums.csv", "game24.csv", "brookfield-qa.csv", "SOURCES.txt"):
        assert f"lllm/reasoning/data/{data}" in names
