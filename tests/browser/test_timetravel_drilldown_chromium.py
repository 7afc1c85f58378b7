"""The drilldown in Chromium (the agent-tuned TinyLLM and TinyGPT in three engines:
test_timetravel_drilldown_engines.py): a ReAct run on the story model, a character of step 1 opened in the page
(onnxruntime-web, no Python for the view) equals `python -m lllm replay --inside --json` to 1e-4;
"write another character here" makes a branch whose text parts at that character, the same record as
CPython's `travel`, and the link carries the prefix edit."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from conftest import ROOT
from lllm.timetravel.react import travel
from lllm.timetravel.drilldown import character

pytestmark = pytest.mark.browser
PAGE = "agents/react/"
TIMEOUT = 600_000          # ms: Python boots in the page before the run (the runtime's own patience)
INPUTS = {"goal": "What is 17 * 23?", "brain": "tinyllm", "seed": 2, "temperature": 0.8, "max_steps": 2, "script": ""}


def test_a_character_opens_its_forward_pass_and_another_character_makes_a_branch(page, site_server, tmp_path):
    pg = page.page
    pg.goto(site_server.url + PAGE)
    root = pg.locator(".lllm-timetravel")
    expect(root.locator("[name=goal]")).to_be_attached(timeout=TIMEOUT)      # the widget is drawn
    pg.evaluate("""(i) => { const r = document.querySelector('.lllm-timetravel');
        r.querySelector('[name=goal]').value = i.goal;
        const b = r.querySelector('[name=brain]'); b.value = i.brain; b.dispatchEvent(new Event('change'));
        r.querySelector('[name=seed]').value = i.seed; r.querySelector('[name=max_steps]').value = i.max_steps; }""", INPUTS)
    root.locator(".lllm-tt__run").click()
    expect(root).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    record = pg.evaluate("() => document.querySelector('.lllm-timetravel').lllmRecord")
    expected = travel({"inputs": INPUTS, "edits": []})
    assert record == json.loads(json.dumps(expected))
    raw = record["branches"][0]["steps"][0]["raw"]
    # character 5 of step 1, opened in the page
    drill = root.locator(".lllm-tt__drill")
    drill.locator('.lllm-tt__char[data-char="5"]').click()
    expect(drill).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    view = pg.evaluate("() => document.querySelector('.lllm-tt__drill').lllmView")
    run_file = tmp_path / "run.json"
    run_file.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(run_file), "--inside", "1:1:5", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    terminal = json.loads(done.stdout)
    assert view["draw"]["char"] == terminal["draw"]["char"] == raw[4]
    assert view["draw"]["uniform"] == terminal["draw"]["uniform"] and view["position"] == terminal["position"]
    for key in ("logits", "probs", "embedding"):
        assert view[key] == pytest.approx(terminal[key], abs=1e-4), key
    for stage in ("input_gate", "forget_gate", "output_gate", "hn"):
        assert view["layers"][0][stage] == pytest.approx(terminal["layers"][0][stage], abs=1e-4), stage
    # the cell state runs to a few hundred over a 500-character prompt: float32 sums agree to 1e-4 of its size
    scale = max(1.0, max(abs(x) for x in terminal["layers"][0]["cn"]))
    assert view["layers"][0]["cn"] == pytest.approx(terminal["layers"][0]["cn"], abs=1e-4 * scale)
    assert drill.locator(".lllm-inside__draw").get_attribute("data-char") == raw[4]
    # write another character here: a new branch from that character on
    other = drill.locator(".lllm-tt__write").first
    chosen = other.get_attribute("data-write")
    other.click()
    expect(root.locator(".lllm-tt__tree [role=treeitem]")).to_have_count(2, timeout=TIMEOUT)
    expect(root).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    record = pg.evaluate("() => document.querySelector('.lllm-timetravel').lllmRecord")
    edit = {"parent": 1, "step": 1, "prefix": raw[:4] + chosen}
    assert record["edits"] == [edit]
    assert record == json.loads(json.dumps(travel({"inputs": INPUTS, "edits": [edit]})))
    new = record["branches"][1]["steps"][0]["raw"]
    assert new.startswith(raw[:4] + chosen) and new[:5] != raw[:5]
    link = pg.evaluate("() => document.querySelector('.lllm-timetravel').lllmLink")
    fragment = link.split("#run=", 1)[1]
    assert json.loads(base64.urlsafe_b64decode(fragment + "=" * (-len(fragment) % 4)))["edits"] == [edit]
    # in the new branch, the prefix is the reader's: its characters are not buttons, the drawn ones count from 1
    assert drill.count() == 1 and drill.locator(".lllm-tt__char:disabled").count() == 5
    drill.locator('.lllm-tt__char[data-char="1"]').click()
    expect(drill).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    assert pg.evaluate("() => document.querySelector('.lllm-tt__drill').lllmView.draw.char") == new[5]
    assert character(record, "2:1:1")["draw"]["char"] == new[5]
    page.assert_clean()


def test_tinygpt_is_a_brain_of_the_page_that_replays_exactly(page, site_server):
    """TinyGPT writes a ReAct run in the page (its key/value cache in onnxruntime-web) as CPython does;
    each character it drew is a button that opens its forward pass (test_timetravel_drilldown_engines.py
    compares the numbers)."""
    pg = page.page
    pg.goto(site_server.url + PAGE)
    root = pg.locator(".lllm-timetravel")
    expect(root.locator("[name=goal]")).to_be_attached(timeout=TIMEOUT)
    inputs = INPUTS | {"brain": "tinygpt", "max_steps": 1}
    pg.evaluate("""(i) => { const r = document.querySelector('.lllm-timetravel');
        const b = r.querySelector('[name=brain]'); b.value = i.brain; b.dispatchEvent(new Event('change'));
        r.querySelector('[name=seed]').value = i.seed; r.querySelector('[name=max_steps]').value = i.max_steps; }""", inputs)
    assert root.locator("[name=temperature]").is_visible()          # a sampling brain: its knobs are shown
    root.locator(".lllm-tt__run").click()
    expect(root).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    record = pg.evaluate("() => document.querySelector('.lllm-timetravel').lllmRecord")
    assert record == json.loads(json.dumps(travel({"inputs": inputs, "edits": []})))
    raw = record["branches"][0]["steps"][0]["raw"]
    expect(root.locator(".lllm-tt__drill .lllm-tt__char[data-char]")).to_have_count(len(raw), timeout=TIMEOUT)
    assert root.locator(".lllm-tt__inside-note").count() == 0
    page.assert_clean()


def test_another_brain_from_step_2_and_the_timeline(page, site_server):
    """The step's form swaps the brain: the story model starts, the agent-tuned model writes from step 2
    on; the timeline table says who wrote each step and how long each call took in the page."""
    pg = page.page
    pg.goto(site_server.url + PAGE)
    root = pg.locator(".lllm-timetravel")
    expect(root.locator("[name=goal]")).to_be_attached(timeout=TIMEOUT)
    pg.evaluate("""(i) => { const r = document.querySelector('.lllm-timetravel');
        const b = r.querySelector('[name=brain]'); b.value = i.brain; b.dispatchEvent(new Event('change'));
        r.querySelector('[name=seed]').value = i.seed; r.querySelector('[name=max_steps]').value = i.max_steps; }""", INPUTS)
    root.locator(".lllm-tt__run").click()
    expect(root).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    times = root.locator(".lllm-tt__times tbody tr")
    expect(times).to_have_count(2)
    assert times.nth(0).locator("td").nth(0).text_content() == "tinyllm"
    root.locator(".lllm-tt__step").nth(1).click()                      # step 2
    options = root.locator("select[name=swap-brain] option").evaluate_all("os => os.map(o => o.value)")
    assert "" in options and "tinyllm-agent" in options and "tinyllm" not in options   # not the brain it has
    root.locator("select[name=swap-brain]").select_option("tinyllm-agent")
    root.locator(".lllm-tt__rerun").click()
    expect(root.locator(".lllm-tt__tree [role=treeitem]")).to_have_count(2, timeout=TIMEOUT)
    expect(root).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    record = pg.evaluate("() => document.querySelector('.lllm-timetravel').lllmRecord")
    edit = {"parent": 1, "step": 2, "brain": "tinyllm-agent"}
    assert record["edits"] == [edit] and record == json.loads(json.dumps(travel({"inputs": INPUTS, "edits": [edit]})))
    timeline = pg.evaluate("() => document.querySelector('.lllm-timetravel').lllmTimeline")
    assert [r["brain"] for r in timeline[1]] == ["tinyllm", "tinyllm-agent"][:len(timeline[1])]
    assert timeline[1][0]["kept_from"] == 1 and timeline[1][0]["ms"] is None and timeline[1][1]["ms"] >= 0
    assert timeline[0][0]["ms"] > 0                     # branch 1's times kept from when it was computed
    expect(root.locator(".lllm-tt__times tbody tr").nth(0)).to_contain_text("branch 1's step")
    page.assert_clean()
