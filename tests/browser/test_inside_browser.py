"""The /tinyllm/inside/ page in Chromium, Firefox and WebKit: its numbers at one position are the terminal's
(`python -m lllm inside --json` on the model the site serves), a knob redraws without running the model,
and no Python is downloaded. Chromium also checks the keyboard, 390 px and axe-core.
The page function is tests/support/inside_scenario.js; the drivers are tests/support/engines.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, origin, watch
from lllm.model.inside import InsideModel, position_view, trace
from support import engines
from support.axe import serious_violations

pytestmark = pytest.mark.browser
PAGE = "tinyllm/inside/"
SCRIPT = ROOT / "tests" / "support" / "inside_scenario.js"
ARG = {"prompt": "Once", "seed": 1, "length": 40, "position": 12, "temperature": 0.8}
TOLERANCE = 1e-4   # onnxruntime-web's wasm and onnxruntime's CPU kernels round float32 differently


def served_model(site_dir) -> str:
    return str(site_dir / "assets" / "runtime" / "model" / "tinyllm-inside.onnx")


def terminal(site_dir) -> dict:
    done = subprocess.run([sys.executable, "-m", "lllm", "inside", "--model", served_model(site_dir), "--prompt", ARG["prompt"],
                           "--seed", str(ARG["seed"]), "--length", str(ARG["length"]), "--position", str(ARG["position"]),
                           "--temperature", str(ARG["temperature"]), "--json"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def close(a, b, what):
    assert len(a) == len(b), what
    worst = max(abs(x - y) for x, y in zip(a, b))
    assert worst < TOLERANCE, f"{what}: page {a[:4]} vs terminal {b[:4]}, max |diff| {worst:.2e}"


def check(report: dict, site_dir) -> None:
    assert "fatal" not in report, report.get("fatal")
    expected = terminal(site_dir)
    at, view = report["at"], report["at"]["view"]
    assert (view["text"], view["position"], view["char"]) == (expected["text"], 12, expected["char"])
    close(view["embedding"], expected["embedding"], "embedding")
    for stage in ("input_gate", "forget_gate", "output_gate", "candidate", "cn", "hn"):
        close(view["layers"][0][stage], expected["layers"][0][stage], stage)
    close(view["logits"], expected["logits"], "logits")
    assert [ch for ch, _ in view["top"]] == [ch for ch, _ in expected["top"]]
    close([p for _, p in view["top"]], [p for _, p in expected["top"]], "top-5 probabilities")
    assert view["draw"]["uniform"] == expected["draw"]["uniform"]          # integer PRNG: exactly equal
    assert view["draw"]["char"] == expected["draw"]["char"] == expected["next"]["char"]
    assert view["draw"]["target"] == pytest.approx(expected["draw"]["target"], abs=TOLERANCE)
    dom = at["dom"]                                                         # and the page shows them
    assert dom["forget0"] == view["layers"][0]["forget_gate"][0] and dom["embedding0"] == view["embedding"][0]
    assert dom["top"] == [list(t) for t in view["top"]] and dom["drawn"] == view["draw"]["char"]
    assert float(dom["uniform"]) == view["draw"]["uniform"]
    assert dom["heatmaps"] == 7 and dom["tables"] == 2                      # embedding + 6 stages; their tables
    # the temperature knob: the same logits redrawn at 1.5, no model run, as CPython redraws them
    hotter = report["hotter"]
    assert hotter["runs"] == at["runs"] and hotter["view"]["logits"] == view["logits"]
    model = InsideModel(served_model(site_dir))
    again = position_view(trace(model, ARG["prompt"], ARG["length"], ARG["seed"], ARG["temperature"]), 12, temperature=1.5)
    close([p for _, p in hotter["view"]["top"]], [p for _, p in again["top"]], "top-5 at temperature 1.5")
    assert hotter["view"]["top"][0][1] < view["top"][0][1]
    assert hotter["view"]["draw"]["char"] == again["draw"]["char"]
    assert [r for r in report["resources"] if ".onnx" in r] == [r for r in report["resources"] if "tinyllm-inside.onnx" in r]
    assert len([r for r in report["resources"] if ".onnx" in r]) == 1
    assert not [r for r in report["resources"] if "pyodide" in r or r.endswith(".whl") or ".whl?" in r]


def test_chromium_numbers_keyboard_small_screen_and_axe(browser, site_server):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    try:
        page.goto(site_server.url + PAGE)
        check(page.evaluate(SCRIPT.read_text(encoding="utf-8"), ARG), site_server.dir)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        slider = page.locator(".lllm-inside input[name=position]")
        slider.focus()
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => document.querySelector('.lllm-inside').lllmView.position") == 13
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        assert page.evaluate("() => document.querySelector('.lllm-inside').lllmView.position") == 11
        assert not [r for r in watched.requests if "pyodide" in r]
        page.evaluate("() => document.querySelectorAll('.lllm-inside details').forEach(d => d.open = true)")
        serious = serious_violations(page)
        assert serious == [], serious
        watched.assert_clean()
    finally:
        context.close()


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_the_page_shows_the_terminals_numbers_in(engine, site_server):
    out = getattr(engines, engine)(site_server.url + PAGE, ARG, script=SCRIPT)
    check(out["report"], site_server.dir)
    assert out["console"] == []


GUIDE = """() => {
  const root = document.querySelector('.lllm-inside'), active = document.activeElement;
  const lit = [...root.querySelectorAll('.lllm-inside__lit')];
  const top = lit.length ? lit[0].getBoundingClientRect().top : null;
  return {step: root.dataset.guide, lit: lit.map(e => e.dataset.part), top, height: innerHeight,
    active: active.tagName + (active.name ? '[name=' + active.name + ']' : '') + ' ' + active.textContent.trim().slice(0, 30),
    trail: [...root.querySelectorAll('.lllm-inside__trail button')].map(b => b.textContent)};
}"""


def test_start_here_leads_through_character_probabilities_draw_and_state_by_keyboard_at_390px(browser, site_server):
    context = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, reduced_motion="reduce")
    watched = watch(context, {origin(site_server.url)})
    page = watched.page
    root = ".lllm-inside"
    try:
        page.goto(site_server.url + PAGE)
        # nothing of the model loads with the page: the widget waits for the reader, and says so
        page.wait_for_function(f"() => document.querySelector('{root}')?.dataset.state === 'idle'", timeout=120_000)
        assert page.inner_text(f"{root} .lllm-inside__status").startswith("Press Generate")
        page.wait_for_timeout(1000)
        assert not [r for r in watched.requests if ".onnx" in r or "/ort/" in r], watched.requests
        page.click(f"{root} .lllm-inside__controls button")
        page.wait_for_function(f"() => document.querySelector('{root}')?.dataset.state === 'ready'", timeout=120_000)
        assert [r for r in watched.requests if "tinyllm-inside.onnx" in r]
        # the position counts from 1, as the character count does: the prompt's last character, "e" of "Once"
        count = page.evaluate(f"() => document.querySelector('{root}').lllmTrace.ids.length")
        assert page.inner_text(f"{root} .lllm-inside__status").startswith(f"{count} characters")
        assert page.inner_text(f"{root} .lllm-inside__pos") == f"character 4 of {count}"
        assert page.get_attribute(f"{root} input[name=position]", "aria-valuetext") == f'character 4 of {count}: "e"'
        # "Start here": the first step is reached by keyboard and puts the focus on the slider
        page.focus(f"{root} .lllm-inside__guide button[data-step=char]")
        page.keyboard.press("Enter")
        shown = page.evaluate(GUIDE)
        assert shown["step"] == "char" and shown["active"].startswith("INPUT[name=position]"), shown
        assert set(shown["lit"]) == {"char"} and len(shown["lit"]) == 4                # the text, the slider, the input character
        page.keyboard.press("ArrowRight")                                              # the outline stays on a redraw
        assert page.inner_text(f"{root} .lllm-inside__pos") == f"character 5 of {count}"
        assert page.evaluate(GUIDE)["lit"] == shown["lit"]
        for step, heading in [("probs", "4 · Logits"), ("draw", "5 · The draw"), ("state", "3 · LSTM layer 0")]:
            page.focus(f"{root} .lllm-inside__trail button >> nth=0")                 # "Next: ..." at the end of the part
            page.keyboard.press("Enter")
            shown = page.evaluate(GUIDE)
            assert shown["step"] == step and shown["active"].startswith("H2 " + heading), shown   # h2: under the title
            assert set(shown["lit"]) == {step} and 0 <= shown["top"] < shown["height"], shown   # scrolled to, in view
        assert shown["trail"] == ["Back to the start"]
        page.focus(f"{root} .lllm-inside__trail button")
        page.keyboard.press("Enter")
        shown = page.evaluate(GUIDE)
        assert shown["step"] == "" and shown["lit"] == [] and shown["active"].startswith("BUTTON 1 · The character"), shown
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
        small = page.evaluate("""() => [...document.querySelectorAll('.lllm-inside__guide button, .lllm-inside__trail button')]
          .map(b => b.getBoundingClientRect()).filter(r => r.width < 44 || r.height < 44).length""")
        assert small == 0
        watched.assert_clean()
    finally:
        context.close()
