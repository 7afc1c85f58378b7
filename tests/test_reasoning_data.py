"""Loading a task's CSV with fixed splits (lllm/reasoning/data.py, lllm/reasoning/game24.py)."""

import pytest

from lllm.reasoning.data import Data, DataError
from lllm.reasoning.game24 import load_game24

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
    assert data.read(0) == {"rank": "0", "puzzle": "12 12 12 12", "success_probability": "0.102130",
                            "solution": "12 + 12 = 24 (left: 12 12 24) | 12 - 12 = 0 (left: 0 24) | 0 + 24 = 24 (left: 24)"}
    test, val, train = (data.get_set_idxs(s) for s in ("test", "validation", "train"))
    assert (test[0], test[-1], len(test)) == (900, 999, 100)
    assert (val[0], val[-1], len(val)) == (1000, 1099, 100)
    assert len(train) == 1162
    assert set(test) | set(val) | set(train) == set(range(1362))
    assert data.read(900)["puzzle"] == "2 2 9 12"
