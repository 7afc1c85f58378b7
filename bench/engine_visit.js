// bench/engine_bench.py's page function, run by each engine's driver (tests/engines.py).
// phase "bare": a module worker that only imports pyodide.mjs and awaits loadPyodide() (the floor).
// phase "visit": the reader's first visit to the ReAct page: run the agent demo (tinyllm-agent),
//   wait until the service worker has saved the runtime, then open the same page in a new window —
//   a second document, so its runtime starts from scratch, served from the cache — and time it
//   until lllm.ready() (null where the browser blocks the window). Times are ms from this document's navigation start.
async ({ phase, goal }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (test) => { while (!test()) await sleep(50); };
  if (phase === "bare") {
    const pyodide = new URL("/assets/runtime/vendor/pyodide/", location.href).href;
    const source = `import(${JSON.stringify(pyodide + "pyodide.mjs")}).then(m => m.loadPyodide({indexURL: ${JSON.stringify(pyodide)}}))`
      + `.then(() => postMessage("ok"), e => postMessage(String(e)))`;
    const t0 = performance.now();
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
    const answer = await new Promise((r) => { worker.onmessage = (e) => r(e.data); });
    worker.terminate();
    return { ms: performance.now() - t0, answer };
  }
  const demo = document.querySelector('.lllm-demo[data-demo="react"]');
  demo.querySelector("[name=goal]").value = goal;
  const brain = demo.querySelector("[name=brain]");
  brain.value = "tinyllm-agent";
  brain.dispatchEvent(new Event("change"));
  demo.querySelector(".lllm-demo__run").click();
  await until(() => ["done", "error"].includes(demo.dataset.state));
  const answerMs = performance.now();
  const answer = demo.lllmResult?.trajectory?.answer ?? demo.textContent.slice(0, 200);
  await until(() => document.documentElement.dataset.offline === "all");
  // A second document in the same profile (served by the service worker): a new window, since the
  // site's CSP (frame-ancestors 'none') forbids framing it. A browser that blocks the popup gets null.
  const t0 = performance.now();
  const win = window.open(location.href, "_blank");
  let warmReadyMs = null;
  if (win) {
    const deadline = t0 + 180000;
    await until(() => { try { return win.lllm?.ready || performance.now() > deadline; } catch { return false; } });
    if (win.lllm?.ready) { await win.lllm.ready(); warmReadyMs = performance.now() - t0; }
    win.close();
  }
  return { answerMs, answer, state: demo.dataset.state, sync: window.lllm.sync, warmReadyMs };
}
