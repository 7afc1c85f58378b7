// Time travel on a page of a demo made of steps (the debate, the typed workflow, oversight; the widget is
// site/assets/agents/timetravel.mjs) in any engine: run, then for each edit go to its step with the
// timeline (a click on the step, then ← and → as needed), fill the field, run from here; hand back the
// tree, the comparison, the trace, the export and the link (the drivers then open the link and run
// tests/support/timetravel_link.js there). A single async arrow function, as timetravel_scenario.js.
async ({ demo, edits }) => {
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
    const root = document.querySelector(`.lllm-timetravel[data-demo=${demo}]`);
    root.querySelector(".lllm-tt__run").click();
    await settle(root, "the run");
    report.first = {
      state: root.dataset.state,
      steps: root.lllmRecord?.branches[0].steps.length,
      error: root.querySelector(".lllm-tt__error").textContent,
    };
    report.errors = [];
    for (const { step, field, value } of edits) {
      [...root.querySelectorAll(".lllm-tt__step")].pop().click(); // to the last step, then back with ←
      const back = root.querySelectorAll(".lllm-tt__step").length - step;
      for (let i = 0; i < back; i++) key(document.activeElement, "ArrowLeft");
      root.querySelector(`[name=edit-${field}]`).value = value;
      root.querySelector(".lllm-tt__rerun").click();
      await settle(root, `run from step ${step}`);
      report.errors.push(root.querySelector(".lllm-tt__error").textContent);
    }
    report.current = root.querySelector(".lllm-tt__step[aria-current=step]").textContent;
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
    // a malformed file: one sentence naming the field, and the runs on the page stay
    await root.lllmImport(JSON.stringify({ schema: "lllm-run", version: 2, demo, inputs: {}, edits: [] }));
    report.malformed = {
      error: root.querySelector(".lllm-tt__error").textContent,
      trace: root.querySelector(".lllm-tt__trace").textContent === report.trace,
      branches: root.querySelectorAll("[role=treeitem]").length,
    };
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
};
