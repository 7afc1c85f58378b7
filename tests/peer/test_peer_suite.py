"""The peer suite: lllm-core 0.2.1's own offline tests, unchanged, against our package.

tests/peer/run_peer.py downloads upstream's sdist (cached in build/peer/, hash-checked), runs its
tests in a scratch folder and prints passed/total per file; a file below its committed floor in
tests/peer/floors.json fails this test. Raise the floors with `python tests/peer/run_peer.py --write`.
"""

import json

from peer import run_peer


def test_every_deselection_names_an_allowed_reason():
    allowed = ("live providers", "Jupyter", "PsiHub's network", "the pydantic-ai package")
    for node, reason in run_peer.read_deselected().items():
        assert reason.startswith(allowed), f"{node}: {reason!r} is not an allowed reason"


def test_floors_never_exceed_totals():
    floors = json.loads((run_peer.HERE / "floors.json").read_text(encoding="utf-8"))
    for name, spec in floors.items():
        assert 0 <= spec["floor"] <= spec["total"], name


def test_peer_suite_meets_the_committed_floors(capsys):
    status = run_peer.main([])
    print(capsys.readouterr().out)
    assert status == 0, "a peer-suite file fell below its floor (see the table above)"
