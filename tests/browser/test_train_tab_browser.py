"""The /tinyllm/train/ page in Chromium, Firefox and WebKit: a fixed number of training steps brings the
validation loss below a stated threshold, the page saves the trained weights as an ONNX file it writes
itself, and that file, run by `python -m lllm generate --model FILE` in CPython, prints exactly the text
the page wrote for the same seed; every engine here trains on the WebAssembly SIMD kernels. Chromium
also checks Pause / Resume / Stop, the keyboard, 390 px, axe, the playground's "your trained model",
and training and writing offline after a visit.
The page function is tests/support/train_scenario.js; the drivers are tests/support/engines.py."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from support import engines
from support.axe import serious_violations

pytestmark = pytest.mark.browser
PAGE = "tinyllm/train/"
SCRIPT = ROOT / "tests" / "support" / "train_scenario.js"
ARG = {"steps": 100, "hidden": 64, "seed": 0, "prompt": "Once", "genSeed": 3, "length": 80}
THRESHOLD = 2.4   # validation loss after 100 steps (measured about 2.2; a model that learned nothing: 4.6)


def terminal(report: dict, folder, seed: int, length: int, prompt: str = "Once") -> str:
    """What `python -m lllm generate` prints for the page's exported model (files as downloaded)."""
    (folder / "tinyllm-yours.onnx").write_bytes(base64.b64decode(report["onnx"]))
    (folder / "tinyllm-yours.json").write_text(json.dumps(report["card"]), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lllm", "generate", "--model", str(folder / "tinyllm-yours.onnx"),
                           "--prompt", prompt, "--max-new-tokens", str(length), "--temperature", "0.8",
                           "--seed", str(seed)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def check(report: dict, folder) -> None:
    assert "fatal" not in report, report.get("fatal")
    assert report["state"] == "done" and report["written"] == "yes", report
    points = report["points"]
    assert [p["step"] for p in points] == [0, 50, 100]
    assert points[-1]["validation"] < THRESHOLD < points[0]["validation"], points
    assert report["samples"] == 2 and report["tableRows"] == 3            # a sample per checkpoint; the table
    assert sorted(report["stageLinks"]) == [["backward", True], ["forward", True], ["loss", True], ["update", True]]
    assert report["card"]["metrics"]["steps"] == 100
    assert report["kernels"] in ("wasm", "wasm-relaxed"), report["kernels"]   # every engine here has WebAssembly SIMD
    assert report["text"] + "\n" == terminal(report, folder, ARG["genSeed"], ARG["length"])


def test_chromium_trains_pauses_stops_and_the_terminal_agrees(browser, site_server, tmp_path):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(site_server.url + PAGE)
        report = page.evaluate(SCRIPT.read_text(encoding="utf-8"), ARG)
        check(report, tmp_path)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        # the keyboard: Train, Pause, Resume and Stop are buttons reached and pressed with keys
        root = ".lllm-train"
        step = f"() => document.querySelector('{root}').lllmTrain.step"
        state = f"() => document.querySelector('{root}').dataset.state"
        page.fill(f"{root} input[name=steps]", "100000")
        page.focus(f"{root} input[name=seed]")
        page.keyboard.press("Tab")                                         # -> Train
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => ({step})() >= 3", timeout=300_000)
        page.keyboard.press("Tab")                                         # -> Pause
        page.keyboard.press("Space")
        page.wait_for_function(f"() => ({state})() === 'paused'", timeout=60_000)
        paused_at = page.evaluate(step)
        page.wait_for_timeout(1500)
        assert page.evaluate(step) == paused_at and "Paused" in page.inner_text(f"{root} .lllm-train__stage")
        page.keyboard.press("Space")                                       # Resume
        page.wait_for_function(f"at => ({step})() > at", arg=paused_at, timeout=60_000)
        page.keyboard.press("Tab")                                         # -> Stop
        page.keyboard.press("Enter")
        assert page.evaluate(state) == "stopped"
        stopped_at = page.evaluate(step)
        page.wait_for_timeout(1000)                                        # a terminated worker says nothing more
        assert page.evaluate(step) == stopped_at
        page.evaluate("() => document.querySelectorAll('.lllm-train details').forEach(d => d.open = true)")
        serious = serious_violations(page)
        assert serious == [], serious
        # the playground offers the saved model, and writes with it what the terminal writes
        page.goto(site_server.url + "playground/")
        model = page.locator(".lllm-playground select[name=model]")
        model.wait_for(state="visible", timeout=60_000)
        model.select_option("tinyllm-yours")
        page.locator(".lllm-playground button", has_text="Generate").click()
        page.wait_for_function("() => document.querySelector('.lllm-playground').dataset.done", timeout=300_000)
        shown = page.inner_text(".lllm-playground .lllm-pg__text")
        assert shown + "\n" == terminal(report, tmp_path, 0, 200)
        watched.assert_clean()
    finally:
        context.close()


def test_chromium_trains_and_writes_offline_after_a_visit(browser, site_server, tmp_path):
    context = browser.new_context(service_workers="allow")
    page = context.new_page()
    small = {**ARG, "steps": 50}
    try:
        page.goto(site_server.url + PAGE)
        page.wait_for_function("() => document.documentElement.dataset.offline === 'pages'", timeout=120_000)
        page.reload()                                                      # now under the service worker
        first = page.evaluate(SCRIPT.read_text(encoding="utf-8"), small)
        assert "fatal" not in first, first["fatal"]
        context.set_offline(True)
        try:
            page.reload()
            again = page.evaluate(SCRIPT.read_text(encoding="utf-8"), small)
        finally:
            context.set_offline(False)
        assert "fatal" not in again, again["fatal"]
        assert again["points"] == first["points"] and again["text"] == first["text"]   # same seed, same run
        assert again["text"] + "\n" == terminal(again, tmp_path, small["genSeed"], small["length"])
    finally:
        context.close()


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_the_page_trains_and_the_terminal_agrees_in(engine, site_server, tmp_path):
    out = getattr(engines, engine)(site_server.url + PAGE, ARG, script=SCRIPT)
    check(out["report"], tmp_path)
    assert out["console"] == []


TRAIN = ".lllm-train"
OVERFIT = {"hidden": 256, "steps": 3000, "patience": 2}   # 256 units: validation turned at step 150 (bench/train_tab_overfit.mjs)
SAVED = """() => { const b = document.querySelector('.lllm-train__saved');
  return {saved: b.dataset.saved, hidden: b.hidden, text: b.innerText, links: b.querySelectorAll('a[download]').length}; }"""


def test_early_stopping_keeps_the_best_weights_and_the_saved_model_survives_a_reload_until_discarded(browser, site_server):
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(site_server.url + PAGE)
        page.wait_for_function(f"() => document.querySelector('{TRAIN} .lllm-train__saved')?.dataset.saved === 'no'", timeout=120_000)
        assert page.evaluate(SAVED)["hidden"]                                       # a fresh browser: nothing saved yet
        page.fill(f"{TRAIN} input[name=patience]", "0")
        page.click(f"{TRAIN} button.md-button--primary")
        assert page.inner_text(f"{TRAIN} .lllm-train__stage") == \
            "The number of checkpoints without improvement must be a whole number, at least 1."
        for name, value in [("hidden", OVERFIT["hidden"]), ("steps", OVERFIT["steps"]), ("patience", OVERFIT["patience"])]:
            page.fill(f"{TRAIN} input[name={name}]", str(value))
        page.select_option(f"{TRAIN} select[name=early]", "stop")
        page.click(f"{TRAIN} button.md-button--primary")
        page.wait_for_function(f"() => document.querySelector('{TRAIN}').dataset.exported === 'yes'", timeout=900_000)
        run = page.evaluate(f"""() => {{ const r = document.querySelector('{TRAIN}'), s = r.lllmTrain;
          return {{stopped: Number(r.dataset.stoppedEarly), state: r.dataset.state, points: s.points, card: s.card,
            stage: r.querySelector('.lllm-train__stage').textContent, note: r.querySelector('.lllm-train__turn-note').textContent,
            marker: r.querySelector('.lllm-train__svg .lllm-train__turn') !== null,
            bold: [...r.querySelectorAll('.lllm-train__best td')].map(td => td.textContent)}}; }}""")
        points = [p for p in run["points"] if p["step"] > 0]
        best = min(points, key=lambda p: p["validation"])
        assert run["state"] == "done" and run["stopped"] < OVERFIT["steps"], run["stage"]
        assert run["stopped"] == best["step"] + 50 * OVERFIT["patience"] == points[-1]["step"]   # two checkpoints no better
        assert run["stage"].startswith(f"Stopped early after step {run['stopped']}") and f"step {best['step']}" in run["stage"]
        assert run["marker"] and run["bold"][0] == str(best["step"]) and run["bold"][2].endswith("(lowest)")
        assert f"lowest at step {best['step']}" in run["note"] and "overfitting" in run["note"]
        metrics = run["card"]["metrics"]                                             # the best checkpoint's weights were saved
        assert (metrics["steps"], metrics["validation_loss"], metrics["trained_steps"]) == (best["step"], best["validation"], run["stopped"])
        assert metrics["early_stopping"] == "stop"

        page.wait_for_load_state("networkidle")
        page.reload()                                                                # the saved model is shown again
        page.wait_for_function(f"() => document.querySelector('{TRAIN} .lllm-train__saved')?.dataset.saved === 'yes'", timeout=120_000)
        saved = page.evaluate(SAVED)
        assert not saved["hidden"] and saved["links"] == 2, saved
        assert f"{OVERFIT['hidden']} hidden units, learning rate 0.01, seed 0, {run['stopped']} steps, saved from step {best['step']}" in saved["text"]
        assert f"validation loss {best['validation']:.3f}" in saved["text"] and "Trained " in saved["text"]
        page.fill(f"{TRAIN} input[name=length]", "20")
        page.click(f"{TRAIN} .lllm-train__export button >> text=Write with your model")
        page.wait_for_function(f"() => document.querySelector('{TRAIN}').dataset.written", timeout=300_000)
        assert page.evaluate(f"() => document.querySelector('{TRAIN}').dataset.written") == "yes"
        page.click(f"{TRAIN} .lllm-train__saved button >> text=Discard your saved model")
        page.wait_for_function(f"() => document.querySelector('{TRAIN} .lllm-train__saved').dataset.saved === 'discarded'", timeout=60_000)
        assert "Discarded" in page.evaluate(SAVED)["text"]
        assert page.evaluate("() => caches.has('tinyllm-yours')") is False
        page.reload()
        page.wait_for_function(f"() => document.querySelector('{TRAIN} .lllm-train__saved')?.dataset.saved === 'no'", timeout=120_000)
        assert page.evaluate(SAVED)["hidden"]
        assert page.is_disabled(f"{TRAIN} .lllm-train__export button >> text=Write with your model")
        watched.assert_clean()
    finally:
        context.close()
