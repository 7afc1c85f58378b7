// The agent-model page's write-your-own box (data-demo="judge") in any engine: type each goal,
// run it, and hand back what came back for each. A single async arrow function, as
// tests/support/engine_scenario.js (drivers pass it as a function: the site's CSP has no 'unsafe-eval').
async ({ goals }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const runs = [];
  try {
    await window.lllm.ready();
    const demo = document.querySelector('.lllm-demo[data-demo="judge"]');
    for (const goal of goals) {
      demo.querySelector("[name=goal]").value = goal;
      demo.querySelector(".lllm-demo__run").click();
      const deadline = Date.now() + 600_000;
      while (demo.dataset.state === "running" || demo.lllmParams?.goal !== goal) {
        if (Date.now() > deadline) throw new Error(`timed out on ${goal}`);
        await sleep(100);
      }
      const verdict = demo.querySelector(".lllm-demo__verdict");
      runs.push({
        state: demo.dataset.state,
        result: demo.lllmResult,
        shown: verdict ? { text: verdict.textContent, verdict: verdict.dataset.verdict } : demo.textContent,
      });
    }
    return { runs };
  } catch (e) {
    return { runs, fatal: `${e}\n${e && e.stack}` };
  }
};
