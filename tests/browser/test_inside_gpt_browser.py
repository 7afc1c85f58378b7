"""/tinyllm/inside/ with the model switch on TinyGPT, in Chromium, Firefox and WebKit, one launch each
(tests/support/inside_gpt_scenario.js):
every head's attention at one position is the terminal's (`lllm inside --predictor tinygpt --json` on
the model the site serves), the tables show those numbers, and the cache's saving is counted as in CPython."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from support import engines

pytestmark = pytest.mark.browser
PAGE = "tinyllm/inside/"
SCRIPT = ROOT / "tests" / "support" / "inside_gpt_scenario.js"
POSITION = 70          # past the 64-character context: after a refill
TOLERANCE = 1e-4       # onnxruntime-web's wasm and onnxruntime's CPU kernels round float32 differently


def terminal(site_dir) -> dict:
    model = site_dir / "assets" / "runtime" / "model" / "tinygpt.onnx"
    done = subprocess.run([sys.executable, "-m", "lllm", "inside", "--predictor", "tinygpt", "--model", str(model),
                           "--prompt", "Once", "--seed", "1", "--length", "100", "--position", str(POSITION), "--json"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("engine", ["chromium", "firefox", "webkit"])
def test_tinygpts_attention_in_the_page_is_the_terminals_in(engine, site_server, request):
    url, arg = site_server.url + PAGE, {"position": POSITION}
    if engine == "chromium":
        out = engines.chromium(request.getfixturevalue("browser"), url, arg, script=SCRIPT)
    else:
        out = getattr(engines, engine)(url, arg, script=SCRIPT)
    report = out["report"]
    assert "fatal" not in report, report.get("fatal")
    assert report["state"] == "ready", report["status"]
    assert report["lstmHidden"] is True and report["gptHidden"] is False
    expected = terminal(site_server.dir)
    view = report["view"]
    assert report["text"] == expected["text"]
    assert (view["position"], view["char"], view["firstKey"], view["keys"]) == \
        (POSITION, expected["char"], expected["first_key"], expected["keys"])
    worst = max(abs(a - b) for page_layer, cpy_layer in zip(view["layers"], expected["layers"])
                for page_row, cpy_row in zip(page_layer, cpy_layer) for a, b in zip(page_row, cpy_row))
    assert worst < TOLERANCE, f"attention differs by {worst:.2e}"
    assert report["tables"] == [[row for row in layer] for layer in view["layers"]]    # the tables show them
    assert report["headers"] == [{" ": "·", "\n": "↵"}.get(ch, ch) for ch in view["keys"]]
    saving = report["saving"]
    assert saving["withCache"] == expected["cache"]["with_refills"] == expected["fed"]
    assert saving["withoutCache"] == expected["cache"]["without_cache"]
    assert f"computed {saving['withCache']} positions" in report["savingText"]
    assert out["console"] == []
