"""Benchmark · run_python in the page: the opaque-origin frame's interpreter against the in-process one.

In one Chromium tab on the built site (Python already started), for each interpreter: the first
run_python call (for the frame: starting a second Pyodide from the page's bytes) and the median
of later calls, one with a CALL_API and one without. Prints the frame's figures as ratios of the
in-process interpreter's, measured in the same run.

    .venv/bin/python bench/page_sandbox_bench.py [--calls 20]
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

PAGE = "/native/proxies/"
MEASURE = """async (calls) => {
  const run = async (code, ns) => { const t = performance.now(); await lllm.run(code, {namespace: ns}); return performance.now() - t; };
  const kinds = {inproc: '"in-process"', frame: "None"}, out = {};
  for (const [ns, kind] of Object.entries(kinds)) {
    await lllm.run(`from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
m = ProxyManager([WeatherProxy], sandbox=${kind})`, {namespace: ns});
    out[ns] = {first: await run('m.run_python("x = 1")', ns), plain: [], api: []};
  }
  for (let i = 0; i < calls; i++) {      // interleaved: both see the same machine load
    for (const ns of Object.keys(kinds)) {
      out[ns].plain.push(await run('m.run_python("x += 1")', ns));
      out[ns].api.push(await run('m.run_python("print(CALL_API(\\'weather/current\\', {\\'city\\': \\'Oslo\\'})[\\'temp\\'])")', ns));
    }
  }
  return out;
}"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help="timed calls of each kind after the first")
    args = parser.parse_args(argv)
    port = free_port()
    out = build_site(Path(tempfile.mkdtemp(prefix="lllm-bench-")) / "public", port)
    server = serve(out, port)
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page()
        page.set_default_timeout(600_000)
        page.goto(f"http://127.0.0.1:{port}{PAGE}")
        page.evaluate("lllm.ready()")
        measured = page.evaluate(MEASURE, args.calls)
        inproc, frame = measured["inproc"], measured["frame"]
        browser.close()
    server.shutdown()
    median = statistics.median
    print(f"first call, in-process           {inproc['first']:8.1f} ms")
    print(f"first call, frame (starts it)    {frame['first']:8.1f} ms   ratio {frame['first'] / inproc['first']:.0f}x")
    for name in ("plain", "api"):
        a, b = median(inproc[name]), median(frame[name])
        label = "a call" if name == "plain" else "a call with CALL_API"
        print(f"{label + ', in-process':33s}{a:8.1f} ms")
        print(f"{label + ', frame':33s}{b:8.1f} ms   ratio {b / a:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
