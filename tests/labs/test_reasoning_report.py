"""Rows, bootstrap intervals and tables (lllm/labs/reasoning_bench/report.py)."""

from lllm.labs.reasoning_bench.report import Row, Summary, bootstrap_interval, format_sweep, format_table, summarize


def test_docstring_example():
    s = summarize([Row("io", 0, (1, 0, 0, 1)), Row("io", 1, (0, 0, 0, 1))])[0]
    assert (s.success, s.low, s.high) == (0.375, 0.0, 0.875)


def test_the_interval_is_degenerate_when_nothing_varies_and_reproduces():
    assert bootstrap_interval([(1, 1, 1)]) == (1.0, 1.0)
    outcomes = [(1, 0) * 10, (0, 1) * 10]
    assert bootstrap_interval(outcomes) == bootstrap_interval(outcomes)
    low, high = bootstrap_interval(outcomes)
    assert low < 0.5 < high


def test_summary_counts_per_puzzle_and_table():
    rows = [Row("io", 0, (1, 0), calls=2, tokens_in=300, tokens_out=40),
            Row("io", 1, (1, 1), calls=2, tokens_in=300, tokens_out=40)]
    s = summarize(rows)[0]
    assert (s.success, s.calls, s.tokens_in, s.tokens_out, s.unit, s.repeats) == (0.75, 1.0, 150.0, 20.0, "chars", 2)
    assert format_table([s]).splitlines() == [
        "framework   success   95% interval  calls/puzzle  hits/puzzle   chars in  chars out",
        f"io            75.0% {f'{100 * s.low:.0f}-{100 * s.high:.0f}%':>14}           1.0          0.0        150         20"]


def test_sweep_table():
    s = Summary("foa", 0.5, 0.25, 0.75, 1, 0, 0, 0, 0, 0.0)
    assert format_sweep([0.0], {"foa": [s]}).splitlines() == [
        "framework      value noise 0",
        "foa           50.0% (25-75%)"]
