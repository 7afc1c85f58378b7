"""The docs include export/ code by named snippet sections; each file stays within the line budget."""

import re
from pathlib import Path

import pytest

EXPORT = Path(__file__).resolve().parent.parent / "export"
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


def test_every_file_has_a_layer_docstring_and_at_most_300_code_lines():
    table = []
    for name in OURS:
        text = (EXPORT / name).read_text()
        code = [line for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
        table.append(f"{name:16s} {len(code):4d}")
        assert text.startswith('"""Layer 1 · '), name
        assert len(code) <= 300, name
    print("\n".join(table))
