"""Layer 4 · what a reasoning benchmark measured, and how it is shown: rows, bootstrap intervals, tables.

Read `benchmark.py` first (it runs the benchmark). A `Row` is one repeat of one framework
over a split: which puzzles it solved and what the model cost (calls, cache hits, text in and
out, wall time). `summarize` turns a framework's rows into a `Summary` with a bootstrap 95%
interval: it redraws, 1,000 times, as many repeats and as many puzzles as there were (with
replacement, from a seeded generator, so the interval reproduces) and takes the middle 95% of
the success rates. It is the uncertainty of *this* benchmark — the puzzles drawn and the
model's randomness — not of the model in general.

Usage:

    >>> rows = [Row("io", 0, (1, 0, 0, 1)), Row("io", 1, (0, 0, 0, 1))]
    >>> s = summarize(rows)[0]
    >>> s.success, s.low, s.high
    (0.375, 0.0, 0.875)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lllm.model.sampling import Mulberry32

__all__ = ["Row", "Summary", "summarize", "bootstrap_interval", "format_table", "format_chart", "format_tree",
           "format_verdict", "format_sweep", "result_record"]

RESAMPLES = 1000


# ---- one repeat, and a framework's summary ------------------------------------------------------

@dataclass
class Row:
    framework: str
    seed: int                       # the repeat: a fresh seeded model and a fresh agent cache
    outcomes: tuple[int, ...]       # 1 if the split's i-th puzzle was solved
    calls: int = 0                  # model replies generated
    hits: int = 0                   # replies served by the cache
    tokens_in: int = 0
    tokens_out: int = 0
    cached_in: int = 0
    unit: str = "chars"             # "tokens" when the model counted them (an HTTP server's usage)
    seconds: float = field(default=0.0, compare=False)    # wall time (varies from run to run)

    @property
    def solved(self) -> int:
        return sum(self.outcomes)

    @property
    def puzzles(self) -> int:
        return len(self.outcomes)


@dataclass
class Summary:
    framework: str
    success: float          # mean success rate over repeats
    low: float              # bootstrap 95% interval of the success rate
    high: float
    calls: float            # per puzzle, from here down
    hits: float
    tokens_in: float
    tokens_out: float
    cached_in: float
    seconds: float = field(compare=False)
    unit: str = "chars"
    repeats: int = 1


# --8<-- [start:bootstrap]
def bootstrap_interval(outcomes: list[tuple[int, ...]], resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """95% interval of the mean success: redraw repeats and puzzles with replacement."""
    rng = Mulberry32(seed)
    repeats, puzzles = len(outcomes), len(outcomes[0])
    means = []
    for _ in range(resamples):
        rows = [outcomes[int(rng.uniform() * repeats)] for _ in range(repeats)]
        cols = [int(rng.uniform() * puzzles) for _ in range(puzzles)]
        means.append(math.fsum(row[c] for row in rows for c in cols) / (repeats * puzzles))
    means.sort()
    return means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]
# --8<-- [end:bootstrap]


def summarize(rows: list[Row]) -> list[Summary]:
    out = []
    for name in dict.fromkeys(r.framework for r in rows):
        mine = [r for r in rows if r.framework == name]
        n = sum(r.puzzles for r in mine)
        low, high = bootstrap_interval([r.outcomes for r in mine]) if n else (0.0, 0.0)

        def per_puzzle(key: str) -> float:
            return math.fsum(getattr(r, key) for r in mine) / max(n, 1)

        out.append(Summary(name, sum(r.solved for r in mine) / max(n, 1), low, high, per_puzzle("calls"),
                           per_puzzle("hits"), per_puzzle("tokens_in"), per_puzzle("tokens_out"),
                           per_puzzle("cached_in"), per_puzzle("seconds"), mine[0].unit, len(mine)))
    return out


# ---- text -----------------------------------------------------------------------------------------

def format_table(summaries: list[Summary]) -> str:
    unit = summaries[0].unit if summaries else "chars"
    lines = [f"{'framework':10} {'success':>8} {'95% interval':>14} {'calls/puzzle':>13} {'hits/puzzle':>12} "
             f"{unit + ' in':>10} {unit + ' out':>10}"]
    for s in summaries:
        interval = f"{100 * s.low:.0f}-{100 * s.high:.0f}%"
        lines.append(f"{s.framework:10} {s.success:8.1%} {interval:>14} {s.calls:13.1f} {s.hits:12.1f} "
                     f"{s.tokens_in:10.0f} {s.tokens_out:10.0f}")
    return "\n".join(lines)


def format_sweep(levels: list[float], table: dict[str, list[Summary]], knob: str = "value noise") -> str:
    """Success of each framework (rows) as the stand-in's evaluator gets worse (columns)."""
    lines = [f"{'framework':10} " + " ".join(f"{knob + ' ' + format(v, 'g'):>17}" for v in levels)]
    for name, summaries in table.items():
        lines.append(f"{name:10} " + " ".join(f"{s.success:6.1%} ({100 * s.low:.0f}-{100 * s.high:.0f}%)".rjust(17)
                                               for s in summaries))
    return "\n".join(lines)


