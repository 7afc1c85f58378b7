"""Benchmark: recurrence and attention, measured in the page. TinyLLM against TinyGPT, per engine.

Not a test: it prints what it measured, with the date, the machine and each engine's version, as
Markdown table rows that site/tinyllm/versus.md quotes (bench/tinygpt_bench.py measures the same in
CPython). Both models are timed in the same page, one after the other, so the ratio means more
than the absolute times (the machines here are shared and noisy).

    python bench/tinygpt_page_bench.py [--engines chromium,firefox,webkit] [--chars 300] [--out bench/results/tinygpt-page.md]

What it measures, per engine (driven as tests/support/engines.py drives it): the site built and
served on loopback, /tinyllm/versus/ opened, both models loaded (lllm.modelReady), one warm-up
generation each, then the page's own lllm.generate({prompt: "Once", model, maxNewTokens, temperature
0.8, seed 1}) three times per model, interleaved; the best wall time on the page's clock (the
generation in the model worker plus the messages to it), divided by the characters written.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support import engines  # noqa: E402
from support.runtime import build_site, free_port, launch, serve  # noqa: E402

PAGE = "tinyllm/versus/"
MODELS = ("tinyllm", "tinygpt")
TIMING = """async ({chars, repeats, models}) => {
  await Promise.all(models.map((model) => lllm.modelReady(model)));
  const run = async (model) => {
    const params = {prompt: "Once", model, maxNewTokens: chars, temperature: 0.8, seed: 1};
    const t0 = performance.now();
    const text = await lllm.generate(params);
    return {ms: performance.now() - t0, chars: text.length};
  };
  for (const model of models) await run(model);          // warm-up: JIT, onnxruntime's first runs
  const best = Object.fromEntries(models.map((model) => [model, {ms: Infinity, chars: 0}]));
  for (let i = 0; i < repeats; i++) {                     // interleaved: both see the same load
    for (const model of models) {
      const r = await run(model);
      if (r.ms < best[model].ms) best[model] = r;
    }
  }
  return {best, agent: navigator.userAgent};
}"""


def measure(engine: str, url: str, arg: dict, script: Path, browser) -> dict:
    if engine == "chromium":
        out = engines.chromium(browser, url, arg, script=script)
    else:
        out = getattr(engines, engine)(url, arg, script=script)
    return out["report"]


def version(engine: str, report: dict, browser) -> str:
    """The engine's name and version, as its user agent (or, for WebKitGTK, Debian's package) says."""
    if engine == "chromium":
        return f"Chromium {browser.version}"
    if engine == "firefox":
        found = re.search(r"Firefox/([\d.]+)", report.get("agent", ""))
        return f"Firefox ESR {found.group(1)}" if found else "Firefox ESR"
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libwebkit2gtk-4.1-0"], capture_output=True, text=True)
    return f"WebKitGTK {done.stdout.split('-')[0]}" if done.returncode == 0 else "WebKitGTK"


def row(engine: str, report: dict, name: str) -> str:
    if "fatal" in report:
        return f"| time per character (in the page, {name}) | failed: {report['fatal'].splitlines()[0][:100]} | |"
    per = {m: b["ms"] / b["chars"] for m, b in report["best"].items()}
    return (f"| time per character (in the page, {name}) | {per['tinyllm']:.3f} ms "
            f"| {per['tinygpt']:.3f} ms ({per['tinygpt'] / per['tinyllm']:.1f}x TinyLLM) |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="chromium,firefox,webkit")
    parser.add_argument("--chars", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3, help="timed generations per model (best is reported)")
    parser.add_argument("--out", type=Path, help="also write the rows (Markdown, dated) to this file")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    arg = {"chars": args.chars, "repeats": args.repeats, "models": list(MODELS)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        script = Path(tmp) / "timing.js"
        script.write_text(TIMING, encoding="utf-8")
        port = free_port()
        server = serve(build_site(Path(tmp) / "public", port), port)
        url = f"http://127.0.0.1:{port}/{PAGE}"
        for engine in args.engines.split(","):
            browser = launch(p) if engine == "chromium" else None   # one browser at a time
            try:
                report = measure(engine, url, arg, script, browser)
            except Exception as error:   # one engine failing still leaves the others' rows
                report = {"fatal": f"{type(error).__name__}: {error}"}
            rows.append(row(engine, report, version(engine, report, browser)))
            if browser:
                browser.close()
            print(rows[-1], flush=True)
        server.shutdown()
    stamp = (f"Measured {datetime.date.today().isoformat()} on {os.cpu_count()} cores, {platform.system()} "
             f"{platform.release()}: {args.chars} characters after \"Once\", temperature 0.8, seed 1, "
             f"best of {args.repeats} after a warm-up, by bench/tinygpt_page_bench.py.")
    print(stamp)
    if args.out:
        args.out.write_text("\n".join(["| measured | TinyLLM | TinyGPT |", "|---|---|---|", *rows, "", stamp, ""]), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
