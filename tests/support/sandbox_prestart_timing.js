// The timing visit of bench/page_sandbox_prestart_bench.py, run twice in one fresh browser profile on
// the proxies page. First, {visit: 1}: start everything and wait until both snapshots (the page's
// Python and run_python's frame) are cached. Second (no argument): the page is left idle for 5 s,
// then the page's own Python is started (its warm start, the yardstick), a cell makes a
// ProxyManager and the first run_python call is timed; then Stop, 5 s idle, the first call again.
// Resolves to milliseconds; the frame's own start is read from lllm.timings.
async (arg) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const IDLE_MS = 5000;
  while (!window.lllm) await sleep(50);
  const frames = () => [...document.querySelectorAll("iframe[data-lllm-sandbox]")].map((f) => f.dataset.lllmSandbox);
  const timed = async (f) => {
    const t = performance.now();
    await f();
    return performance.now() - t;
  };
  const manager = () =>
    lllm.run(`from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
m = ProxyManager([WeatherProxy])`);
  const call = () => lllm.run('m.run_python("print(2 + 2)")');
  /** ms from the last time the frame was asked for to its Python having started, and how. */
  const frameStart = () => {
    const steps = lllm.timings;
    const asked = steps.findLast(([s]) => s === "sandbox: frame asked for");
    const started = steps.findLast(([s]) => s.startsWith("sandbox: Python started"));
    return asked && started ? { ms: started[1] - asked[1], how: /\((\w+)\)/.exec(started[0])[1] } : null;
  };
  if (arg?.visit === 1) {
    await lllm.ready();
    await manager();
    await call();
    const names = async () => (await (await caches.open("pyodide-snapshots")).keys()).map((r) => new URL(r.url).pathname.split("/").pop());
    for (const end = Date.now() + 240_000; Date.now() < end; await sleep(200)) {
      const cached = await names();
      if (cached.includes("python-snapshot") && cached.includes("sandbox-snapshot")) return { link: location.href };
    }
    return { link: location.href, error: "the snapshots were not cached within 240 s" };
  }
  await sleep(IDLE_MS - performance.now()); // open and idle for 5 s
  const out = { framesAtIdle: frames() };
  out.pageWarmStart = await timed(() => lllm.ready());
  out.pageWarm = lllm.status.warm === true;
  await manager();
  out.firstCall = await timed(call);
  out.frame = frameStart();
  lllm.stop();
  await sleep(IDLE_MS);
  out.framesAfterStopIdle = frames();
  await lllm.ready();
  await manager();
  out.afterStop = await timed(call);
  out.frameAfterStop = frameStart();
  return out;
};
