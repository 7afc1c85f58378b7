// bench/engine_bench.py's page function, run by each engine's driver (tests/engines.py).
// phase "bare": a module worker that only imports pyodide.mjs and awaits loadPyodide() (the floor).
// phase "visit": the reader's first visit to the ReAct page: run the agent demo (tinyllm-agent),
//   wait until the service worker has saved the runtime, then load the same page again in an
//   iframe — a second document, so its runtime starts from scratch, served from the cache — and
//   time it until lllm.ready(). Times are ms from this document's navigation start.
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
  const frame = Object.assign(document.createElement("iframe"), { src: location.href, style: "width:800px;height:600px" });
  const t0 = performance.now();
  document.body.append(frame);
  await until(() => frame.contentWindow?.lllm?.ready);
  await frame.contentWindow.lllm.ready();
  return { answerMs, answer, state: demo.dataset.state, sync: window.lllm.sync, warmReadyMs: performance.now() - t0 };
}
