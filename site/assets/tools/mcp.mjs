// The tool-calls page's MCP widget: the ReAct agent in this page, with the tools of an MCP server on
// the reader's own computer. Read mcp-client.mjs (the page's MCP client) and lllm/web/page_tools.py
// (the agent's side) first.
//
// The reader gives the server's address and presses "List tools": the client opens a session
// (`initialize`) and lists the tools (`tools/list`), shown here with their arguments. "Run" starts
// Python (the page's Pyodide runtime, TinyLLM in its own worker as for every demo) and runs the
// goal with those tools: each call the model asks for is sent to the server from this page
// (`tools/call`), and the trace marks which observations came back from it. The MCP client loads on
// the first press, not with the page. Every failure is one sentence under the buttons.
//
//   <div class="lllm-mcp" data-goal="What is 17 * 23?"></div>      (site/agents/tool-calls.md)
//   root.dataset.state: idle | listing | listed | running | done | error; root.lllmResult: run_json's answer

import { lllm } from "../runtime/lllm.mjs";
import { el, field, input } from "../runtime/dom.mjs";

const DEFAULT_URL = "http://127.0.0.1:8765/mcp";
let client = null; // Promise of mcp-client.mjs, on the first press

const mcpClient = () => (client ??= import("./mcp-client.mjs"));

function command(url) {
  let port = "8765";
  try {
    port = new URL(url).port || "80";
  } catch {
    /* the default until it parses */
  }
  return `python -m lllm mcp --http --port ${port} --allow-origin ${location.origin}`;
}

function pythonFor(params) {
  // The params travel as a JSON string inside a Python string literal: JSON string syntax is valid Python.
  return [
    "from lllm.web import page_tools",
    `print(page_tools.run_json(${JSON.stringify(JSON.stringify(params))}, models=page_tools.browser_models()))`,
  ].join("\n");
}

// ---- drawing what came back ----------------------------------------------------------------------

function toolList(tools) {
  return el(
    "ul",
    { class: "lllm-mcp__tools", "aria-label": "the server's tools" },
    tools.map((tool) =>
      el(
        "li",
        {},
        el("code", {}, `${tool.name}(${Object.keys(tool.inputSchema?.properties ?? {}).join(", ")})`),
        tool.description ? ` ${tool.description.split("\n")[0]}` : "",
      ),
    ),
  );
}

function callList(calls) {
  return el(
    "ol",
    { class: "lllm-demo__steps lllm-mcp__calls", "aria-label": "the calls this page sent to the MCP server" },
    calls.map((call) =>
      el(
        "li",
        { class: "lllm-mcp__call" },
        el("code", {}, `tools/call ${call.name} ${JSON.stringify(call.arguments)}`),
        " → ",
        "error" in call ? el("span", { class: "lllm-demo__error" }, call.error) : el("code", {}, call.result),
      ),
    ),
  );
}

function steps(trajectory, sent) {
  return el(
    "ol",
    { class: "lllm-demo__steps" },
    trajectory.steps.map((step, i) => {
      const rows = [];
      if (step.thought) rows.push(["thought", step.thought]);
      if (step.action) rows.push(["action", `${step.action[0]}[${step.action[1]}]`]);
      if (step.observation) rows.push([sent.includes(i) ? "the server's answer" : "observation", step.observation]);
      if (step.final !== null && step.final !== undefined) rows.push(["final answer", step.final]);
      return el(
        "li",
        { class: "lllm-demo__step" },
        el("div", { class: "lllm-demo__step-title" }, `step ${i + 1}: ${step.outcome}`),
        rows.map(([label, text]) =>
          el("div", { class: "lllm-demo__row" }, el("span", { class: "lllm-demo__label" }, label), el("code", {}, text)),
        ),
      );
    }),
  );
}

function result(out) {
  const t = out.trajectory;
  return [
    el(
      "p",
      { class: "lllm-demo__answer" },
      t.answer === null ? `Stopped without an answer (${t.stop_reason}).` : `Final answer: ${t.answer}`,
    ),
    steps(t, out.sent),
    el(
      "p",
      { class: "lllm-demo__note" },
      out.calls.length
        ? `${out.calls.length} call${out.calls.length > 1 ? "s" : ""} went to the MCP server:`
        : "No call went to the MCP server.",
    ),
    out.calls.length ? callList(out.calls) : null,
    el(
      "details",
      { class: "lllm-demo__terminal" },
      el("summary", {}, "the trace, as python -m lllm react --tools-from URL --verbose prints it"),
      el("pre", {}, out.trace),
    ),
  ];
}

