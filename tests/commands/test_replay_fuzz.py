"""Hostile run files against `python -m lllm replay` and the page's loader: one clear line, never a traceback.

1,200 seeded mutations of real run files of every demo (tests/support/runfuzz.py: fields dropped,
renamed, retyped, nested 100,000 deep, made 10 MB long, files truncated or not UTF-8). Each must
end in exit status 0, 1 or 2 with at most one short line on stderr, within 5 s; a file whose
recorded branches were changed must not pass as matching (status 1, or 2 when the change made
the file malformed); one without them is a spec, as a link is, and replays. The page's loader (`lllm.web.timetravel.run_json`, the same Python the page
runs in Pyodide) gets the same files as the page sends them, and must answer ok or one sentence.
"""

import contextlib
import io
import json
import time

import pytest

from lllm.commands import main
from lllm.web.timetravel import run_json
from support.runfuzz import seed_records, variants

COUNT = 1_200
SECONDS = 5


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    records = seed_records()
    folder = tmp_path_factory.mktemp("hostile")
    return records, [(name, data, folder / f"{i}.json") for i, (name, data) in enumerate(variants(records, COUNT, seed=51))]


def replay(path) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    begin = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["replay", str(path)])
        except SystemExit as exit_:
            status = exit_.code
    return status, out.getvalue(), err.getvalue(), time.perf_counter() - begin


def original(records: dict, name: str) -> dict:
    return records[name.split(":")[0]]


def test_every_hostile_file_is_one_line_and_a_status_never_a_traceback(hostile):
    records, files = hostile
    problems, passed_as_matching = [], []
    for name, data, path in files:
        path.write_bytes(data)
        status, _, err, seconds = replay(path)          # any exception but SystemExit fails the test here
        if status not in (0, 1, 2) or seconds > SECONDS or len(err) > 300 or err.count("\n") > 1:
            problems.append((name, status, round(seconds, 1), err[:200]))
        try:
            document = json.loads(data)
        except (ValueError, RecursionError):
            continue
        base = original(records, name)
        # without "branches" a file is a spec, as a link is: nothing recorded to compare
        if isinstance(document, dict) and "branches" in document and document["branches"] != base["branches"] \
                and status == 0:
            passed_as_matching.append(name)
    assert problems == []
    assert passed_as_matching == []


def test_the_pages_loader_answers_every_hostile_file_with_ok_or_one_sentence(hostile):
    records, files = hostile
    problems = []
    for name, data, _ in files:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue                                  # the page's loader refuses it before Python (fatal TextDecoder)
        begin = time.perf_counter()
        out = json.loads(run_json('{"spec": ' + text + ', "recorded": null}'))
        seconds = time.perf_counter() - begin
        if seconds > SECONDS or not (out["ok"] or (isinstance(out["error"], str) and len(out["error"]) < 300)):
            problems.append((name, round(seconds, 1), str(out.get("error"))[:200]))
    assert problems == []


def test_hostile_files_cover_every_demo_and_every_kind_of_mutation(hostile):
    records, files = hostile
    names = [name for name, _, _ in files]
    assert {name.split(":")[0] for name in names} == set(records) and len(records) == 10
    kinds = {name.split(": ")[1].split(" ")[0] for name in names}
    assert kinds == {"drop", "rename", "retype", "nest", "huge", "truncate", "invalid"}


@pytest.mark.parametrize("mutation, message", [
    (lambda r: r["inputs"].update(goal="x" * 300_000),
     "field inputs.goal is 300,000 characters long; a run allows at most 2,000"),
    (lambda r: r["inputs"].update(goal=["What is 17 * 23?"] * 1000),
     "field inputs.goal must be non-empty text, got ['What is 17 * 23?', 'What is 17 * 23?', 'What is 17 * 23?', ...] (1,000 long)"),
    (lambda r: r.update(branches=[1]), None),
])
def test_what_the_fuzz_found_gets_one_short_sentence(tmp_path, mutation, message):
    record = seed_records()["react-rule"]
    mutation(record)
    (tmp_path / "run.json").write_text(json.dumps(record))
    status, _, err, _ = replay(tmp_path / "run.json")
    if message is None:                                   # a version 1 file whose branches are not branches
        assert (status, err) == (1, f"lllm replay: branch 1 differs from what {tmp_path / 'run.json'} recorded\n")
    else:
        assert (status, err) == (2, f"lllm replay: error: {tmp_path / 'run.json'}: {message}\n")


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    (tmp_path / "big.json").write_bytes(b" " * (8 * 2 ** 20 + 1))
    status, _, err, _ = replay(tmp_path / "big.json")
    assert (status, err) == (2, f"lllm replay: error: {tmp_path / 'big.json'} is 8,388,609 bytes; a run file is at most 8,388,608\n")


def test_a_deeply_nested_file_is_one_sentence(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    status, _, err, _ = replay(tmp_path / "deep.json")
    assert (status, err) == (2, f"lllm replay: error: {tmp_path / 'deep.json'} nests too deeply to be a run file\n")
