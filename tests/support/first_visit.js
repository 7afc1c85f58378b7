// A learner's first visit, run inside the page by every engine's driver (tests/support/engines.py) for
// tests/browser/test_first_visit_browser.py and bench/engine_bench.py; tests/support/first_visit.py counts what
// the server sent meanwhile. Times are epoch ms (performance.timeOrigin + now), so they can be
// set against the server's log.
// phase "bare":  a module worker that only imports pyodide.mjs and awaits loadPyodide() (the floor).
// phase "visit": the reader reads /agents/react/ (until the service worker has saved it), then runs
//   the agent demo with the agent-tuned TinyLLM; then waits until the service worker reports that
//   its background caching has ended (its offline-state message with rest: "done" or "failed";
//   restAt, when it came), so the server's log up to then counts the whole visit. With `warm`
//   (true, or how many times), it then opens the same page in a new window — a second document, so its runtime starts from scratch, served from
//   the cache — and times its lllm.ready(): warmRuns, one {readyMs (from the runtime's start, as
//   coldReadyMs), openMs (from opening the window), timings (its step-by-step lllm.timings)} per
//   window, one after the other; empty where the browser blocks the window. coldTimings are the
//   first document's lllm.timings.
async ({ phase, goal, warm = false }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const now = () => performance.timeOrigin + performance.now();
  const until = async (test, ms = 600000) => {
    const deadline = performance.now() + ms;
    while (!test() && performance.now() < deadline) await sleep(50);
    return test();
  };
  if (phase === "bare") {
    const pyodide = new URL("/assets/runtime/vendor/pyodide/", location.href).href;
    const source =
      `import(${JSON.stringify(pyodide + "pyodide.mjs")}).then(m => m.loadPyodide({indexURL: ${JSON.stringify(pyodide)}}))` +
      `.then(() => postMessage("ok"), e => postMessage(String(e)))`;
    const t0 = performance.now(),
      startAt = now();
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
    const answer = await new Promise((r) => {
      worker.onmessage = (e) => r(e.data);
    });
    worker.terminate();
    return { ms: performance.now() - t0, answer, startAt, endAt: now() };
  }
  let rest = null; // the service worker's word that the rest of the site is saved (sw.js, "rest")
  navigator.serviceWorker?.addEventListener("message", ({ data }) => {
    if (data?.rest) rest ??= data.rest;
  });
  const saved = await until(() => document.documentElement.dataset.offline, 60000); // "" where no service worker
  await sleep(500);
  const intentAt = now();
  const demo = document.querySelector('.lllm-demo[data-demo="react"]');
  demo.querySelector("[name=goal]").value = goal;
  const brain = demo.querySelector("[name=brain]");
  brain.value = "tinyllm-agent";
  brain.dispatchEvent(new Event("change"));
  const t0 = performance.now();
  demo.querySelector(".lllm-demo__run").click();
  let coldReadyMs = null;
  window.lllm.ready().then(
    () => {
      coldReadyMs = performance.now() - t0;
    },
    () => {},
  );
  await until(() => ["done", "error"].includes(demo.dataset.state));
  const answerMs = performance.now() - t0,
    answerAt = now();
  const answer = demo.lllmResult?.trajectory?.answer ?? demo.textContent.slice(0, 200);
  await until(() => rest, 300000);
  const restAt = now();
  const report = {
    savedBeforeIntent: saved ?? "",
    intentAt,
    answerMs,
    answerAt,
    answer,
    state: demo.dataset.state,
    sync: window.lllm.sync,
    coldReadyMs,
    rest,
    offlineAll: document.documentElement.dataset.offline === "all",
    restAt,
    warmRuns: [],
    coldTimings: window.lllm.timings,
  };
  // A second document in the same profile (served by the service worker): a new window, since the
  // site's CSP (frame-ancestors 'none') forbids framing it. A browser that blocks the popup gets no
  // run (WebKit does unless told otherwise: bench/engine_bench.py tells MiniBrowser it may open windows).
  for (let i = 0; i < Number(warm); i++) {
    const w0 = performance.now();
    const win = window.open(location.href, "_blank");
    if (!win) break;
    const deadline = w0 + 180000;
    await until(() => {
      try {
        return win.lllm?.ready || performance.now() > deadline;
      } catch {
        return false;
      }
    });
    if (win.lllm?.ready) {
      const r0 = performance.now();
      await win.lllm.ready();
      report.warmRuns.push({ readyMs: performance.now() - r0, openMs: performance.now() - w0, timings: win.lllm.timings });
    }
    win.close();
    await sleep(500); // let the closed window's workers go before the next one starts
  }
  return report;
};