// ---- the widget ------------------------------------------------------------------------------------

function setUp(root) {
  if (root.dataset.state) return;
  root.dataset.state = "idle";
  const url = input("mcp_url", DEFAULT_URL, { type: "text", size: 28, spellcheck: false });
  const goal = input("goal", root.dataset.goal ?? "What is 17 * 23?", { type: "text", size: 28 });
  const list = el("button", { type: "button", class: "md-button lllm-mcp__list" }, "List tools");
  const go = el("button", { type: "button", class: "md-button md-button--primary lllm-demo__run" }, "Run");
  const stop = el("button", { type: "button", class: "md-button lllm-demo__stop", hidden: true }, "Stop");
  const hint = el("code", { class: "lllm-mcp__command" }, command(DEFAULT_URL));
  const status = el("p", { class: "lllm-demo__status", role: "status" });
  const tools = el("div", { class: "lllm-mcp__listed" });
  const output = el("div", { class: "lllm-demo__output", "aria-live": "polite" });
  let listed = null; // {url, tools} once the server has listed them

  const fail = (message) => {
    output.replaceChildren(el("p", { class: "lllm-demo__error" }, message));
    status.textContent = "";
    root.dataset.state = "error";
  };
  const listTools = async () => {
    root.dataset.state = "listing";
    status.textContent = "Asking the server for its tools…";
    const address = url.value.trim();
    const { listTools: ask } = await mcpClient();
    const found = await ask(address);
    listed = { url: address, tools: found };
    tools.replaceChildren(
      el("p", { class: "lllm-demo__note" }, `${address} lists ${found.length} tool${found.length === 1 ? "" : "s"}:`),
      toolList(found),
    );
    status.textContent = "";
    root.dataset.state = "listed";
  };
  url.addEventListener("input", () => {
    hint.textContent = command(url.value);
    listed = null;
    tools.replaceChildren();
  });
  list.addEventListener("click", () => {
    output.replaceChildren();
    listTools().catch((e) => fail(e.message));
  });
  stop.addEventListener("click", () => lllm.stop());
  go.addEventListener("click", async () => {
    go.disabled = list.disabled = true;
    output.replaceChildren();
    root.lllmResult = null;
    const unsubscribe = lllm.onStatus((s) => {
      if (s.state === "loading") status.textContent = lllm.describe(s);
    });
    const heard = ({ detail }) => {
      if (detail.kind === "call") status.textContent = `sending tools/call ${detail.name} to the server…`;
    };
    window.addEventListener("lllm:mcp", heard);
    try {
      if (!listed || listed.url !== url.value.trim()) await listTools();
      root.dataset.state = "running";
      stop.hidden = false;
      status.textContent = "running…";
      const params = { url: listed.url, tools: listed.tools, goal: goal.value, brain: "tinyllm-agent" };
      const ran = await lllm.run(pythonFor(params), { namespace: "mcp-widget" });
      const out = JSON.parse(ran.stdout.trim().split("\n").pop());
      root.lllmResult = out;
      if (!out.trajectory) return fail(out.error);
      output.replaceChildren(...result(out));
      if (!out.ok) output.prepend(el("p", { class: "lllm-demo__error" }, out.error));
      status.textContent = "";
      root.dataset.state = out.ok ? "done" : "error";
    } catch (e) {
      fail(
        e.name === "Stopped"
          ? "Stopped. (Python was restarted.)"
          : e.name === "McpError"
            ? e.message
            : `The agent could not run: ${e.message}`,
      );
    } finally {
      unsubscribe();
      window.removeEventListener("lllm:mcp", heard);
      go.disabled = list.disabled = false;
      stop.hidden = true;
    }
  });
  root.replaceChildren(
    el(
      "div",
      { class: "lllm-demo__controls" },
      field("MCP server", url, "lllm-demo__field lllm-demo__field--wide"),
      el("p", { class: "lllm-demo__note" }, "Start it first, in a terminal: ", hint),
      field("goal", goal, "lllm-demo__field lllm-demo__field--wide"),
    ),
    el("div", { class: "lllm-demo__buttons" }, list, go, stop, status),
    tools,
    output,
  );
}

function setUpPage() {
  document.querySelectorAll(".lllm-mcp").forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
