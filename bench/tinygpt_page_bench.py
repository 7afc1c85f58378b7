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

Then where TinyGPT's time goes, in the same page (BREAKDOWN): the site's own onnxruntime-web and
models opened in the page itself (the same settings as the model worker: one thread, plain wasm,
graphOptimizationLevel "all"), and greedy characters read one at a time through the page's own code:
TinyLLM's step as model.mjs runs it, TinyGPT's through gpt.mjs's gptForward with its session.run
timed apart. TinyGPT's time per character splits into session.run on one new character,
session.run on the re-reads of 48 characters when the 64-character context is full (refillRule),
and the JavaScript around session.run; the cache's share is the one-character runs' time minus
that of the same runs with an empty cache (every step at position 0).
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


BREAKDOWN = """async ({chars, repeats}) => {
  const base = new URL("/assets/runtime/", location.href);
  const manifest = await (await fetch(new URL("runtime.json", base))).json();
  const ort = await import(new URL(manifest.ort + "ort.wasm.min.mjs", base).href);
  Object.assign(ort.env.wasm, {numThreads: 1, proxy: false, wasmPaths: new URL(manifest.ort, base).href});
  ort.env.logLevel = "error";
  const {gptForward} = await import(new URL("gpt.mjs", base).href);
  const open = async (name) => {
    const entry = manifest.models[name];
    const bytes = new Uint8Array(await (await fetch(new URL(entry.model, base))).arrayBuffer());
    const card = await (await fetch(new URL(entry.card, base))).json();
    return {card, session: await ort.InferenceSession.create(bytes, {executionProviders: ["wasm"], graphOptimizationLevel: "all"})};
  };
  const [llm, gpt] = [await open("tinyllm"), await open("tinygpt")];
  const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);
  const lstm = async () => {           // model.mjs's forward, one character at a time
    const {layers, hidden} = llm.card.config;
    let h = new Float32Array(layers * hidden), c = h, next = 1;
    const t0 = performance.now();
    for (let n = 0; n < chars; n++) {
      const out = await llm.session.run({input_ids: new ort.Tensor("int64", BigInt64Array.from([next], BigInt), [1, 1]),
        h0: new ort.Tensor("float32", Float32Array.from(h), [layers, 1, hidden]),
        c0: new ort.Tensor("float32", Float32Array.from(c), [layers, 1, hidden])});
      [h, c, next] = [out.hn.data, out.cn.data, argmax(out.logits.data)];
    }
    return {total: (performance.now() - t0) / chars};
  };
  const attention = async (empty) => {  // gpt.mjs's gptForward; empty: every step at position 0
    const t = {step: 0, refill: 0};
    let fed = 1;
    const session = {run: async (feeds, ...rest) => {
      const t0 = performance.now();
      const out = await gpt.session.run(feeds, ...rest);
      t[fed > 1 ? "refill" : "step"] += performance.now() - t0;
      return out;
    }};
    const m = {card: gpt.card, session};
    let {logits, state} = await gptForward(ort, {card: gpt.card, session: gpt.session}, [1], null);
    const t0 = performance.now();
    for (let n = 0; n < chars; n++) {
      fed = empty || !state || state.S + 1 <= gpt.card.config.block ? 1 : gpt.card.config.refill;
      ({logits, state} = await gptForward(ort, m, [argmax(logits)], empty ? null : state));
    }
    const total = performance.now() - t0;
    return {total: total / chars, step: t.step / chars, refill: t.refill / chars, js: (total - t.step - t.refill) / chars};
  };
  const runs = {lstm, gpt: () => attention(false), empty: () => attention(true)};
  const best = {};
  for (const run of Object.values(runs)) await run();   // warm-up
  for (let i = 0; i < repeats; i++)
    for (const [name, run] of Object.entries(runs)) {
      const r = await run();
      if (!best[name] || r.total < best[name].total) best[name] = r;
    }
  return best;
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


def breakdown_row(name: str, b: dict) -> str:
    """One engine's row of where TinyGPT's time per character goes, each part also as x TinyLLM's step."""
    if "fatal" in b:
        return f"| {name} | failed: {b['fatal'].splitlines()[0][:100]} | | | | | |"
    step = b["lstm"]["total"]
    g, cache = b["gpt"], b["gpt"]["step"] - b["empty"]["step"]
    x = lambda ms: f"{ms:.3f} ms ({ms / step:.1f}x)"   # noqa: E731
    return (f"| {name} | {step:.3f} ms | {x(g['total'])} | {x(b['empty']['step'])} | {x(cache)} "
            f"| {x(g['refill'])} | {x(g['js'])} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="chromium,firefox,webkit")
    parser.add_argument("--chars", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3, help="timed generations per model (best is reported)")
    parser.add_argument("--out", type=Path, help="also write the rows (Markdown, dated) to this file")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    arg = {"chars": args.chars, "repeats": args.repeats, "models": list(MODELS)}
    rows, parts = [], []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        script, split = Path(tmp) / "timing.js", Path(tmp) / "breakdown.js"
        script.write_text(TIMING, encoding="utf-8")
        split.write_text(BREAKDOWN, encoding="utf-8")
        port = free_port()
        server = serve(build_site(Path(tmp) / "public", port), port)
        url = f"http://127.0.0.1:{port}/{PAGE}"
        for engine in args.engines.split(","):
            browser = launch(p) if engine == "chromium" else None   # one browser at a time
            try:
                report = measure(engine, url, arg, script, browser)
            except Exception as error:   # one engine failing still leaves the others' rows
                report = {"fatal": f"{type(error).__name__}: {error}"}
            name = version(engine, report, browser)
            rows.append(row(engine, report, name))
            print(rows[-1], flush=True)
            try:
                split_report = measure(engine, url, arg, split, browser)
            except Exception as error:
                split_report = {"fatal": f"{type(error).__name__}: {error}"}
            parts.append(breakdown_row(name, split_report))
            print(parts[-1], flush=True)
            if browser:
                browser.close()
        server.shutdown()
    stamp = (f"Measured {datetime.date.today().isoformat()} on {os.cpu_count()} cores, {platform.system()} "
             f"{platform.release()}: {args.chars} characters after \"Once\", temperature 0.8, seed 1, "
             f"best of {args.repeats} after a warm-up, by bench/tinygpt_page_bench.py.")
    print(stamp)
    if args.out:
        split_head = ["Where TinyGPT's time per character goes, in the same page (its main thread, the page's own gpt.mjs; "
                      "each part also as a multiple of TinyLLM's step):", "",
                      "| engine | TinyLLM's step | TinyGPT, all | one character, empty cache | the cache (context up to 64) "
                      "| re-reads of 48 characters | JavaScript around session.run |", "|---|---|---|---|---|---|---|"]
        args.out.write_text("\n".join(["| measured | TinyLLM | TinyGPT |", "|---|---|---|", *rows, "", stamp, "",
                                        *split_head, *parts, ""]), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
