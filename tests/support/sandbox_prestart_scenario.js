// run_python's interpreter started ahead, over two visits of one browser profile to the proxies
// page (tests/browser/test_sandbox_prestart.py). First visit, {visit: 1}: nothing is cached, so no
// frame starts until the page's own Python has; then one starts cold without any run_python call,
// and code run in it tries to leave something behind for later runs. Second visit (no argument):
// a frame restored from the snapshot starts by itself while the page is idle, the mark left on the
// first visit is not in it, the attacks of sandbox_scenario.js fail there as in a cold frame, and
// after Stop a frame comes back by itself; a snapshot broken in the cache is replaced by a cold
// start, without an error. Resolves to a report; the test asserts on it.
async (arg) => {
  const first = arg?.visit === 1;
  const report = { errors: [] };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const frames = () => [...document.querySelectorAll("iframe[data-lllm-sandbox]")].map((f) => f.dataset.lllmSandbox);
  async function until(what, test, seconds = 240) {
    // the runtime's own patience, not a driver's default
    for (const end = Date.now() + seconds * 1000; Date.now() < end; await sleep(100)) if (await test()) return true;
    report.errors.push(`waited ${seconds} s for ${what}`);
    return false;
  }
  const started = () => until("a started frame", () => ["cold", "snapshot"].includes(frames()[0]));
  const cached = async () => (await (await caches.open("pyodide-snapshots")).keys()).some((r) => r.url.includes("/sandbox-snapshot?"));
  const cell = (code) =>
    lllm.run(code, { namespace: "prestart" }).then(
      (r) => r.stdout.trim(),
      (e) => `RAISED ${e.name}: ${e.message}`,
    );
  const manager = () =>
    cell(`
from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.proxies.base import RUN_PYTHON_BUDGET
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
m = ProxyManager([WeatherProxy], budget={"allowed_imports": RUN_PYTHON_BUDGET["allowed_imports"] + ["builtins", "js", "_lllm_page"]})`);
  const py = (code) => cell(`print(m.run_python(${JSON.stringify(code)}))`);
  const refused = `except Exception as e:\n    print("refused:", type(e).__name__)`;
  const CARRIED = 'import builtins\nprint(getattr(builtins, "carried", "absent"))';
  const OSLO = 'print(CALL_API("weather/current", {"city": "Oslo"})["temp"])';
  try {
    await until("window.lllm", () => window.lllm, 60);
    if (first) {
      await sleep(3000);
      report.framesBeforePython = frames(); // no snapshot yet: opening the page starts nothing
      await lllm.ready();
      await started();
      report.prestarted = frames();
      await manager();
      report.mark = await py('import builtins\nbuiltins.carried = "from the first visit"\nprint("left")');
      report.cached = await until("the frame's snapshot in Cache Storage", cached, 120);
      report.link = location.href;
      return report;
    }
    await started();
    report.prestarted = frames();
    report.pythonStarted = lllm.status.pythonReady === true;
    await lllm.ready();
    await manager();
    report.carried = await py(CARRIED);
    report.oslo = await py(OSLO);
    report.localStorage = await py(`import js\ntry:\n    print("read", js.localStorage.getItem("lllm.quiz.v1"))\n${refused}`);
    report.document = await py(`import js\ntry:\n    print("reached", js.document.title)\n${refused}`);
    report.pagePython = await py(`try:\n    import _lllm_page\n    print("reached", _lllm_page.card_json)\n${refused}`);
    await py(
      `import js\nr_fetch = []\ntry:\n    js.fetch("${location.origin}/assets/runtime/runtime.json").then(lambda resp: r_fetch.append(f"fetched {resp.status}"), lambda e: r_fetch.append("refused"))\nexcept Exception as e:\n    r_fetch.append("refused")`,
    );
    await sleep(3000);
    report.fetch = await py("print(r_fetch)");
    lllm.stop();
    await sleep(0);
    report.framesAtStop = frames();
    await started();
    report.afterStop = frames();
    await lllm.ready();
    await manager();
    report.again = await py(OSLO);
    report.carriedAfterStop = await py(CARRIED);
    // a snapshot that does not restore (its magic number gone): dropped for a cold start, no error
    const magic = async () => {
      const cache = await caches.open("pyodide-snapshots");
      const key = (await cache.keys()).find((r) => r.url.includes("/sandbox-snapshot?"));
      const hit = await cache.match(key);
      return { cache, key, hit, first: new Uint32Array((await hit.clone().arrayBuffer()).slice(0, 4))[0] };
    };
    const { cache, key, hit } = await magic();
    const broken = new Uint8Array(await hit.arrayBuffer());
    broken.fill(0, 0, 16);
    await cache.put(key, new Response(broken, { headers: hit.headers }));
    lllm.stop();
    await sleep(0);
    await started();
    report.broken = frames();
    await lllm.ready();
    await manager();
    report.afterBroken = await py(OSLO);
    await until("a new snapshot in place of the broken one", async () => (await magic()).first !== 0, 120);
    report.replaced = (await magic()).first !== 0;
  } catch (e) {
    report.errors.push(String(e?.stack ?? e));
  }
  return report;
};
