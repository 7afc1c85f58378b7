// Time travel on a native runtime page (site/native/agent.md, tactic.md) in any engine: pick the brain,
// run, go to step `step` on the timeline, set the edit field `field` to `value`, run from there, and hand
// back the tree, the comparison, the trace, the export and the link (the drivers then open the link and
// run tests/support/timetravel_link.js there). A single async arrow function, as timetravel_scenario.js.
async ({ demo, brain, step, field, value }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const settle = async (root, what) => {
    const deadline = Date.now() + 900_000;
    await sleep(50);
    while (root.dataset.state === "running" || root.dataset.state === "idle") {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
      await sleep(100);
    }
  };
  const report = {};
  try {
    await window.lllm.ready();
    const root = document.querySelector(`.lllm-timetravel[data-demo=${demo}]`);
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
    root.querySelectorAll(".lllm-tt__step")[step - 1].click();
    root.querySelector(`[name=edit-${field}]`).value = value;
    root.querySelector(".lllm-tt__rerun").click();
    await settle(root, "run from here");
    report.error = root.querySelector(".lllm-tt__error").textContent;
    report.tree = [...root.querySelectorAll("[role=tree] [role=treeitem]")].map((n) => ({
      branch: n.dataset.branch,
      selected: n.getAttribute("aria-selected"),
      level: n.parentElement.getAttribute("role"),
      text: n.firstChild.textContent,
    }));
    report.difference = root.querySelector(".lllm-tt__diff-summary")?.textContent;
    report.trace = root.querySelector(".lllm-tt__trace").textContent;
    report.exported = root.lllmExportText();
    report.link = root.lllmLink;
    report.record = root.lllmRecord;
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
};
