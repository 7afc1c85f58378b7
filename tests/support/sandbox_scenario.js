// The hostile-code scenario for run_python in the page (tests/browser/test_sandbox_page.py), run as
// one page function in each engine. Code given to run_python (with `js` and `pyodide` on its import
// allow-list, so only the frame stands in the way) tries the learner's progress, the caches,
// IndexedDB, the page's Python, the origin and the parent; then a loop only Stop can end. The same
// attacks then run in the page's own Python (`sandbox="in-process"`, the control) to show they
// would succeed there. Resolves to a report; the Python test asserts on it.
async (arg) => {
  const KEY = "lllm.quiz.v1";
  const PROGRESS = JSON.stringify({ version: 1, questions: { "sandbox-test": { n: 1, interval: 1, ease: 2.5, due: 0 } }, course: {} });
  const report = { errors: [], isolated: {}, control: {}, ordinary: {} };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  while (!window.lllm) await sleep(100);
  localStorage.setItem(KEY, PROGRESS);
  await lllm.ready();
  const cacheNames = async () => (await caches.keys()).sort();
  const databases = async () => (indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name).sort() : []);
  const before = { caches: await cacheNames(), databases: await databases() };
  const windowMessages = [];
  addEventListener("message", (e) => windowMessages.push(String(JSON.stringify(e.data)).slice(0, 200)));
  // every call has an answer: a hang reports TIMEOUT (and which call) instead of stalling the test
  const cell = (code, ns) =>
    Promise.race([
      lllm.run(code, { namespace: ns }).then(
        (r) => r.stdout.trim(),
        (e) => `RAISED ${e.name}: ${e.message}`,
      ),
      sleep(240_000).then(() => `TIMEOUT in ${ns}: ${code.slice(0, 120)}`),
    ]);
  const manager = (kind, ns, extra) =>
    cell(
      `
from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.proxies.base import RUN_PYTHON_BUDGET
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy
m = ProxyManager([WeatherProxy], sandbox=${kind}${extra ? `, budget={"allowed_imports": RUN_PYTHON_BUDGET["allowed_imports"] + ["js", "pyodide", "_lllm_page", "lllm"]}` : ""})
print(type(m.interpreter).__name__, getattr(m.interpreter, "boundary", None))`,
      ns,
    );
  const py = (code, ns) => cell(`print(m.run_python(${JSON.stringify(code)}))`, ns);
  const refused = (what) => `except Exception as e:\n    print("refused:", type(e).__name__, str(e)[:160])`;
  const ORIGIN = location.origin + "/";
  const ATTACKS = {
    localStorage: `import js\ntry:\n    print("read", js.localStorage.getItem("${KEY}"))\n    js.localStorage.setItem("${KEY}", "stolen")\n${refused()}`,
    document: `import js\ntry:\n    print("reached", js.document.title)\n    js.document.body.remove()\n${refused()}`,
    parent: `import js\ntry:\n    js.parent.postMessage("from the sandbox", "*")\n    print("reached the parent")\n${refused()}`,
    pagePython: `try:\n    import _lllm_page\n    print("reached", _lllm_page.card_json)\n${refused()}`,
    lllm: `try:\n    import lllm\n    print("reached", lllm.__name__)\n${refused()}`,
    // asynchronous ones: started now, read by the next call once their promises have settled
    caches: `import js\nr_caches = []\ntry:\n    js.caches.keys().then(lambda k: r_caches.append(f"reached caches {list(k)}"), lambda e: r_caches.append(f"refused: {e}"))\n    js.caches.open("attack").then(lambda c: r_caches.append("opened"), lambda e: r_caches.append(f"refused: {e}"))\nexcept Exception as e:\n    r_caches.append(f"refused: {type(e).__name__}: {e}")`,
    indexedDB: `import js\nfrom pyodide.ffi import create_proxy\nr_idb = []\ntry:\n    q = js.indexedDB.open("attack")\n    q.addEventListener("success", create_proxy(lambda e: r_idb.append("opened")))\n    q.addEventListener("error", create_proxy(lambda e: r_idb.append(f"refused: {q.error}")))\nexcept Exception as e:\n    r_idb.append(f"refused: {type(e).__name__}: {e}")`,
    fetch: `import js\nr_fetch = []\ntry:\n    js.fetch("${ORIGIN}assets/runtime/runtime.json").then(lambda resp: r_fetch.append(f"fetched {resp.status}"), lambda e: r_fetch.append(f"refused: {e}"))\nexcept Exception as e:\n    r_fetch.append(f"refused: {type(e).__name__}: {e}")`,
    postMessage: `import js\njs.postMessage(js.JSON.parse('{"session": "forged", "done": "forged"}'))\njs.postMessage("hello, page")\nprint("sent")`,
  };
  const LATER = { caches: "r_caches", indexedDB: "r_idb", fetch: "r_fetch" };
  async function attack(into, ns) {
    for (const [name, code] of Object.entries(ATTACKS)) into[name] = await py(code, ns);
    await sleep(5000);
    for (const [name, variable] of Object.entries(LATER)) into[name] = await py(`print(${variable})`, ns);
  }
  try {
    report.isolated.interpreter = await manager("None", "isolated", true);
    await attack(report.isolated, "isolated");
    report.isolated.after = await py('print(CALL_API("weather/current", {"city": "Oslo"})["temp"])', "isolated");
    // the ordinary case, with the default budget
    report.ordinary.interpreter = await manager("None", "ordinary", false);
    report.ordinary.callApi = await py('t = CALL_API("weather/current", {"city": "Oslo"})["temp"]\nprint(t)', "ordinary");
    report.ordinary.persists = await py("print(t + 1)", "ordinary");
    report.ordinary.allowedImport = await py("import math\nprint(math.sqrt(16))", "ordinary");
    report.ordinary.forbiddenImport = await py("import js", "ordinary");
    report.ordinary.steps = await py("while True:\n    pass", "ordinary");
    report.ordinary.cut = await py('print("x" * 5000)', "ordinary");
    // a loop with no line events: only Stop ends it
    const endless = py("sum(range(10 ** 15))", "ordinary");
    await sleep(3000);
    report.stop = { framesBefore: document.querySelectorAll("iframe[data-lllm-sandbox]").length };
    lllm.stop();
    report.stop.result = await endless;
    report.stop.framesAfter = document.querySelectorAll("iframe[data-lllm-sandbox]").length;
    await lllm.ready();
    await manager("None", "after-stop", false);
    report.stop.again = await py('print(CALL_API("weather/current", {"city": "Oslo"})["temp"])', "after-stop");
    report.after = {
      progress: localStorage.getItem(KEY) === PROGRESS,
      caches: JSON.stringify(await cacheNames()) === JSON.stringify(before.caches),
      databases: JSON.stringify(await databases()) === JSON.stringify(before.databases),
      windowMessages,
    };
    // the control: the same attacks in the page's own Python
    report.control.interpreter = await manager('"in-process"', "control", true);
    await attack(report.control, "control");
    await caches.delete("attack");
    await new Promise((r) => {
      const q = indexedDB.deleteDatabase("attack");
      q.onsuccess = q.onerror = q.onblocked = r;
    });
  } catch (e) {
    report.errors.push(String(e?.stack ?? e));
  }
  if (report.ordinary.cut) report.ordinary.cut = `${report.ordinary.cut.length} characters, ending ${report.ordinary.cut.slice(-40)}`;
  return report;
};
