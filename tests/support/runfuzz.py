"""Hostile run files: seeded mutations of real run files, for the replay command and the page's loader.

`seed_records()` makes one real run file per demo (the records `travel_any` computes, as the page
exports them), and `variants(records, count, seed)` yields `(name, bytes)` pairs: each a seed file
with one mutation — a field dropped, renamed, given another type, nested deeply, made huge, the file
truncated, or bytes that are not UTF-8 put in. The same seed gives the same variants.
"""

from __future__ import annotations

import copy
import json
import random

from lllm.timetravel.demos import travel_any

SEEDS = {
    "react-rule": {"version": 1, "inputs": {"goal": "What is 17 * 23?", "brain": "rule"},
                   "edits": [{"parent": 1, "step": 1, "observation": "400"}]},
    "react-agent": {"version": 2, "demo": "react", "inputs": {"goal": "What is 48 plus 17?", "brain": "tinyllm-agent"},
                    "edits": [{"parent": 1, "step": 1, "thought": "I add."}]},
    "react-story": {"version": 2, "demo": "react", "inputs": {"goal": "Who is Pip?", "brain": "tinyllm", "seed": 3,
                                                              "max_steps": 2}},
    "react-scripted": {"version": 2, "demo": "react",
                       "inputs": {"goal": "What is 2 + 2?", "brain": "scripted",
                                  "script": "Thought: add\nAction: calc[2 + 2]\n---\nFinal Answer: 4"},
                       "edits": [{"parent": 1, "step": 1, "action": "calc[3 + 3]"}]},
    "memory": {"version": 2, "demo": "memory", "inputs": {"goals": ["What is 2 + 2?", "What is 3 + 3?"]},
               "edits": [{"parent": 1, "step": 1, "observation": "5"}]},
    "workflow": {"version": 2, "demo": "workflow", "inputs": {"goal": "What is 17 * 23?"},
                 "edits": [{"parent": 1, "step": 4, "text": "400"}]},
    "oversight": {"version": 2, "demo": "oversight", "inputs": {"goal": "What is 17 * 23?"},
                  "edits": [{"parent": 1, "step": 2, "decision": "inject 400"}]},
    "debate": {"version": 2, "demo": "debate", "inputs": {"question": "What is 48 plus 17?"},
               "edits": [{"parent": 1, "step": 6, "answer": "70"}]},
    "native-agent": {"version": 2, "demo": "native-agent", "inputs": {"goal": "What is 17 * 23?"}},
    "native-tactic": {"version": 2, "demo": "native-tactic", "inputs": {"task": "Hi"}},
}
VALUES = [None, True, 0, -1, 2 ** 63, 1.5, float("1e308"), "", "x", "\n", [], {}, [1, 2], {"k": "v"}]
HUGE = 10 * 1024 * 1024          # a 10 MB field
DEEP = 100_000                   # a field nested 100,000 lists deep


def seed_records(models: dict | None = None) -> dict[str, dict]:
    return {name: travel_any({"schema": "lllm-run", **spec}, models) for name, spec in SEEDS.items()}


def paths(node, prefix=()):
    """Every place in a JSON document: a tuple of keys and indexes from the root."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from paths(value, prefix + (index,))


def at(document, path):
    for key in path:
        document = document[key]
    return document


def mutate(record: dict, rng: random.Random) -> tuple[str, bytes]:
    """One mutation of `record`: its name and the file's bytes."""
    kind = rng.choice(["drop", "rename", "retype", "retype", "retype", "nest", "huge", "truncate", "utf8"])
    text = json.dumps(record)
    if kind == "truncate":
        cut = rng.randrange(len(text))
        return f"truncate at {cut}", text[:cut].encode()
    if kind == "utf8":
        cut = rng.randrange(len(text))
        return f"invalid UTF-8 at {cut}", text[:cut].encode() + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80"]) + text[cut:].encode()
    document = copy.deepcopy(record)
    where = rng.choice([p for p in paths(document) if p])
    parent, key = at(document, where[:-1]), where[-1]
    if kind == "drop":
        del parent[key]
    elif kind == "rename" and isinstance(parent, dict):
        parent[key + "_"] = parent.pop(key)
    elif kind in ("retype", "rename"):
        parent[key] = copy.deepcopy(rng.choice(VALUES))
    elif kind == "huge":
        parent[key] = rng.choice(["a" * HUGE, "7" * 300_000, list(range(100_000)), "é" * 300_000])
    if kind != "nest":
        return f"{kind} {'.'.join(map(str, where))}", json.dumps(document).encode()
    marker = "__NEST__"
    parent[key] = marker
    return f"nest {'.'.join(map(str, where))}", json.dumps(document).replace(
        json.dumps(marker), "[" * DEEP + "1" + "]" * DEEP).encode()


def variants(records: dict[str, dict], count: int, seed: int = 0):
    """`count` hostile files, round-robin over the demos: (name, bytes)."""
    rng = random.Random(seed)
    names = sorted(records)
    for i in range(count):
        demo = names[i % len(names)]
        mutation, data = mutate(records[demo], rng)
        yield f"{demo}: {mutation}", data
