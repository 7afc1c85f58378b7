// Time travel's drilldown on the ReAct page (site/assets/agents/drilldown.mjs) in any engine: for each
// run asked for (a brain, its inputs and a character `c` of step 1), run it, open that character, then
// "write another character here" with the first other character offered, and hand back the record, the
// view, the character buttons, the branch and the link; a run with `swap` ({step, brain}) then goes back to
// branch 1 and lets that brain write from that step on, from the step's form (the drivers open each link afterwards and run
// tests/support/timetravel_link.js there). A single async arrow function, as timetravel_scenario.js.
async ({ runs }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (ok, what) => {
    // the runtime's own patience: Python boots before a run
    const deadline = Date.now() + 900_000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
      await sleep(100);
    }
  };
  const report = { runs: [], links: [] };
  try {
    await window.lllm.ready();
    const root = document.querySelector(".lllm-timetravel");
    for (const { inputs, c, swap } of runs) {
      const out = { brain: inputs.brain };
      report.runs.push(out);
      const select = root.querySelector("[name=brain]");
      select.value = inputs.brain;
      select.dispatchEvent(new Event("change"));
      for (const name of ["goal", "seed", "temperature", "max_steps"])
        if (inputs[name] !== undefined) root.querySelector(`[name=${name}]`).value = String(inputs[name]);
      root.querySelector(".lllm-tt__run").click();
      await sleep(50);
      await until(() => !["running", "idle"].includes(root.dataset.state), "the run");
      out.record = root.lllmRecord;
      out.error = root.querySelector(".lllm-tt__error").textContent;
      root.querySelector(".lllm-tt__step").click(); // step 1
      const drill = () => root.querySelector(".lllm-tt__drill");
      await until(() => drill()?.querySelector(`.lllm-tt__chars[data-settled] .lllm-tt__char[data-char="${c}"]`), "the character buttons");
      drill().querySelector(`.lllm-tt__char[data-char="${c}"]`).click();
      await until(() => ["done", "error"].includes(drill().dataset.state), "the character's forward pass");
      const slot = drill();
      out.state = slot.dataset.state;
      out.panel = slot.querySelector(".lllm-tt__inside").textContent.slice(0, 300);
      out.view = slot.lllmView ?? null;
      out.chars = [...slot.querySelectorAll(".lllm-tt__char:not(:disabled)")].map((b) => b.textContent).join("");
      out.pressed = slot.querySelector(".lllm-tt__char[aria-pressed=true]")?.dataset.char ?? null;
      out.members = [...slot.querySelectorAll(".lllm-tt__members tbody tr")].map((r) => r.dataset.vote);
      out.heads = [...slot.querySelectorAll(".lllm-inside__attention")].map((t) => t.querySelectorAll("tbody tr").length);
      out.drawChar = slot.querySelector(".lllm-inside__draw")?.dataset.char ?? null;
      // write another character here: a prefix branch
      const write = slot.querySelector(".lllm-tt__write");
      out.chosen = write.dataset.write;
      write.click();
      await sleep(50);
      await until(() => root.querySelectorAll("[role=treeitem]").length === 2 && root.dataset.state === "done", "the new branch");
      out.branched = root.lllmRecord;
      out.link = out.branchLink = root.lllmLink;
      if (swap) {
        // another brain from step `swap.step` of branch 1, from the step's form
        root.querySelector("[role=treeitem]").click(); // branch 1
        await until(() => root.querySelectorAll(".lllm-tt__step").length >= swap.step, "branch 1's steps");
        root.querySelectorAll(".lllm-tt__step")[swap.step - 1].click();
        await until(() => root.querySelector("select[name=swap-brain]"), "the step's form");
        const brain = root.querySelector("select[name=swap-brain]");
        out.swapOptions = [...brain.options].map((o) => o.value);
        brain.value = swap.brain;
        brain.dispatchEvent(new Event("change"));
        root.querySelector(".lllm-tt__rerun").click();
        await sleep(50);
        await until(() => root.querySelectorAll("[role=treeitem]").length === 3 && root.dataset.state === "done", "the swapped branch");
        out.swapped = root.lllmRecord;
        out.timeline = root.lllmTimeline;
        out.timelineRows = [...root.querySelectorAll(".lllm-tt__times tbody tr")].map((r) => r.querySelector("td")?.textContent ?? "");
        out.link = root.lllmLink;
      }
      report.links.push(out.link);
    }
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
};
