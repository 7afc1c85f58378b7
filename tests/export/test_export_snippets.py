"""The docs include export/ code by named snippet sections; each file stays within the line budget."""

import re
from pathlib import Path

import pytest

EXPORT = Path(__file__).resolve().parents[2] / "export"
SECTIONS = {
    "data.py": ["vocab", "dataset"],
    "model.py": ["config", "lstm-forward", "lstm-backward", "loss"],
    "train.py": ["adamw", "clip", "train-loop"],
    "onnx_export.py": ["onnx-lstm", "ensemble"],
    "agent_recipe.py": ["settings", "weighted-loss", "train-agent"],
}
OURS = ["__init__.py", "data.py", "model.py", "train.py", "plot.py", "onnx_export.py", "build.py",
        "agent_recipe.py", "agent_build.py", "code_key.py"]


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_each_snippet_section_opens_and_closes_once_in_order(name):
    text = (EXPORT / name).read_text()
    found = re.findall(r"^# --8<-- \[(start|end):([\w-]+)\]$", text, flags=re.M)
    expected = [(edge, section) for section in SECTIONS[name] for edge in ("start", "end")]
    assert found == expected


def test_every_file_opens_with_its_layer():          # (the line budget: tests/house/test_line_budget.py)
    for name in OURS:
        assert (EXPORT / name).read_text().startswith('"""Layer 1 · '), name
