"""Benchmark: the in-page runtime in headless Chromium — cold start, generation speed, warm reload.

Not a test: it prints numbers and ratios measured in this one run (the machine is shared and
noisy, so compare numbers measured back to back, not across runs).

    python bench/page_bench.py [--repeats 2] [--chars 2000]

What it measures (times from the page's navigation start, each cold run in a fresh browser
context, so nothing is cached):
  - bare:        a module worker that only imports pyodide.mjs and awaits loadPyodide() — the floor.
  - first text:  /playground/ until TinyLLM's first generated character. Goal: <= 1.3x bare.
  - ready:       until lllm.ready() (Python + lllm + model all loaded), on the playground and on
                 a page with only code cells (/tinyllm/data/). For honesty: the first text comes
                 early because the model loads before Python.
  - speed:       characters/s generating with carried LSTM state (one Promise, loop in JS),
                 against re-running a 64-character window per character. Goal: >= 3,000/s.
  - python:      the same through a Python predictor (from_browser) in a cell: one run_sync per call.
  - warm reload: reload the playground (HTTP and wasm code caches warm) until the first character.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402

from support.runtime import build_site, free_port, launch, serve  # noqa: E402

CELLS_PAGE = "/tinyllm/data/"   # a page with runnable cells and no playground
READY = "async () => { await lllm.ready(); return performance.now(); }"

FIRST_TEXT = """async () => {
  let first = 0;
  await lllm.generate({prompt: 'Once', maxNewTokens: 20, temperature: 0.8, seed: 0},
                      {onStep: () => { first ||= performance.now(); }});
  return first;
}"""

BARE = """async (indexURL) => {
  // In a module worker, as the runtime does it (time measured on the page's clock).
  const source = `import { loadPyodide } from "${indexURL}pyodide.mjs";
                  await loadPyodide({ indexURL: "${indexURL}" }); postMessage("done");`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
  await new Promise((resolve, reject) => { worker.onmessage = resolve; worker.onerror = reject; });
  return performance.now();
}"""

SPEED = """async ([chars, repeats]) => {
  const params = {prompt: 'Once upon a time', maxNewTokens: chars, temperature: 0.8, seed: 1};
  await lllm.generate(params);                                     // warm-up (JIT, ORT first runs)
  let carry = Infinity, window = Infinity;
  for (let i = 0; i < repeats; i++) {
    carry = Math.min(carry, (await lllm.generate(params, {details: true})).ms);
    window = Math.min(window, (await lllm.generateWindow({prompt: params.prompt, maxNewTokens: Math.ceil(chars / 5), window: 64})).ms * 5);
  }
  return {carry: 1000 * chars / carry, window: 1000 * chars / window};
}"""

PYTHON_SPEED = """async (chars) => {
  await lllm.run('from lllm.web.browser import from_browser\\nbrain = from_browser(seed=1)\\nbrain("Once", 50)');
  const t0 = performance.now();
  await lllm.run(`brain("Once upon a time", ${chars})`);
  return 1000 * chars / (performance.now() - t0);
}"""


def cold(browser, url: str, script: str, arg=None) -> float:
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    ms = page.evaluate(script, arg)
    context.close()
    return ms


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="cold runs of each kind (best is reported)")
    parser.add_argument("--chars", type=int, default=2000, help="characters per speed run")
    args = parser.parse_args(argv)

    port = free_port()
    out = build_site(Path(tempfile.mkdtemp(prefix="lllm-bench-")) / "public", port)
    server = serve(out, port)
    base = f"http://127.0.0.1:{port}"
    py_index = base + "/assets/runtime/vendor/pyodide/"
    with sync_playwright() as p:
        browser = launch(p)
        bare, first, ready, cells_ready = [], [], [], []
        for _ in range(args.repeats):          # interleaved, so both see the same machine load
            bare.append(cold(browser, base + "/", BARE, py_index))
            first.append(cold(browser, base + "/playground/", FIRST_TEXT))
            ready.append(cold(browser, base + "/playground/", READY))
            cells_ready.append(cold(browser, base + CELLS_PAGE, READY))

        context = browser.new_context()
        page = context.new_page()
        page.goto(base + "/playground/")
        page.evaluate("lllm.ready()")
        speed = page.evaluate(SPEED, [args.chars, 3])
        python_speed = page.evaluate(PYTHON_SPEED, args.chars)
        warm = []
        for _ in range(args.repeats):
            page.reload()
            warm.append(page.evaluate(FIRST_TEXT))
        warm_ready = (page.reload(), page.evaluate(READY))[1]
        context.close()
        browser.close()
    server.shutdown()

    b, f, r = min(bare), min(first), min(ready)
    print(f"cold bare loadPyodide()           {b:8.0f} ms   (runs: {', '.join(f'{x:.0f}' for x in bare)})")
    print(f"cold first generated text         {f:8.0f} ms   ratio {f / b:.2f}x bare (goal <= 1.3x)")
    print(f"cold lllm.ready(), playground     {r:8.0f} ms   ratio {r / b:.2f}x bare")
    c = min(cells_ready)
    print(f"cold lllm.ready(), cells page     {c:8.0f} ms   ratio {c / b:.2f}x bare")
    print(f"generation, carried state         {speed['carry']:8.0f} chars/s (goal >= 3000)")
    print(f"generation, re-run 64-char window {speed['window']:8.0f} chars/s   carry is {speed['carry'] / speed['window']:.1f}x faster")
    print(f"generation via Python predictor   {python_speed:8.0f} chars/s   (one run_sync per call)")
    print(f"warm reload to first text         {statistics.median(warm):8.0f} ms   (runs: {', '.join(f'{x:.0f}' for x in warm)})")
    print(f"warm reload to lllm.ready()       {warm_ready:8.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
