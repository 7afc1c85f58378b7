// Time travel on the ReAct page (site/assets/agents/timetravel.mjs) in any engine: run the goal on the
// brain, go back to step 1 with the timeline's keys, edit the observation, run from there, and hand
// back the tree, the comparison, the trace, the export and the link. With `frame`, the link is then
// opened in a frame (the same browser launch: Firefox and WebKit; Chromium opens it in a fresh
// context from the test) and its trace is handed back too. A single async arrow function, as
// tests/support/engine_scenario.js (drivers pass it as a function: the site's CSP has no 'unsafe-eval').
async ({ goal, brain, observation, frame }) => {
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
    report.first = { state: root.dataset.state, steps: root.lllmRecord?.branches[0].steps.length, error: root.querySelector(".lllm-tt__error").textContent };
    // back to step 1 with the keyboard: the timeline's ← from the last step
    [...root.querySelectorAll(".lllm-tt__step")].pop().focus();
    for (let i = 0; i < 5; i++) key(document.activeElement, "ArrowLeft");
    report.current = root.querySelector(".lllm-tt__step[aria-current=step]").textContent;
    report.focused = document.activeElement.textContent;
    root.querySelector("[name=edit-observation]").value = observation;
    root.querySelector(".lllm-tt__rerun").click();
    await settle(root, "run from here");
    report.error = root.querySelector(".lllm-tt__error").textContent;
    report.tree = [...root.querySelectorAll("[role=tree] [role=treeitem]")].map((n) => ({
      branch: n.dataset.branch, selected: n.getAttribute("aria-selected"), level: n.parentElement.getAttribute("role") }));
    report.difference = root.querySelector(".lllm-tt__diff-summary")?.textContent;
    report.marked = root.querySelector(".lllm-tt__first-diff th")?.textContent;
    report.trace = root.querySelector(".lllm-tt__trace").textContent;
    report.exported = root.lllmExportText();
    report.link = root.lllmLink;
    report.record = root.lllmRecord;
    // a malformed file: one sentence, and the runs on the page stay
    await root.lllmImport('{"schema": "lllm-run", "version": 1, "inputs": {"goal": "x", "seed": -1}}');
    report.malformed = { error: root.querySelector(".lllm-tt__error").textContent, trace: root.querySelector(".lllm-tt__trace").textContent === report.trace,
      branches: root.querySelectorAll("[role=treeitem]").length };
    if (frame) {
      const iframe = document.createElement("iframe");
      iframe.style.width = "390px";
      iframe.style.height = "600px";
      iframe.src = report.link;
      document.body.append(iframe);
      const deadline = Date.now() + 900_000;
      let other = null;
      while (!(other = iframe.contentDocument?.querySelector(".lllm-timetravel")) || other.dataset.state !== "done") {
        if (Date.now() > deadline) throw new Error("timed out: the link");
        if (other?.dataset.state === "error") break;
        await sleep(200);
      }
      report.linked = { state: other.dataset.state, trace: other.querySelector(".lllm-tt__trace").textContent,
        branches: other.querySelectorAll("[role=treeitem]").length, record: other.lllmRecord };
    }
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
}
