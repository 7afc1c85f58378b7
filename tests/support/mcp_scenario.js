// The tool-calls page's MCP widget (site/assets/tools/mcp.mjs), one engine: list the tools of a
// real `lllm mcp --http` server, run the goal with them, and the failures a reader can meet.
async ({ url, refusing, stopped, goal, failing, timeoutMs }) => {
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  const widget = async () => {
    for (let waited = 0; !document.querySelector(".lllm-mcp [name=mcp_url]"); waited += 50) {
      if (waited > 60000) throw new Error("the MCP widget was not drawn within 60 s");
      await wait(50);
    }
    return document.querySelector(".lllm-mcp");
  };
  const root = await widget();
  const settle = async (states) => {
    for (let waited = 0; !states.includes(root.dataset.state); waited += 100) {
      if (waited > timeoutMs) throw new Error(`the widget stayed "${root.dataset.state}" for ${timeoutMs / 1000} s`);
      await wait(100);
    }
    return root.dataset.state;
  };
  const error = () => root.querySelector(".lllm-demo__error")?.textContent ?? null;
  const press = async (button, address, states, goalText = goal) => {
    root.querySelector("[name=mcp_url]").value = address;
    root.querySelector("[name=mcp_url]").dispatchEvent(new Event("input"));
    root.querySelector("[name=goal]").value = goalText;
    root.dataset.state = "pressed";
    root.querySelector(button).click();
    return settle(states);
  };
  const report = { loaded: [...performance.getEntriesByType("resource")].some((e) => e.name.includes("mcp-client.mjs")) };
  report.wrong = { state: await press(".lllm-mcp__list", "https://example.com/mcp", ["listed", "error"]), error: error() };
  report.refusing = { state: await press(".lllm-mcp__list", refusing, ["listed", "error"]), error: error() };
  report.stopped = { state: await press(".lllm-mcp__list", stopped, ["listed", "error"]), error: error() };
  report.listed = {
    state: await press(".lllm-mcp__list", url, ["listed", "error"]),
    error: error(),
    tools: [...root.querySelectorAll(".lllm-mcp__tools li code")].map((c) => c.textContent),
  };
  report.run = {
    state: await press(".lllm-demo__run", url, ["done", "error"]),
    error: error(),
    result: root.lllmResult,
    marked: [...root.querySelectorAll(".lllm-demo__label")].map((l) => l.textContent).filter((t) => t === "the server's answer").length,
  };
  report.failing = { state: await press(".lllm-demo__run", url, ["done", "error"], failing), error: error(), result: root.lllmResult };
  return report;
};
