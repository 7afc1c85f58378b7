// "Look inside" in the ReAct demo's own trace (site/assets/agents/demo-inside.mjs), in any engine: run the
// demo with the inputs given, press Look inside on step 1, open its character `c`, and hand back the run's
// params and calls, the drilldown's state and view, and the character buttons. A single async arrow
// function, as drilldown_scenario.js (Chromium's test of the same is tests/browser/test_agents_browser.py).
async ({ inputs, c }) => {
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
    const demo = document.querySelector(".lllm-demo");
    for (const [name, value] of Object.entries(inputs)) {
      const control = demo.querySelector(`[name=${name}]`);
      control.value = String(value);
      control.dispatchEvent(new Event(control.tagName === "SELECT" ? "change" : "input", { bubbles: true }));
    }
    [...demo.querySelectorAll("button")].find((b) => b.textContent.trim() === "Run").click();
    await sleep(50);
    await until(() => ["done", "error", "recorded"].includes(demo.dataset.state), "the demo's run");
    report.state = demo.dataset.state;
    report.params = demo.lllmParams;
    report.calls = demo.lllmResult?.calls ?? null;
    report.buttons = demo.querySelectorAll(".lllm-demo__inside").length;
    const item = demo.querySelectorAll(".lllm-demo__step")[0];
    item.querySelector(".lllm-demo__inside").click();
    const slot = () => item.querySelector(".lllm-demo__drill");
    const button = () => slot()?.querySelector(`.lllm-tt__chars[data-settled] .lllm-tt__char[data-char="${c}"]`);
    await until(button, "the character buttons");
    report.chars = [...slot().querySelectorAll(".lllm-tt__char")].map((b) => b.textContent).join("");
    button().click();
    await until(() => ["done", "error"].includes(slot().dataset.state), "the character's forward pass");
    report.drill = slot().dataset.state;
    report.view = slot().lllmView ?? null;
    report.text = slot().textContent.slice(0, 300);
    report.write = [...slot().querySelectorAll(".lllm-tt__write")].map((b) => b.dataset.write);
  } catch (error) {
    report.fatal = String(error?.stack ?? error);
  }
  return report;
};
