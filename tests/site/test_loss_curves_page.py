"""The comparison page's loss curves (bench/results/loss-curves.md, included by site/tinyllm/versus.md)
are drawn from the recorded runs (bench/results/loss-{tinyllm,tinygpt}.json) and are current with them,
and the recorded runs agree with the separate held-out scoring of `bench/tinygpt_bench.py --train`
(bench/results/tinygpt.md): the same training, run twice, ends at the same validation loss.
Nothing here trains; `python bench/loss_curves_bench.py --model all --render` rewrites the files."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from conftest import ROOT

RESULTS = ROOT / "bench" / "results"
NAMES = ("tinyllm", "tinygpt")


def bench():
    spec = importlib.util.spec_from_file_location("loss_curves_bench", ROOT / "bench" / "loss_curves_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def runs() -> list[dict]:
    return [json.loads((RESULTS / f"loss-{name}.json").read_text(encoding="utf-8")) for name in NAMES]


def test_the_page_includes_the_curves_rendered_from_the_recorded_runs():
    assert '--8<-- "bench/results/loss-curves.md"' in (ROOT / "site" / "tinyllm" / "versus.md").read_text(encoding="utf-8")
    shown = (RESULTS / "loss-curves.md").read_text(encoding="utf-8")
    assert shown == bench().render(runs()), "stale: run `python bench/loss_curves_bench.py --render`"


def test_every_recorded_point_is_drawn_and_tabled():
    shown = (RESULTS / "loss-curves.md").read_text(encoding="utf-8")
    lines = re.findall(r'<polyline points="([^"]+)"', shown)
    assert len(lines) == 4                                        # two models x train, validation
    rows = re.findall(r"<tr><td>(\d+)</td><td>([\d.]+)</td><td>([\d.]+)</td></tr>", shown)
    expected = [(str(p["updates"]), f"{p['train']:.4f}", f"{p['validation']:.4f}") for r in runs() for p in r["points"]]
    assert rows == expected
    for run, (train, validation) in zip(runs(), (lines[0:2], lines[2:4])):
        assert len(train.split()) == len(validation.split()) == len(run["points"])


@pytest.mark.parametrize("column,name", [(0, "tinyllm"), (1, "tinygpt")])
def test_the_curves_end_where_the_separate_held_out_scoring_ended(column, name):
    table = (RESULTS / "tinygpt.md").read_text(encoding="utf-8")
    held_out = float(re.search(r"\| loss on the 10% held out \| ([\d.]+) \| ([\d.]+) \|", table).group(column + 1))
    run = json.loads((RESULTS / f"loss-{name}.json").read_text(encoding="utf-8"))
    assert run["points"][-1]["validation"] == pytest.approx(held_out, abs=0.01)
    assert run["points"][-1]["train"] > 0 and run["points"][0]["train"] > run["points"][-1]["train"]
