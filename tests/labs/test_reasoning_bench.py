"""The framework comparison and the `reason` command (lllm/labs/reasoning_bench/benchmark.py)."""

import json

import pytest

from lllm.commands import main
from lllm.labs.reasoning_bench.benchmark import benchmark, lab_json, make_framework, sweep


def test_docstring_example():
    rows = benchmark(["io", "tot-bfs"], split="test", seeds=[0], error_rate=0.5, limit=10)
    assert [(r.framework, r.solved, r.puzzles) for r in rows] == [("io", 1, 10), ("tot-bfs", 10, 10)]


def test_search_beats_a_single_answer_and_reproduces():
    rows = benchmark(["io", "cot", "tot-bfs", "got", "rap"], split="test", seeds=[0], error_rate=0.5, limit=20)
    solved = {r.framework: r.solved for r in rows}
    for search in ("tot-bfs", "got", "rap"):
        assert solved[search] >= solved["io"] + 10, solved
    assert benchmark(["rap"], split="test", seeds=[0], error_rate=0.5, limit=20) == [r for r in rows if r.framework == "rap"]


def test_a_row_counts_the_stand_in_in_characters():
    row = benchmark(["cot"], seeds=[0], limit=2)[0]
    assert (row.calls, row.hits, row.unit, row.puzzles) == (2, 0, "chars", 2)
    assert row.tokens_in > 2 * 200 and row.tokens_out > 0


def test_search_degrades_as_the_evaluator_gets_worse():
    table = sweep(["tot-bfs"], [0.0, 1.0], error_rate=0.5, seeds=[0], limit=20)
    perfect, random = (s.success for s in table["tot-bfs"])
    assert perfect == 1.0 and random < perfect


def test_the_second_task_needs_the_tool():
    rows = benchmark(["io", "react", "reflexion"], task="brookfield", seeds=[0], error_rate=0.0)
    assert [(r.framework, r.solved, r.puzzles) for r in rows] == [("io", 0, 11), ("react", 11, 11), ("reflexion", 11, 11)]


def test_unknown_framework_name():
    with pytest.raises(ValueError, match="unknown framework 'tot'; choose from io, cot, cot-sc"):
        make_framework("tot")


def test_cli_prints_a_comparison(capsys):
    assert main(["reason", "--framework", "io,rap", "--limit", "5", "--seeds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("game24, test split (5 puzzles), stand-in (a program, not an LLM), error rate 0.5, "
                      "value noise 0.5, 2 repeat(s)")
    assert out[1].split()[:4] == ["framework", "success", "95%", "interval"]
    assert [line.split()[0] for line in out[2:4]] == ["io", "rap"]
    assert out[4].startswith("wall time per puzzle: io ")


def test_cli_json_and_one_puzzle(capsys):
    assert main(["reason", "--framework", "got", "--limit", "3", "--seeds", "2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [(r["framework"], r["seed"], r["puzzles"], r["unit"]) for r in record["rows"]] == [
        ("got", 0, 3, "chars"), ("got", 1, 3, "chars")]
    summary = record["summary"][0]
    assert summary["low"] <= summary["success"] <= summary["high"] and summary["repeats"] == 2
    assert {"calls", "hits", "tokens_in", "tokens_out", "cached_in", "seconds"} <= set(summary)
    assert main(["reason", "--framework", "rap", "--puzzle", "900", "--error-rate", "0"]) == 0
    tree = capsys.readouterr().out
    assert tree.startswith("#0 4 5 6 10  [root")
    assert "(correct); " in tree.splitlines()[-1]


def test_cli_sweep(capsys):
    assert main(["reason", "--sweep", "value-noise", "--framework", "io", "--limit", "2", "--seeds", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "game24, test split, stand-in error rate 0.5: success as value noise grows"
    assert out[1].split()[:3] == ["framework", "value", "noise"]


@pytest.mark.parametrize("argv, message", [
    (["--framework", "tot"], "lllm reason: error: --framework 'tot' is unknown; choose from io, cot"),
    (["--task", "chess"], "lllm reason: error: --task 'chess' is unknown; choose from game24, brookfield"),
    (["--split", "dev"], "lllm reason: error: --split: unknown split 'dev'; choose from train, test, validation"),
    (["--error-rate", "1.5"], "lllm reason: error: --error-rate must be in [0, 1], got 1.5"),
    (["--value-noise", "-0.1"], "lllm reason: error: --value-noise must be in [0, 1], got -0.1"),
    (["--seeds", "0"], "lllm reason: error: --seeds must be at least 1"),
    (["--puzzle", "5000"], "lllm reason: error: --puzzle must be below 1362, got 5000"),
    (["--limit", "-1"], "lllm reason: error: argument --limit: must be >= 0, got -1"),
    (["--predictor", "bogus"], "lllm reason: error: --predictor 'bogus' is not one of: tinyllm[:PATH]"),
    (["--sweep", "value-noise", "--predictor", "rule"], "lllm reason: error: --sweep varies the stand-in's evaluator"),
])
def test_cli_bad_input_is_one_line(capsys, argv, message):
    try:
        status = main(["reason"] + argv)
    except SystemExit as e:                     # argparse's own checks exit from inside parse_args
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_lab_json_names_bad_fields():
    assert json.loads(lab_json('{"kind": "run", "puzzle": 5000, "framework": "io"}')) == {
        "ok": False, "error": "puzzle must be a row 0..1361, got 5000"}
    assert json.loads(lab_json('{"kind": "run", "puzzle": 1, "framework": "io", "value_noise": 2}'))["error"] == \
        "value noise must be in [0, 1], got 2"
    assert json.loads(lab_json('{"kind": "run", "puzzle": 1, "framework": "io", "model": "tinyllm"}'))["error"] == \
        "model must be stand-in, got 'tinyllm'"
    assert json.loads(lab_json('{"kind": "run", "task": "chess", "puzzle": 1, "framework": "io"}'))["error"] == \
        "unknown task 'chess'; choose from game24, brookfield"


def test_lab_json_runs_both_tasks():
    run = json.loads(lab_json('{"kind": "run", "task": "brookfield", "puzzle": 1, "framework": "react", "error_rate": 0}'))
    assert run["verification"] == {"finished": True, "correct": True, "message": "'5' is right"}
    bench = json.loads(lab_json('{"kind": "benchmark", "frameworks": ["io", "got"], "limit": 2}'))
    assert [s["framework"] for s in bench["summary"]] == ["io", "got"]


