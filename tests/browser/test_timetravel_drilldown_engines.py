"""Time travel's drilldown in Chromium, Firefox and WebKit (one launch per engine): on the ReAct page a run
on the agent-tuned TinyLLM and one on TinyGPT; a character of each one's step 1 opened in the page
(onnxruntime-web, no Python for the view) equals `python -m lllm replay RUN.json --inside 1:1:C --json`
to 1e-4 (the cell state to 1e-4 of its size): the agent's glass box with its four members' votes and its
characters counted as it drew them (numbers as slots), TinyGPT's every head's attention and the step's
seed's draw. "Write another character here" makes a prefix branch (the agent's in the run's own text, its
numbers put back) that differs from that character on, the same record as CPython's `travel`; then the
agent's branch 1 swaps its brain to TinyGPT at step 2 from the step's form (step 1 kept, and the timeline
says who wrote each step); each link
opened in a fresh profile (Chromium) or a new document (Firefox, WebKit) replays every branch exactly.
The page function is tests/support/drilldown_scenario.js (then timetravel_link.js for each link)."""

from __future__ import annotations

import base64
import functools
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from lllm.timetravel.react import travel
from lllm.model.generate import NumberSlots
from lllm.timetravel.drilldown import character
from support import engines

pytestmark = pytest.mark.browser
PAGE = "agents/react/"
SCRIPT = ROOT / "tests" / "support" / "drilldown_scenario.js"
LINK = ROOT / "tests" / "support" / "timetravel_link.js"
AGENT = {"goal": "What is 17 * 23?", "brain": "tinyllm-agent", "seed": 0, "temperature": 0.8, "max_steps": 2, "script": ""}
GPT = {"goal": "What is 17 * 23?", "brain": "tinygpt", "seed": 2, "temperature": 0.8, "max_steps": 1, "script": ""}
GPT_CHAR = 5
SWAP = {"step": 2, "brain": "tinygpt"}      # the agent's run: TinyGPT writes from step 2 on
STAGES = ("input_gate", "forget_gate", "output_gate", "candidate", "hn")


def glyphs(text: str) -> str:
    return text.replace("\n", "↵").replace(" ", "·")


@functools.lru_cache(maxsize=None)
def plan() -> tuple[dict, int]:
    """(the scenario's argument, the agent's character): the first character after the Thought's first
    slot, so "write another" must put a number back."""
    drawn = character(travel({"inputs": AGENT, "edits": []}), "1:1:1")["drawn"]
    c = drawn.index("#") + 3
    assert "\n" not in drawn[:c] and drawn.startswith("Thought:"), drawn
    return {"runs": [{"inputs": AGENT, "c": c, "swap": SWAP}, {"inputs": GPT, "c": GPT_CHAR}]}, c


@functools.lru_cache(maxsize=None)
def terminal(brain: str, at: str, tmp: str) -> dict:
    """`python -m lllm replay RUN.json --inside AT --json` on CPython's record of the run."""
    inputs = AGENT if brain == "tinyllm-agent" else GPT
    run_file = os.path.join(tmp, f"{brain}.json")
    with open(run_file, "w", encoding="utf-8") as f:
        json.dump(travel({"inputs": inputs, "edits": []}), f)
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", run_file, "--inside", at, "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def close(a, b, tol=1e-4) -> bool:
    return a == pytest.approx(b, abs=tol)


def check_branch(out: dict, inputs: dict, prefix: str) -> None:
    """Write another character here: the prefix edit, CPython's record, a text that parts at that character."""
    edit = {"parent": 1, "step": 1, "prefix": prefix}
    record = out["branched"]
    assert record["edits"] == [edit]
    assert record == json.loads(json.dumps(travel({"inputs": inputs, "edits": [edit]})))
    old, new = record["branches"][0]["steps"][0]["raw"], record["branches"][1]["steps"][0]["raw"]
    assert new.startswith(prefix) and old[:len(prefix)] != prefix and old[:len(prefix) - 1] == prefix[:-1]
    fragment = out["branchLink"].split("#run=", 1)[1]
    assert json.loads(base64.urlsafe_b64decode(fragment + "=" * (-len(fragment) % 4)))["edits"] == [edit]


