"""Layer 3 · a task's puzzles: read a CSV once, name fixed splits, hand out rows by index.

Read `records.py` first. `Data` knows nothing about any particular task: it checks that the
columns a task needs are present, and maps a split name to a fixed list of row indices, so
"the test split" means the same 100 puzzles in every run, in the terminal and in the page.

Usage:

    >>> data = Data.from_text("rank,puzzle\\n0,1 2 3 4\\n1,4 4 6 8\\n", splits={"test": range(1, 2)},
    ...                       columns=["puzzle"])
    >>> data.get_set_idxs("test"), data.read(1)["puzzle"]
    ([1], '4 4 6 8')
"""

from __future__ import annotations

import csv
import io
from typing import Iterable, Mapping

__all__ = ["Data", "DataError"]


class DataError(ValueError):
    """The CSV, the split name or the index is wrong; the message names which."""


class Data:
    def __init__(self, rows: list[dict], splits: Mapping[str, Iterable[int]], source: str = "<data>"):
        self.rows = rows
        self.source = source
        self.splits = {name: list(idxs) for name, idxs in splits.items()}
        for name, idxs in self.splits.items():
            bad = [i for i in idxs if not 0 <= i < len(rows)]
            if bad:
                raise DataError(f"{source}: split {name!r} names row {bad[0]}, but there are {len(rows)} rows")

    @classmethod
    def from_text(cls, text: str, splits: Mapping[str, Iterable[int]], columns: Iterable[str] = (),
                  source: str = "<text>") -> "Data":
        reader = csv.DictReader(io.StringIO(text))
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise DataError(f"{source}: missing column(s) {', '.join(missing)} (found: {', '.join(reader.fieldnames or []) or 'none'})")
        return cls(list(reader), splits, source)

    @classmethod
    def from_csv(cls, path: str, splits: Mapping[str, Iterable[int]], columns: Iterable[str] = ()) -> "Data":
        try:
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
        except OSError as e:
            raise DataError(f"{path}: cannot read ({e.strerror})") from None
        return cls.from_text(text, splits, columns, source=path)

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
