// A chat log from elsewhere in the ReAct page's time-travel widget, in any engine: import it (the widget's
// own `lllmImport`, what its file input calls), wait for the panel, then re-run it from a model call with
// a brain from here, then import a malformed log; hand back each text the panel shows. A single async
// arrow function, as timetravel_scenario.js.
async ({ log, from, brain, bad }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (ok, what) => {
    // the runtime's own patience: Python boots before a run
    const deadline = Date.now() + 900_000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
      await sleep(100);
    }
  };
  const report = {};
  try {
    await window.lllm.ready();
    const root = document.querySelector(".lllm-timetravel");
    const panel = () => root.querySelector(".lllm-tt__chat");
    await root.lllmImport(JSON.stringify(log));
    await until(() => ["done", "error"].includes(panel()?.dataset.state), "the imported log");
    report.imported = { state: panel().dataset.state, text: panel().lllmChatText ?? panel().textContent.slice(0, 300) };
    panel().querySelector("[name=chat-from]").value = String(from);
    const select = panel().querySelector("[name=chat-brain]");
    select.value = brain;
    select.dispatchEvent(new Event("change"));
    panel().querySelector(".lllm-tt__chat-rerun").click();
    await sleep(50);
    await until(() => ["done", "error"].includes(panel().dataset.state), "the re-run");
    report.rerun = { state: panel().dataset.state, text: panel().lllmChatText ?? panel().textContent.slice(0, 300) };
    await root.lllmImport(JSON.stringify(bad));
    await until(() => panel()?.dataset.state === "error", "the malformed log");
    report.bad = panel().querySelector(".lllm-tt__error").textContent;
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
};
