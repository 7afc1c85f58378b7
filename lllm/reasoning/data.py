"""Layer 3 · a task's puzzles: read a CSV once, name fixed splits, hand out rows by index.

Read `records.py` first. `Data` knows nothing about any particular task: it checks that the
columns a task needs are present, and maps a split name to a fixed list of row indices, so
"the test split" means the same 100 puzzles in every run, in the terminal and in the page.
The proposal's shape is `Data(); data.initialize(csv_path)`; `Data.from_csv` and
`Data.from_text` are conveniences that do both at once.

Usage:

    >>> data = Data.from_text("rank,puzzle\\n0,1 2 3 4\\n1,4 4 6 8\\n", splits={"test": range(1, 2)},
    ...                       columns=["puzzle"])
    >>> data.get_set_idxs("test"), data.read(1)["puzzle"]
    ([1], '4 4 6 8')
"""

from __future__ import annotations

import csv
import io
import os
from typing import Iterable, Mapping

__all__ = ["Data", "DataError", "DATA_DIR"]

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")   # the tasks' CSV files (lllm/reasoning/data/)


class DataError(ValueError):
    """The CSV, the split name or the index is wrong; the message names which."""


class Data:
    def __init__(self, rows: list[dict] | None = None, splits: Mapping[str, Iterable[int]] | None = None,
                 source: str = "<data>", columns: Iterable[str] = ()):
        self.splits = {name: list(idxs) for name, idxs in (splits or {}).items()}
        self.columns = list(columns)
        self.rows: list[dict] = []
        self.source = source
        if rows is not None:
            self._load(list(rows), source)

    # ---- the proposal's loader ---------------------------------------------------------------------

    def initialize(self, csv_path: str) -> "Data":
        """Read `csv_path` (checking the columns and the splits against it); returns self."""
        try:
            with open(csv_path, encoding="utf-8", newline="") as f:
                text = f.read()
        except OSError as e:
            raise DataError(f"{csv_path}: cannot read ({e.strerror})") from None
        return self._parse(text, csv_path)

    def _parse(self, text: str, source: str) -> "Data":
        reader = csv.DictReader(io.StringIO(text))
        found = reader.fieldnames or []
        missing = [c for c in self.columns if c not in found]
        if missing:
            raise DataError(f"{source}: missing column(s) {', '.join(missing)} (found: {', '.join(found) or 'none'})")
        self._load(list(reader), source)
        return self

    def _load(self, rows: list[dict], source: str) -> None:
        for name, idxs in self.splits.items():
            bad = [i for i in idxs if not 0 <= i < len(rows)]
            if bad:
                raise DataError(f"{source}: split {name!r} names row {bad[0]}, but there are {len(rows)} rows")
        self.rows, self.source = rows, source

    # ---- conveniences --------------------------------------------------------------------------------

    @classmethod
    def from_text(cls, text: str, splits: Mapping[str, Iterable[int]], columns: Iterable[str] = (),
                  source: str = "<text>") -> "Data":
        return cls(splits=splits, columns=columns)._parse(text, source)

    @classmethod
    def from_csv(cls, path: str, splits: Mapping[str, Iterable[int]], columns: Iterable[str] = ()) -> "Data":
        return cls(splits=splits, columns=columns).initialize(path)

    # ---- reading -------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.rows)

    def get_set_idxs(self, set_name: str) -> list[int]:
        if set_name not in self.splits:
            raise DataError(f"unknown split {set_name!r}; choose from {', '.join(self.splits)}")
        return list(self.splits[set_name])

    def read(self, idx: int) -> dict:
        if not isinstance(idx, int) or not 0 <= idx < len(self.rows):
            raise DataError(f"{self.source}: no row {idx!r} (there are {len(self.rows)} rows, 0..{len(self.rows) - 1})")
        return self.rows[idx]
