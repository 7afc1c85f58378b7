"""site/assets/train/early.mjs, the training tab's early stopping, in Node on literal validation losses: the
best checkpoint, the turn of the validation curve (marked only once a later checkpoint is higher), and the
stop after `patience` checkpoints without improvement, which only mode "stop" asks for."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import ROOT

MODULE = ROOT / "site" / "assets" / "train" / "early.mjs"
NODE = """
import { earlyStop, turnPoint } from %s;
const { calls } = JSON.parse(process.argv[1]);
const out = calls.map(([name, ...args]) => {
  try {
    if (name === "turnPoint") return turnPoint(args[0]);
    const watch = earlyStop(args[0]);
    const seen = args[1].map(([step, validation]) => watch.observe(step, validation));
    return { seen, best: watch.best, keepsBest: watch.keepsBest };
  } catch (e) { return { error: e.message }; }
});
console.log(JSON.stringify(out));
"""
# validation loss at each checkpoint: falls to 2.06 at step 150, then climbs (as the tab measured)
CLIMB = [[50, 2.31], [100, 2.12], [150, 2.06], [200, 2.09], [250, 2.20], [300, 2.87]]


def node(*calls):
    done = subprocess.run(["node", "--input-type=module", "-e", NODE % json.dumps(MODULE.as_uri()), json.dumps({"calls": calls})],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def points(pairs, first=4.6):
    return [{"step": 0, "train": None, "validation": first}] + [{"step": s, "train": 1.0, "validation": v} for s, v in pairs]


def test_the_turn_is_the_lowest_checkpoint_once_a_later_one_is_higher():
    still_falling, turned, bounced_back, one = node(["turnPoint", points(CLIMB[:3])], ["turnPoint", points(CLIMB)],
                                                   ["turnPoint", points(CLIMB + [[350, 2.01]])], ["turnPoint", points([])])
    assert still_falling is None and one is None
    assert turned == {"step": 150, "train": 1.0, "validation": 2.06}
    assert bounced_back is None                     # a new lowest at the end: still falling


def test_stop_mode_stops_after_patience_checkpoints_without_improvement():
    (stop,) = node(["earlyStop", {"mode": "stop", "patience": 3}, CLIMB])
    assert [s["improved"] for s in stop["seen"]] == [True, True, True, False, False, False]
    assert [s["stop"] for s in stop["seen"]] == [False, False, False, False, False, True]
    assert stop["best"] == {"step": 150, "validation": 2.06} and stop["keepsBest"]


@pytest.mark.parametrize("mode, keeps", [("off", False), ("best", True)])
def test_the_other_modes_never_stop(mode, keeps):
    (run,) = node(["earlyStop", {"mode": mode, "patience": 1}, CLIMB])
    assert not any(s["stop"] for s in run["seen"])
    assert run["best"] == {"step": 150, "validation": 2.06} and run["keepsBest"] is keeps


def test_a_wrong_mode_or_patience_is_one_clear_sentence():
    wrong_mode, zero, half = node(["earlyStop", {"mode": "soon"}, []], ["earlyStop", {"mode": "stop", "patience": 0}, []],
                                  ["earlyStop", {"mode": "stop", "patience": 1.5}, []])
    assert wrong_mode["error"] == 'Early stopping must be one of off, best, stop, not "soon".'
    assert zero["error"] == half["error"] == "The patience must be a whole number of checkpoints, at least 1."