def format_chart(summaries: list[Summary], height: int = 10, width: int = 48) -> str:
    """Success (up) against model calls per puzzle (right, log scale): what search buys, and its price."""
    top = max(max(s.calls for s in summaries), 10.0)
    grid = [[" "] * (width + 1) for _ in range(height + 1)]
    for mark, s in enumerate(summaries, 1):
        x = round(math.log10(max(s.calls, 1.0)) / math.log10(top) * width)
        y = height - round(s.success * height)
        grid[y][x] = str(mark % 10) if grid[y][x] == " " else "*"
    lines = [f"{100 - 100 * i // height:4d}% |" + "".join(row) for i, row in enumerate(grid)]
    lines.append("      +" + "-" * (width + 1))
    right = f"{top:.0f} calls per puzzle"
    lines.append("       1 call" + right.rjust(max(width - 5, len(right) + 2)))
    lines.append("       " + "  ".join(f"{i % 10} {s.framework}" for i, s in enumerate(summaries, 1)) + "  (* = overlap)")
    return "\n".join(lines)


def format_tree(result) -> str:
    """A run as an indented tree: each state with its value (and visits, merges) and what became of it."""
    children: dict = {}
    for node in result.tree:
        children.setdefault(node.parent, []).append(node)
    lines = []

    def show(node, depth):
        last = node.state.steps[-1] if node.state.steps else node.state.puzzle
        value = "" if node.value is None else f"  value {node.value:g}"
        notes = [node.note] if node.note else []
        if node.visits:
            notes.append(f"visits {node.visits}")
        if node.merged:
            notes.append("also from " + ", ".join(f"#{m}" for m in node.merged))
        if node.state.current_state.startswith("invalid") and node.state.current_state not in notes:
            notes.append(node.state.current_state)                  # a step the environment rejected
        lines.append(f"{'  ' * depth}#{node.id} {last}{value}" + (f"  [{'; '.join(notes)}]" if notes else ""))
        for child in children.get(node.id, []):
            show(child, depth + 1)

    for root in children.get(None, []):
        show(root, 0)
    lines.append(format_verdict(result))
    return "\n".join(lines)


def format_verdict(result) -> str:
    """The run's last line: the verdict and what the model cost."""
    u = result.usage
    return (f"-> {result.verification.message} ({'correct' if result.verification.correct else 'wrong'}); "
            f"{u.calls} model calls, {u.hits} cache hits, {u.tokens_in} {u.unit} in, {u.tokens_out} out")


# ---- JSON for the page ------------------------------------------------------------------------------

def result_record(result) -> dict:
    u = result.usage
    return {"framework": result.framework, "puzzle_idx": result.puzzle_idx, "puzzle": result.state.puzzle,
            "steps": list(result.state.steps), "verification": result.verification._asdict(),
            "usage": {"calls": u.calls, "hits": u.hits, "tokens_in": u.tokens_in, "tokens_out": u.tokens_out,
                      "cached_in": u.cached_in, "unit": u.unit},
            "tree": [{"id": n.id, "parent": n.parent, "steps": list(n.state.steps), "left": n.state.current_state,
                      "value": n.value, "note": n.note, "merged": list(n.merged), "visits": n.visits}
                     for n in result.tree]}
