// A reader's visit to one page kind, run inside the page by tests/browser/test_byte_budget_browser.py
// and bench/byte_budget.py (tests/support/byte_budget.py counts what the server sent meanwhile).
// The browser draws widgets the lazy way a reader gets them (no window.lllmEager): this script
// scrolls, as a reader does, and uses only the widget its page kind is about.
//   kind "reading": reads the page top to bottom, a screen at a time.
//   kind "demo":    scrolls to the page's ReAct demo and runs it with the agent-tuned TinyLLM;
//                   answerAt is when the answer came (the budget counts to there). Then waits for
//                   the service worker's background caching to end (its "rest" message, asked by
//                   offline.mjs once the runtime is idle): the whole visit, for files sent twice.
//                   beforeWorker: the page's own requests (Resource Timing) that its service worker
//                   did not answer, the page itself first: what it fetched before the worker took over.
//   kind "inside":  scrolls to the inside view, presses Generate, waits until it has drawn its first step.
//   kind "train":   scrolls to the trainer, presses Train, waits for its first checkpoint.
// Times are epoch ms (performance.timeOrigin + now), set against the server's log.
async ({ kind, goal, selector, hurry = false }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const now = () => performance.timeOrigin + performance.now();
  const until = async (test, ms = 600000) => {
    const deadline = performance.now() + ms;
    while (!(await test()) && performance.now() < deadline) await sleep(50);
    return test();
  };
  let rest = null;
  navigator.serviceWorker?.addEventListener("message", ({ data }) => {
    if (data?.rest) rest ??= data.rest;
  });
  const saved = hurry ? null : await until(() => document.documentElement.dataset.offline, 60000);
  const report = { kind, saved: saved ?? "", startAt: performance.timeOrigin };
  const widget = selector ? document.querySelector(selector) : null;
  if (selector && !widget) return { ...report, error: `no ${selector} on ${location.pathname}` };
  if (kind === "reading") {
    for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight) {
      scrollTo(0, y);
      await sleep(150);
    }
  } else if (kind === "demo") {
    widget.scrollIntoView({ block: "center" });
    await until(() => widget.querySelector(".lllm-demo__run"), 120000);
    report.intentAt = now();
    widget.querySelector("[name=goal]").value = goal;
    const brain = widget.querySelector("[name=brain]");
    brain.value = "tinyllm-agent";
    brain.dispatchEvent(new Event("change"));
    widget.querySelector(".lllm-demo__run").click();
    await until(() => ["done", "error"].includes(widget.dataset.state), 300000);
    report.answerAt = now();
    report.state = widget.dataset.state;
    report.status = widget.querySelector(".lllm-demo__status")?.textContent; // where a run that never ended stood
    report.timings = window.lllm.timings;
    report.answer = widget.lllmResult?.trajectory?.answer ?? widget.textContent.slice(0, 200);
    if (report.state === "done") await until(() => rest, 300000);
    report.rest = rest;
    report.beforeWorker = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
      .filter((e) => !e.workerStart && e.name.startsWith(location.origin))
      .map((e) => e.name.slice(location.origin.length));
  } else if (kind === "inside") {
    widget.scrollIntoView({ block: "center" });
    const go = await until(() => widget.dataset.state === "idle" && widget.querySelector(".lllm-inside__controls button"), 120000);
    go?.click(); // the model loads when the reader asks for a text, not with the page
    await until(() => Number(widget.dataset.runs) >= 1 || widget.dataset.state === "error", 120000);
    report.state = widget.dataset.state;
  } else if (kind === "train") {
    widget.scrollIntoView({ block: "center" });
    const button = await until(() => [...widget.querySelectorAll("button")].find((b) => /^train$/i.test(b.textContent.trim())), 120000);
    report.drawn = Boolean(button);
    if (button) {
      button.click();
      report.checkpoint = Boolean(await until(() => widget.querySelector(".lllm-train__news")?.textContent.trim(), 180000));
      report.state = widget.dataset.state;
      [...widget.querySelectorAll("button")].find((b) => /^stop$/i.test(b.textContent.trim()))?.click();
    }
  }
  report.doneAt = now();
  return report;
};
