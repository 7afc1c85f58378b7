// Time travel on the ReAct page (site/assets/agents/timetravel.mjs) in any engine: run the goal on the
// brain, go back to step 1 with the timeline's keys, edit the observation, run from there, and hand
// back the tree, the comparison, the trace, the export and the link (the drivers then open the link
// and run tests/support/timetravel_link.js there). A single async arrow function, as
// tests/support/engine_scenario.js (drivers pass it as a function: the site's CSP has no 'unsafe-eval').
async ({ goal, brain, observation }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const settle = async (root, what) => {
    const deadline = Date.now() + 900_000;
    await sleep(50);
    while (root.dataset.state === "running" || root.dataset.state === "idle") {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
      await sleep(100);
    }
  };
  const key = (node, k) => node.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
  const report = {};
  try {
    await window.lllm.ready();
    const root = document.querySelector(".lllm-timetravel");
    root.querySelector("[name=goal]").value = goal;
    const select = root.querySelector("[name=brain]");
    select.value = brain;
    select.dispatchEvent(new Event("change"));
    root.querySelector(".lllm-tt__run").click();
    await settle(root, "the run");
    report.first = {
      state: root.dataset.state,
      steps: root.lllmRecord?.branches[0].steps.length,
      error: root.querySelector(".lllm-tt__error").textContent,
    };
    // back to step 1 with the keyboard: the timeline's ← from the last step
    [...root.querySelectorAll(".lllm-tt__step")].pop().focus();
    for (let i = 0; i < 5; i++) key(document.activeElement, "ArrowLeft");
    report.current = root.querySelector(".lllm-tt__step[aria-current=step]").textContent;
    root.querySelector("[name=edit-observation]").value = observation;
    root.querySelector(".lllm-tt__rerun").click();
    await settle(root, "run from here");
    report.error = root.querySelector(".lllm-tt__error").textContent;
    report.tree = [...root.querySelectorAll("[role=tree] [role=treeitem]")].map((n) => ({
      branch: n.dataset.branch,
      selected: n.getAttribute("aria-selected"),
      level: n.parentElement.getAttribute("role"),
    }));
    report.difference = root.querySelector(".lllm-tt__diff-summary")?.textContent;
    report.marked = root.querySelector(".lllm-tt__first-diff th")?.textContent;
    report.trace = root.querySelector(".lllm-tt__trace").textContent;
    report.exported = root.lllmExportText();
    report.link = root.lllmLink;
    report.record = root.lllmRecord;
    // a malformed file: one sentence, and the runs on the page stay
    await root.lllmImport('{"schema": "lllm-run", "version": 1, "inputs": {"goal": "x", "seed": -1}}');
    report.malformed = {
      error: root.querySelector(".lllm-tt__error").textContent,
      trace: root.querySelector(".lllm-tt__trace").textContent === report.trace,
      branches: root.querySelectorAll("[role=treeitem]").length,
    };
    // the step shown has its characters (the drilldown's modules load for it): leave only once they have
    // settled, as a reader would; leaving mid-load is Firefox's cancelled fetch, logged through the worker
    const deadline = Date.now() + 900_000;
    while ([...root.querySelectorAll(".lllm-tt__chars")].some((c) => !c.dataset.settled) && Date.now() < deadline) await sleep(100);
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
};
