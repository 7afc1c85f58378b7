"""The reasoning page (site/reasoning/index.md): its cells run, its snippets exist, its diagrams are flat."""

import contextlib
import io
import pathlib
import re
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
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
    assert len(outputs) == 4
    assert outputs[0].startswith("2 2 9 12  [root]\n") and "-> " in outputs[0]
    assert outputs[1].splitlines()[-4:] == [
        "step 1: 2 + 2 is 4, not 5", "step 1: 7 is not among the numbers left (2 2 9 12)",
        "step 1: 'two plus two' is not of the form 'a op b = c (left: ...)'", "step 2: 9 / 0 divides by zero"]
    assert "-> " in outputs[2]
    assert outputs[3].splitlines()[0].startswith("framework   success") and "calls per puzzle" in outputs[3]


def test_snippets_name_real_sections():
    found = SNIPPET.findall(PAGE.read_text())
    assert len(found) >= 12
    for path, section in found:
        text = (ROOT / path).read_text()
        assert f"--8<-- [start:{section}]" in text and f"--8<-- [end:{section}]" in text, f"{path}:{section}"


def test_diagrams_follow_the_house_rules():
    diagrams = MERMAID.findall(PAGE.read_text())
    assert len(diagrams) == 8                     # the pattern and one per framework family
    for d in diagrams:
        assert d.startswith("flowchart TD\n")
        assert "subgraph" not in d and "classDef" not in d
        assert not re.search(r"^\s*end\b|-->\s*end\b", d, re.MULTILINE)


def test_measured_table_rows_are_what_the_command_prints():
    from lllm.labs.reasoning_lab import benchmark, format_table, summarize
    for name in ("cot", "react"):                 # the cheap rows; the rest come from the same code
        line = format_table(summarize(benchmark([name], split="test", seeds=[0, 1, 2], error_rate=0.5))).splitlines()[1]
        assert line in PAGE.read_text(), line


def test_the_site_wheel_holds_the_game24_data(tmp_path):
    sys.path.insert(0, str(ROOT))
    from hooks.runtime import build_wheel
    names = zipfile.ZipFile(build_wheel(tmp_path)).namelist()
    assert "lllm/reasoning/data/game24.csv" in names
