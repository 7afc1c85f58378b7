// The ReAct page's demo on the agent-tuned brain in any engine: run each goal and hand back what
// came back and what the answer line shows (the "not grounded in any observation" label). A single
// async arrow function, as tests/support/engine_scenario.js (the site's CSP has no 'unsafe-eval').
async ({ goals }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const runs = [];
  try {
    await window.lllm.ready();
    const demo = document.querySelector('.lllm-demo[data-demo="react"]');
    const brain = demo.querySelector("[name=brain]");
    brain.value = "tinyllm-agent";
    brain.dispatchEvent(new Event("change"));
    for (const goal of goals) {
      demo.querySelector("[name=goal]").value = goal;
      demo.querySelector(".lllm-demo__run").click();
      const deadline = Date.now() + 600_000;
      while (demo.dataset.state === "running" || demo.lllmParams?.goal !== goal) {
        if (Date.now() > deadline) throw new Error(`timed out on ${goal}`);
        await sleep(100);
      }
      const answer = demo.querySelector(".lllm-demo__answer");
      runs.push({
        state: demo.dataset.state,
        params: demo.lllmParams,
        result: demo.lllmResult,
        answer: answer ? answer.textContent : null,
        flagged: Boolean(demo.querySelector(".lllm-demo__ungrounded")),
      });
    }
    return { runs };
  } catch (e) {
    return { runs, fatal: `${e}\n${e && e.stack}` };
  }
};
