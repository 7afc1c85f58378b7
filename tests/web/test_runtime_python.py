"""The in-page runtime's parts that need no browser: the JavaScript sampler against the Python one
(run in Node), the lllm wheel the site ships, and the code-cell runner of lllm/web/browser.py (pure
Python, so CPython can check it too)."""

from __future__ import annotations

import json
import random
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lllm.web.browser import run_cell
from lllm.model.sampling import Mulberry32, sample, top_predictions

ROOT = Path(__file__).resolve().parents[2]
SAMPLER = ROOT / "site" / "assets" / "runtime" / "sampler.mjs"


def f32(x: float) -> float:
    """Round to float32, as the model's logits are."""
    return struct.unpack("f", struct.pack("f", x))[0]


# ---- the JavaScript sampler is the Python sampler --------------------------------------------------

def random_cases(n: int) -> list[dict]:
    rng = random.Random(4)
    cases = []
    for i in range(n):
        size = rng.choice([1, 2, 5, 40, 96])
        logits = [f32(rng.gauss(0, rng.choice([0.5, 3.0, 20.0]))) for _ in range(size)]
        if i % 7 == 0 and size > 3:                      # ties must break by id in both languages
            logits[1] = logits[3] = max(logits)
        cases.append({"logits": logits, "temperature": rng.choice([0.0, 0.3, 0.8, 1.0, 2.5]),
                      "topK": rng.choice([0, 1, 3, 10]), "topP": rng.choice([1.0, 0.9, 0.5, 0.05]),
                      "seed": rng.randrange(2**32), "draws": 5})
    return cases


def python_draws(case: dict) -> list[int]:
    rng = Mulberry32(case["seed"])
    return [sample(case["logits"], case["temperature"], case["topK"], case["topP"], rng) for _ in range(case["draws"])]


def run_node(script: str, payload) -> object:
    node = shutil.which("node")
    assert node, "node is needed (it comes with `make node`)"
    done = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(payload),
                          capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(done.stdout)


JS_DRAWS = f"""
import {{ Mulberry32, sample, topPredictions }} from {json.dumps(SAMPLER.as_uri())};
let input = ""; for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map((c) => {{
  const rng = new Mulberry32(c.seed);
  const draws = Array.from({{ length: c.draws }}, () =>
    sample(c.logits, {{ temperature: c.temperature, topK: c.topK, topP: c.topP, rng }}));
  return {{ draws, top: topPredictions(c.logits, 3) }};
}});
process.stdout.write(JSON.stringify(out));
"""


def test_js_sampler_draws_what_the_python_sampler_draws():
    cases = random_cases(300)
    js = run_node(JS_DRAWS, cases)
    for case, got in zip(cases, js):
        assert got["draws"] == python_draws(case), case
        assert [i for i, _ in got["top"]] == [i for i, _ in top_predictions(case["logits"], 3)]
        for (_, p_js), (_, p_py) in zip(got["top"], top_predictions(case["logits"], 3)):
            assert p_js == pytest.approx(p_py, rel=1e-12)


def test_js_prng_matches_the_documented_vectors():
    script = f"""
import {{ Mulberry32 }} from {json.dumps(SAMPLER.as_uri())};
const r = new Mulberry32(1), n = new Mulberry32(-1);
process.stdout.write(JSON.stringify([[r.nextU32(), r.nextU32(), r.nextU32()], n.nextU32()]));
"""
    assert run_node(script, None) == [[2693262067, 11749833, 2265367787], Mulberry32(-1).next_u32()]


# ---- the wheel the page unpacks ---------------------------------------------------------------------

def test_the_site_wheel_holds_every_lllm_module(tmp_path):
    sys.path.insert(0, str(ROOT))
    from hooks.runtime import build_wheel
    wheel = build_wheel(tmp_path)
    assert wheel.name == "lllm_learn-0.1.0-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "lllm").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}   # modules and package data
    assert sources <= set(names)
    assert "lllm_learn-0.1.0.dist-info/RECORD" in names and "lllm_learn-0.1.0.dist-info/WHEEL" in names
    (tmp_path / "again").mkdir()
    assert build_wheel(tmp_path / "again").read_bytes() == wheel.read_bytes(), "the wheel is not reproducible"
    zipfile.ZipFile(wheel).extractall(tmp_path / "site-packages")
    done = subprocess.run([sys.executable, "-c", "import lllm, lllm.web.browser; print(lllm.__version__)"],
                          cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "site-packages")},
                          capture_output=True, text=True)
    assert done.stdout == "0.1.0\n", done.stderr


def test_the_core_does_not_import_the_browser_adapter():
    done = subprocess.run([sys.executable, "-c", "import sys, lllm; print('lllm.web.browser' in sys.modules)"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


# ---- the cell runner ----------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def page_models_stay_in_this_test(monkeypatch):
    """run_cell registers the page's models, as the page must; in CPython that registration would
    outlive the test and make every later make_predictor("tinyllm") ask for a page that is not there."""
    from lllm.predictors import specs
    monkeypatch.setattr(specs, "_PLATFORM_MODELS", {})


def run(code: str, namespace: dict | None = None) -> tuple[dict, list[str]]:
    streamed: list[str] = []
    result = run_cell(code, {} if namespace is None else namespace, streamed.append, streamed.append)
    return result, streamed


def test_run_cell_captures_output_and_the_last_expression():
    result, streamed = run("print('hello')\nx = 6\nx * 7")
    assert result == {"stdout": "hello\n", "stderr": "", "value": "42", "error": None, "traceback": None}
    assert "".join(streamed) == "hello\n"


def test_cells_share_a_namespace():
    namespace: dict = {}
    run("greeting = 'hi'", namespace)
    assert run("greeting.upper()", namespace)[0]["value"] == "'HI'"
    assert run("None", namespace)[0]["value"] is None


def test_run_cell_puts_the_error_and_the_cells_lines_first_and_keeps_the_full_traceback():
    result, _ = run("print('before')\ndef f():\n    return 1 / 0\nf()")
    assert result["stdout"] == "before\n"
    assert result["error"] == ("ZeroDivisionError: division by zero\n"
                               "  line 3 of the cell: return 1 / 0\n"
                               "  line 4 of the cell: f()\n")
    full = result["traceback"]
    assert full.startswith("Traceback (most recent call last):\n")
    assert 'File "<cell>", line 3, in f' in full and "return 1 / 0" in full
    assert full.endswith("ZeroDivisionError: division by zero\n")
    assert "run_cell" not in full and "browser.py" not in full


def test_run_cell_reports_syntax_errors_with_the_line():
    result, _ = run("x = 1\nprint(x +)")
    assert result["error"] == "SyntaxError: invalid syntax\n  line 2 of the cell: print(x +)\n"
    assert "Traceback" not in result["traceback"] and 'File "<cell>", line 2' in result["traceback"]
