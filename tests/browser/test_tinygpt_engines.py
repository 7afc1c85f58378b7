"""TinyGPT in the page, in Chromium, Firefox and WebKit (one launch each; tests/support/tinygpt_scenario.js):
the playground's model switch and window.lllm write, for the same seed, exactly the text that
`python -m lllm generate --predictor tinygpt` writes, key/value cache and refills included."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from support import engines
from support.model_files import ROOT, ensure_gpt_model

pytestmark = pytest.mark.browser
PAGE = "playground/"
SCRIPT = engines.ROOT / "tests" / "support" / "tinygpt_scenario.js"
ARG = {"prompt": "Once", "seed": 1, "length": 200,          # 200 characters: past the 64-character context
       "direct": {"prompt": "The dog", "seed": 7, "maxNewTokens": 90, "temperature": 0.5, "topK": 10}}


def cpython(*args: str) -> str:
    ensure_gpt_model()
    done = subprocess.run([sys.executable, "-m", "lllm", "generate", "--predictor", "tinygpt", "--json", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)["completion"]


@pytest.fixture(scope="module")
def expected():
    d = ARG["direct"]
    return {"playground": cpython("--prompt", ARG["prompt"], "--seed", str(ARG["seed"]), "--max-new-tokens", str(ARG["length"])),
            "direct": cpython("--prompt", d["prompt"], "--seed", str(d["seed"]), "--max-new-tokens", str(d["maxNewTokens"]),
                              "--temperature", str(d["temperature"]), "--top-k", str(d["topK"]))}


@pytest.mark.parametrize("engine", ["chromium", "firefox", "webkit"])
def test_tinygpt_writes_cpythons_text_in(engine, expected, site_server, request):
    url = site_server.url + PAGE
    if engine == "chromium":
        out = engines.chromium(request.getfixturevalue("browser"), url, ARG, script=SCRIPT)
    else:
        out = getattr(engines, engine)(url, ARG, script=SCRIPT)
    report = out["report"]
    assert report.get("errors") == [], report
    assert report["models"] == ["tinyllm", "tinygpt"] and report["done"] == "ok", report["status"]
    assert len(expected["playground"]) == ARG["length"]
    assert report["playground"] == expected["playground"]
    assert report["direct"] == expected["direct"]
    assert out["console"] == []
