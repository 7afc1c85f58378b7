"""Benchmark: every engine (Chromium, Firefox, WebKit) on a first visit to a demo page.

Not a test: it prints numbers and ratios measured in this one run (the machine is shared and
noisy: compare numbers measured back to back, not across runs).

    python bench/engine_bench.py [--engines chromium,firefox,webkit]

Per engine, each in a fresh browser profile, driven as tests/engines.py drives it:
  - bytes:        what the server sent for a first visit to /agents/react/ until the agent-tuned
                  TinyLLM's first answer and the runtime saved for offline use (service worker).
  - first answer: ms from navigation start until the ReAct demo's answer (cold: Pyodide, lllm,
                  both models downloaded and started).
  - warm ready:   the same page again in a new document, served by the service worker's cache
                  (the offline path: the server sends ~0 bytes), until lllm.ready().
  - baseline:     a bare loadPyodide() in a module worker, in a fresh profile of the same engine:
                  its ms and bytes; the ratios divide by these.
Chromium also times Python's predictor calls both ways Python can block on the model
(Atomics.wait and JSPI), which is what decides the default (site/assets/runtime/lllm.mjs).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engines  # noqa: E402
from runtime_support import build_site, free_port, launch  # noqa: E402

VISIT = Path(__file__).with_name("engine_visit.js")
GOAL = "What is 48 plus 17?"
PREDICTOR_CALLS = """async () => {
  await lllm.ready();
  const t0 = performance.now();
  await lllm.run('from lllm.web.browser import from_browser\\nb = from_browser(seed=1)\\nfor i in range(40): b("Once", 20)');
  return performance.now() - t0;
}"""


def counting_server(directory: Path, port: int):
    """hooks/serve.py's server, counting the body bytes it sends (`server.sent`, resettable)."""
    import functools
    from hooks.serve import make_server
    server = make_server(directory, port)
    server.sent = 0
    partial = server.RequestHandlerClass          # functools.partial(Handler, directory=...)

    class Counting(partial.func):
        def copyfile(self, source, outputfile):
            data = source.read()
            server.sent += len(data)
            outputfile.write(data)
    server.RequestHandlerClass = functools.partial(Counting, **partial.keywords)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run(engine: str, url: str, arg: dict, browser=None) -> dict:
    if engine == "chromium":
        out = engines.chromium(browser, url, arg, script=VISIT)
    else:
        out = getattr(engines, engine)(url, arg, script=VISIT)
    return out["report"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="chromium,firefox,webkit")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        port = free_port()
        site = build_site(Path(tmp) / "public", port)
        server = counting_server(site, port)
        url = f"http://127.0.0.1:{port}/agents/react/"
        browser = launch(p)
        print(f"{'engine':9} {'sync':8} {'first visit':>12} {'first answer':>13} {'warm ready':>11} "
              f"{'bare Pyodide':>13} {'bytes x':>8} {'answer x':>9} {'warm x':>7}  answer")
        for engine in args.engines.split(","):
            server.sent = 0
            bare = run(engine, url, {"phase": "bare"}, browser)
            bare_bytes = server.sent
            server.sent = 0
            visit = run(engine, url, {"phase": "visit", "goal": GOAL}, browser)
            if "fatal" in visit or "fatal" in bare:
                print(f"{engine:9} failed: {visit.get('fatal') or bare.get('fatal')}")
                continue
            first_bytes, warm = server.sent, visit["warmReadyMs"]     # warm: None where the popup was blocked
            warm_s = f"{warm / 1000:9.1f} s" if warm is not None else f"{'blocked':>11}"
            warm_x = f"{warm / bare['ms']:6.2f}x" if warm is not None else f"{'-':>7}"
            print(f"{engine:9} {visit['sync']:8} {first_bytes / 1e6:9.1f} MB {visit['answerMs'] / 1000:11.1f} s "
                  f"{warm_s} {bare['ms'] / 1000:8.1f} s/{bare_bytes / 1e6:.0f} MB "
                  f"{first_bytes / bare_bytes:7.2f}x {visit['answerMs'] / bare['ms']:8.2f}x "
                  f"{warm_x}  {visit['answer']!r}")
        if "chromium" in args.engines:
            times = {}
            for sync in ("atomics", "jspi"):
                context = browser.new_context(service_workers="block")
                context.add_init_script(f"window.lllmSync = '{sync}'")
                page = context.new_page()
                page.goto(url)
                times[sync] = page.evaluate(PREDICTOR_CALLS)
                context.close()
            print(f"chromium: 40 predictor calls of 20 characters from Python: Atomics.wait {times['atomics']:.0f} ms, "
                  f"JSPI {times['jspi']:.0f} ms (JSPI / Atomics = {times['jspi'] / times['atomics']:.2f}x)")
        browser.close()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
