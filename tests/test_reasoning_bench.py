"""The framework comparison and the `reason` command (lllm/labs/reasoning_lab.py)."""

import doctest
import importlib
import json

import pytest

from lllm.cli import main
from lllm.labs.reasoning_lab import Row, Summary, benchmark, format_chart, format_table, make_framework, summarize


def test_docstring_example():
    rows = benchmark(["io", "tot-bfs"], split="test", seeds=[0], error_rate=0.5, limit=10)
    assert [(r.framework, r.solved, r.puzzles) for r in rows] == [("io", 1, 10), ("tot-bfs", 10, 10)]


def test_search_beats_a_single_answer_on_the_test_split_and_reproduces():
    names = ["io", "cot", "tot-bfs", "tot-dfs", "foa"]
    rows = benchmark(names, split="test", seeds=[0], error_rate=0.5)
    solved = {r.framework: r.solved for r in rows}
    assert all(r.puzzles == 100 for r in rows)
    for search in ("tot-bfs", "tot-dfs", "foa"):
        assert solved[search] >= solved["io"] + 10 and solved[search] >= solved["cot"] + 10, solved
    assert benchmark(["foa"], split="test", seeds=[0], error_rate=0.5) == [r for r in rows if r.framework == "foa"]


def test_summary_and_table():
    rows = [Row("io", 0, 1, 10, 10, 0), Row("io", 1, 3, 10, 10, 0), Row("foa", 0, 9, 10, 300, 100)]
    s = summarize(rows)
    assert s[0] == Summary("io", pytest.approx(0.2), pytest.approx(0.1), 1.0, 0.0, 2)
    assert format_table(s).splitlines() == [
        "framework   success  ± spread  calls/puzzle  hits/puzzle  bar",
        "io            20.0%     10.0%           1.0          0.0  ########",
        "foa           90.0%      0.0%          30.0         10.0  ####################################"]


def test_chart_puts_success_up_and_calls_right():
    chart = format_chart([Summary("io", 0.1, 0.0, 1.0, 0.0, 1), Summary("foa", 1.0, 0.0, 100.0, 0.0, 1)], height=2, width=10)
    assert chart.splitlines() == [
        " 100% |          2",
        "  50% |           ",
        "   0% |1          ",
        "      +-----------",
        "       1 call  100 calls per puzzle",
        "       1 io  2 foa  (* = overlap)"]


def test_unknown_framework_name():
    with pytest.raises(ValueError, match="unknown framework 'tot'; choose from io, cot, cot-sc"):
        make_framework("tot")


def test_cli_prints_a_comparison(capsys):
    assert main(["reason", "--framework", "io,foa", "--limit", "5", "--seeds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Game of 24, test split (5 puzzles), simulated model, error rate 0.5, 2 seed(s)"
    assert [line.split()[0] for line in out[2:]] == ["io", "foa"]


def test_cli_json_and_one_puzzle(capsys):
    assert main(["reason", "--framework", "cot", "--limit", "3", "--seeds", "1", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["rows"] == [{"framework": "cot", "seed": 0, "solved": record["rows"][0]["solved"], "puzzles": 3,
                               "calls": 3, "hits": 0}]
    assert main(["reason", "--framework", "tot-bfs", "--puzzle", "900", "--error-rate", "0"]) == 0
    tree = capsys.readouterr().out
    assert tree.startswith("2 2 9 12  [root]\n")
    assert "-> reached 24 in 3 steps (correct)" in tree


@pytest.mark.parametrize("argv, message", [
    (["--framework", "tot"], "lllm reason: error: --framework 'tot' is unknown; choose from io, cot"),
    (["--split", "dev"], "lllm reason: error: --split: unknown split 'dev'; choose from train, test, validation"),
    (["--error-rate", "1.5"], "lllm reason: error: --error-rate must be in [0, 1], got 1.5"),
    (["--seeds", "0"], "lllm reason: error: --seeds must be at least 1"),
    (["--puzzle", "5000"], "lllm reason: error: --puzzle must be below 1362, got 5000"),
    (["--limit", "-1"], "lllm reason: error: argument --limit: must be >= 0, got -1"),
])
def test_cli_bad_input_is_one_line(capsys, argv, message):
    try:
        status = main(["reason"] + argv)
    except SystemExit as e:                     # argparse's own checks exit from inside parse_args
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


@pytest.mark.parametrize("module", ["records", "data", "arithmetic", "game24", "agent", "frameworks", "search",
                                    "simulated", "__init__", "lllm.labs.reasoning_lab"])
def test_module_docstring_examples_run(module):
    name = "lllm.reasoning" if module == "__init__" else module if "." in module else f"lllm.reasoning.{module}"
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
