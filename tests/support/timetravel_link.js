// A time-travel link just opened (tests/browser/test_timetravel_engines.py): wait until the ReAct page's
// widget has recomputed the runs the #run= fragment names, and hand back what it shows. A single async
// arrow function, as tests/support/engine_scenario.js.
async () => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + 900_000;
  let root = null;
  while (!(root = document.querySelector(".lllm-timetravel")) || !["done", "error"].includes(root.dataset.state)) {
    if (Date.now() > deadline) return { fatal: `timed out: the link (${root?.dataset.state})` };
    await sleep(200);
  }
  const box = root.getBoundingClientRect();
  return {
    state: root.dataset.state,
    trace: root.querySelector(".lllm-tt__trace").textContent,
    inView: box.top < innerHeight && box.bottom > 0,
    error: root.querySelector(".lllm-tt__error").textContent,
    branches: root.querySelectorAll("[role=treeitem]").length,
    record: root.lllmRecord ?? null,
  };
};