def check(report: dict, linked: list, tmp: str) -> None:
    assert "fatal" not in report, report.get("fatal")
    args, c = plan()
    agent, gpt = report["runs"]
    # the agent-tuned TinyLLM: its call replayed greedily, the prompt masked, the members' votes
    assert agent["error"] == "" and agent["record"] == json.loads(json.dumps(travel({"inputs": AGENT, "edits": []})))
    assert agent["state"] == "done", agent["panel"]
    want = terminal("tinyllm-agent", f"1:1:{c}", tmp)
    view = agent["view"]
    assert agent["chars"] == glyphs(want["drawn"]) and "#1" in want["drawn"] and agent["pressed"] == str(c)
    assert view["drawn"] == want["drawn"] and view["numbers"] == want["numbers"] == ["17", "23"]
    assert view["position"] == want["position"] and view["draw"]["char"] == want["draw"]["char"] == want["drawn"][c - 1] == agent["drawChar"]
    assert view["text"] == want["text"] and view["prompt_length"] == want["prompt_length"]
    for key in ("logits", "embedding"):
        assert close(view[key], want[key]), key
    assert view["probs"] == want["probs"]                                          # greedy: one-hot
    for stage in STAGES:
        assert close(view["layers"][0][stage], want["layers"][0][stage]), stage
    scale = max(1.0, max(abs(x) for x in want["layers"][0]["cn"]))
    assert close(view["layers"][0]["cn"], want["layers"][0]["cn"], 1e-4 * scale)
    assert len(view["members"]) == len(want["members"]) == 4
    for mine, theirs in zip(view["members"], want["members"]):
        assert close(mine["logits"], theirs["logits"]) and close(mine["probs"], theirs["probs"]) and mine["argmax"] == theirs["argmax"]
        assert [ch for ch, _ in mine["top"]] == [ch for ch, _ in theirs["top"]]
    assert agent["members"] == [m["argmax"] for m in want["members"]]
    slots = NumberSlots()
    check_branch(agent, AGENT, slots.unmask(want["drawn"][:c - 1], want["numbers"]) + agent["chosen"])
    # another brain from step 2 of branch 1: the steps before it kept, TinyGPT's text after
    swap = {"parent": 1, "step": SWAP["step"], "brain": SWAP["brain"]}
    assert SWAP["brain"] in agent["swapOptions"] and AGENT["brain"] not in agent["swapOptions"]
    swapped = agent["swapped"]
    assert swapped["edits"] == agent["branched"]["edits"] + [swap]
    assert swapped == json.loads(json.dumps(travel({"inputs": AGENT, "edits": swapped["edits"]})))
    first, third = swapped["branches"][0]["steps"], swapped["branches"][2]["steps"]
    assert third[0] == first[0] and third[1]["raw"] != first[1]["raw"] and swapped["branches"][2]["brain"] == "tinygpt"
    # the timeline of the swapped branch: step 1 kept from branch 1 (its time not re-measured), step 2 TinyGPT's
    timeline = agent["timeline"][2]
    assert [r["brain"] for r in timeline] == ["tinyllm-agent", "tinygpt"]
    assert timeline[0]["kept_from"] == 1 and timeline[0]["ms"] is None and timeline[1]["ms"] >= 0
    assert agent["timelineRows"] == ["tinyllm-agent", "tinygpt"]
    # TinyGPT: every head's attention over the keys, the logits, the seed's draw
    raw = travel({"inputs": GPT, "edits": []})["branches"][0]["steps"][0]["raw"]
    assert gpt["error"] == "" and gpt["record"] == json.loads(json.dumps(travel({"inputs": GPT, "edits": []})))
    assert gpt["state"] == "done", gpt["panel"]
    want = terminal("tinygpt", f"1:1:{GPT_CHAR}", tmp)
    view = gpt["view"]
    assert gpt["chars"] == glyphs(raw) and view["drawn"] == raw
    assert (view["position"], view["first_key"], view["keys"], view["text"]) == (want["position"], want["first_key"], want["keys"], want["text"])
    assert view["draw"]["char"] == want["draw"]["char"] == raw[GPT_CHAR - 1] == gpt["drawChar"]
    assert view["draw"]["uniform"] == want["draw"]["uniform"] and view["seed"] == want["seed"] == (GPT["seed"] * 1000 + 1) % 2 ** 32
    assert view["temperature"] == want["temperature"] == GPT["temperature"]
    assert close(view["logits"], want["logits"]) and close(view["probs"], want["probs"])
    assert close(view["draw"]["target"], want["draw"]["target"]) and close(view["draw"]["total"], want["draw"]["total"])
    assert len(view["layers"]) == len(want["layers"]) == len(gpt["heads"]) == 4
    for mine, theirs in zip(view["layers"], want["layers"]):
        assert len(mine) == len(theirs) == 4
        for a, b in zip(mine, theirs):
            assert close(a, b)
    assert gpt["heads"] == [4, 4, 4, 4]
    check_branch(gpt, GPT, raw[:GPT_CHAR - 1] + gpt["chosen"])
    # each link, opened anew, replays every branch exactly
    assert report["links"] == [agent["link"], gpt["link"]] and len(linked) == 2
    for out, seen in zip((agent, gpt), linked):
        last = out.get("swapped", out["branched"])
        assert (seen["state"], seen["branches"], seen["error"]) == ("done", len(last["branches"]), ""), seen
        assert seen["record"] == last


def test_chromium_each_link_in_a_fresh_profile(browser, site_server, tmp_path):
    out = engines.chromium(browser, site_server.url + PAGE, plan()[0], SCRIPT, context={"service_workers": "block"})
    report, console = out["report"], out["console"]
    linked = []
    for link in report.get("links", []):
        fresh = browser.new_context(service_workers="block")       # a fresh profile per link
        try:
            other = fresh.new_page()
            other.goto(link)
            linked.append(other.evaluate(LINK.read_text(encoding="utf-8")))
        finally:
            fresh.close()
    check(report, linked, str(tmp_path))
    assert console == []


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_the_drilldown_and_its_links_in(engine, site_server, tmp_path):
    out = getattr(engines, engine)(site_server.url + PAGE, plan()[0], script=SCRIPT, then=(LINK, None))
    check(out["report"], out["linked"], str(tmp_path))
    assert out["console"] == []
