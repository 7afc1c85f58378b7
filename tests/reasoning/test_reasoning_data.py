"""Loading a task's CSV with fixed splits (lllm/reasoning/data.py, lllm/reasoning/tasks/game24.py)."""

import pytest

from lllm.reasoning.data import Data, DataError
from lllm.reasoning.tasks.game24 import load_game24

CSV = "rank,puzzle\n0,1 2 3 4\n1,4 4 6 8\n2,1 1 4 6\n"


def test_docstring_example():
    data = Data.from_text(CSV, splits={"test": range(1, 2)}, columns=["puzzle"])
    assert data.get_set_idxs("test") == [1]
    assert data.read(1)["puzzle"] == "4 4 6 8"
    assert len(data) == 3


def test_missing_column_is_named():
    with pytest.raises(DataError, match=r"<text>: missing column\(s\) puzzle \(found: rank, numbers\)"):
        Data.from_text("rank,numbers\n0,1 2 3 4\n", splits={}, columns=["puzzle"])


def test_unknown_split_lists_the_choices():
    data = Data.from_text(CSV, splits={"train": [0], "test": [1]}, columns=["puzzle"])
    with pytest.raises(DataError, match="unknown split 'dev'; choose from train, test"):
        data.get_set_idxs("dev")


def test_bad_index_and_bad_split_definition():
    data = Data.from_text(CSV, splits={}, columns=["puzzle"])
    with pytest.raises(DataError, match=r"no row 3 \(there are 3 rows, 0..2\)"):
        data.read(3)
    with pytest.raises(DataError, match="split 'test' names row 7, but there are 3 rows"):
        Data.from_text(CSV, splits={"test": [7]})


def test_missing_file_is_named(tmp_path):
    with pytest.raises(DataError, match="nope.csv: cannot read"):
        Data.from_csv(str(tmp_path / "nope.csv"), splits={})


def test_game24_csv_and_splits():
    data = load_game24()
    assert len(data) == 1362
    assert data.read(0) == {"Rank": "1", "Puzzles": "1 1 4 6", "AMT (s)": "4.4", "Solved rate": "99.20%",
                            "1-sigma Mean (s)": "4.67", "1-sigma STD (s)": "1.48"}
    test, val, train = (data.get_set_idxs(s) for s in ("test", "validation", "train"))
    assert (test[0], test[-1], len(test)) == (900, 999, 100)
    assert (val[0], val[-1], len(val)) == (1000, 1099, 100)
    assert len(train) == 1162
    assert set(test) | set(val) | set(train) == set(range(1362))
    assert data.read(900)["Puzzles"] == "4 5 6 10"                  # rank 901: the first test puzzle
    assert data.read(999)["Rank"] == "1000"


def test_the_proposal_shape_reads_a_csv_into_an_empty_data(tmp_path):
    path = tmp_path / "tiny.csv"
    path.write_text(CSV)
    data = Data(splits={"test": [2]}, columns=["puzzle"])
    assert data.initialize(str(path)) is data
    assert [data.read(i)["puzzle"] for i in data.get_set_idxs("test")] == ["1 1 4 6"]


def test_a_csv_without_the_task_columns_is_named(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(DataError, match=r"other.csv: missing column\(s\) Rank, Puzzles \(found: a, b\)"):
        load_game24(str(path))
