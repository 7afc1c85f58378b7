"""A model trained in the tab is a brain of the ReAct demo and of time travel, after a reload too (Chromium).

The page /tinyllm/train/ trains a small model (50 steps, 16 hidden units) and keeps it in this browser;
the ReAct page, reloaded, offers it in both brain lists; a run on it in each widget is what CPython
computes on the same ONNX file and card the train page made (`react --predictor tinyllm:FILE`, and
`travel` with that file as the brain "tinyllm-yours"), so the runs used that model, and the same seed
gives the same text. In a fresh profile, which holds no such model, the option is disabled and says why,
and the run's link is one sentence; `python -m lllm replay` on the page's export says where the model
lives. The training scenario is tests/support/train_scenario.js."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.timetravel.react import trace_text, travel
from support.runtime import run_demo

pytestmark = pytest.mark.browser
TRAIN = ROOT / "tests" / "support" / "train_scenario.js"
LINK = ROOT / "tests" / "support" / "timetravel_link.js"
SMALL = {"steps": 50, "hidden": 16, "seed": 0, "prompt": "Once", "genSeed": 0, "length": 20}
GOAL, SEED = "Who is Pip?", 2
TT = ".lllm-timetravel"
NOT_HERE = ("Your model trained in the tab could not be loaded in this page: No model has been trained in this "
            "browser yet: train one on the page Train it yourself")


def lllm(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lllm", *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)


def offered(page, root: str) -> dict:
    """The tab model's option in `root`'s brain list, once the widget has asked this browser for it."""
    select = f"{root} select[name=brain]"
    page.wait_for_function("s => document.querySelector(s)?.dataset.tabModel", arg=select, timeout=120_000)
    return page.evaluate("""s => { const o = document.querySelector(s).querySelector("option[value='tinyllm-yours']");
      return {disabled: o.disabled, label: o.textContent}; }""", select)


def test_a_model_trained_in_the_tab_is_a_brain_of_the_react_demo_and_time_travel(browser, site_server, tmp_path):
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(site_server.url + "tinyllm/train/")
        trained = page.evaluate(TRAIN.read_text(encoding="utf-8"), SMALL)
        assert "fatal" not in trained, trained.get("fatal")
        model = tmp_path / "tinyllm-yours.onnx"                     # the two files the train page offers
        model.write_bytes(base64.b64decode(trained["onnx"]))
        (tmp_path / "tinyllm-yours.json").write_text(json.dumps(trained["card"]), encoding="utf-8")

        page.goto(site_server.url + "agents/react/")
        page.reload()                                              # the model comes back from this browser's storage
        demo = page.locator(".lllm-demo").first
        assert offered(page, ".lllm-demo") == {"disabled": False, "label": "your model trained in this tab"}
        run = run_demo(demo, goal=GOAL, brain="tinyllm-yours", temperature=0.8, seed=SEED, max_steps=2)
        assert run["state"] == "done" and run["params"]["brain"] == "tinyllm-yours", run
        assert "learned only the story" in demo.locator(".lllm-tab-model").text_content()
        expected = lllm("react", GOAL, "--predictor", f"tinyllm:{model}", "--temperature", "0.8", "--seed", str(SEED),
                        "--max-steps", "2", "--json")
        assert expected.returncode in (0, 1), expected.stderr
        assert run["result"]["trajectory"] == json.loads(expected.stdout)    # the page's run is the file's, in CPython
        assert "--predictor tinyllm:tinyllm-yours.onnx --temperature 0.8 --seed 2" in demo.locator("summary").last.text_content()

        assert offered(page, TT) == {"disabled": False, "label": "your model trained in this tab"}
        page.fill(f"{TT} [name=goal]", GOAL)
        page.select_option(f"{TT} select[name=brain]", "tinyllm-yours")
        page.fill(f"{TT} [name=seed]", str(SEED))
        page.fill(f"{TT} [name=max_steps]", "2")
        page.click(f"{TT} .lllm-tt__run")
        page.wait_for_function("s => document.querySelector(s).dataset.state === 'done'", arg=TT, timeout=600_000)
        record = page.evaluate("s => document.querySelector(s).lllmRecord", TT)
        link, exported, shown = page.evaluate("s => { const r = document.querySelector(s); return [r.lllmLink, r.lllmExportText(), "
                                              "r.querySelector('.lllm-tt__trace').textContent]; }", TT)
        assert record["inputs"]["brain"] == "tinyllm-yours"
        from lllm.model.onnx_backend import from_onnx
        oracle = travel({"inputs": record["inputs"], "edits": []}, models={"tinyllm-yours": lambda **o: from_onnx(model, **o)})
        assert record == json.loads(json.dumps(oracle)) and shown == trace_text(oracle)   # same seed, same text
        watched.assert_clean()
    finally:
        context.close()

    run_file = tmp_path / "lllm-run.json"                          # CPython holds no tab's model: one sentence
    run_file.write_text(exported, encoding="utf-8")
    done = lllm("replay", str(run_file))
    assert done.returncode == 2 and done.stdout == "" and "exists only in that browser" in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr

    fresh = browser.new_context(service_workers="block")          # another profile: no model trained here
    try:
        other = fresh.new_page()
        other.goto(link)
        linked = other.evaluate(LINK.read_text(encoding="utf-8"))
        assert (linked["state"], linked["error"]) == ("error", NOT_HERE), linked
        assert offered(other, TT) == {"disabled": True, "label": "your model trained in this tab (train one first)"}
        assert offered(other, ".lllm-demo")["disabled"] is True
    finally:
        fresh.close()
