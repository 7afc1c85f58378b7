// The reasoning lab (site/reasoning/index.md). The page places it with an empty element:
//
//   <div class="lllm-reasoning-lab"></div>
//
// "Run" sends {kind: "run", puzzle, framework, error_rate, seed} to lllm.reasoning.bench.lab_json
// in the page's Python and replays the run's tree node by node, in the order the framework made
// them (kept, pruned, rejected, solved). "Benchmark" sends {kind: "benchmark", frameworks, limit,
// seeds, error_rate} and draws success against model calls. The Python is the same code
// `python -m lllm reason` runs. For tests, the last result is on the element (`element.lllmResult`)
// and `element.dataset.state` is idle | running | done | error.

import { lllm } from "../runtime/lllm.mjs";
import { el, field, svgCanvas } from "../runtime/dom.mjs";

const NAMESPACE = "lllm-reasoning-lab";
const FRAMEWORKS = ["io", "cot", "cot-sc", "react", "reflexion", "tot-bfs", "tot-dfs", "foa"];
const STYLE = `
.lllm-reasoning-lab { margin: 1em 0 1.5em; padding: 0.8em 1em; border-left: 3px solid var(--md-accent-fg-color); background: var(--md-code-bg-color); font-size: 0.75rem; }
.lllm-reasoning-lab__controls { display: flex; flex-wrap: wrap; gap: 0.5em 1em; align-items: center; }
.lllm-reasoning-lab input[type="number"] { width: 5em; }
.lllm-reasoning-lab__buttons { display: flex; gap: 0.5em; align-items: center; margin: 0.6em 0; }
.lllm-reasoning-lab__buttons .md-button { padding: 0.2em 1em; font-size: 0.75rem; }
.md-typeset .lllm-reasoning-lab__tree, .md-typeset .lllm-reasoning-lab__tree ul { list-style: none; margin: 0 0 0 1.2em; padding: 0; font-family: var(--md-code-font-family, monospace); }
.md-typeset .lllm-reasoning-lab__tree { margin-left: 0; }
.md-typeset .lllm-reasoning-lab__tree li { list-style: none; margin: 0.1em 0; padding: 0; }
.lllm-reasoning-lab svg { max-width: 560px; display: block; }
.lllm-reasoning-lab__node--pruned > span { color: var(--md-default-fg-color--light); text-decoration: line-through; }
.lllm-reasoning-lab__node--invalid > span { color: #c62828; }
.lllm-reasoning-lab__node--solved > span { font-weight: 700; color: #2e7d32; }
.lllm-reasoning-lab__verdict { font-weight: 600; margin-top: 0.5em; }
.lllm-reasoning-lab__error { color: #c62828; font-weight: 600; }
.lllm-reasoning-lab svg text { font-size: 10px; fill: currentColor; }`;



function numberInput(name, value, min, max, step) {
  return Object.assign(el("input"), { name, type: "number", value: String(value), min, max, step });
}

// ---- the search tree, grown node by node --------------------------------------------------------

function nodeClass(node, record) {
  if (node.left.startsWith("invalid")) return "invalid";
  if (node.note === "pruned") return "pruned";
  if (record.verification.correct && node.left === "24" && node.steps.join() === record.steps.join()) return "solved";
  return "kept";
}

function nodeText(node) {
  const last = node.steps.length ? node.steps[node.steps.length - 1] : `puzzle ${node.left}`;
  const value = node.value === null ? "" : `  value ${Number(node.value.toPrecision(6))}`;
  const note = node.left.startsWith("invalid") ? `  [${node.left}]` : node.note && node.note !== "root" ? `  [${node.note}]` : "";
  return last + value + note;
}

async function growTree(record, output, isCurrent) {
  const tree = el("ul", "lllm-reasoning-lab__tree");
  const children = new Map();            // node id -> its <ul>
  output.replaceChildren(tree);
  const delay = Math.min(80, 4000 / Math.max(1, record.tree.length));
  for (const node of record.tree) {
    if (!isCurrent()) return;            // a newer run started: stop drawing this one
    const item = el("li", `lllm-reasoning-lab__node lllm-reasoning-lab__node--${nodeClass(node, record)}`);
    item.append(el("span", "", nodeText(node)));
    const sub = el("ul");
    item.append(sub);
    children.set(node.id, sub);
    (node.parent === null ? tree : children.get(node.parent) ?? tree).append(item);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  const v = record.verification;
  output.append(el("p", "lllm-reasoning-lab__verdict",
    `${v.correct ? "correct" : "wrong"}: ${v.message} — ${record.usage.calls} model calls, ${record.usage.hits} cache hits`));
}

// ---- the benchmark, drawn as success against calls ----------------------------------------------

function chart(summary) {
  const W = 420, H = 220, L = 40, B = 30, T = 10, R = 90;
  const { svg, add } = svgCanvas({ viewBox: `0 0 ${W} ${H}`, width: "100%" });
  const top = Math.max(10, ...summary.map((s) => s.calls));
  const x = (calls) => L + (Math.log10(Math.max(1, calls)) / Math.log10(top)) * (W - L - R);
  const y = (success) => T + (1 - success) * (H - T - B);
  add("line", { x1: L, y1: y(0), x2: W - R, y2: y(0), stroke: "currentColor" });
  add("line", { x1: L, y1: y(0), x2: L, y2: y(1), stroke: "currentColor" });
  add("text", { x: 2, y: y(1) + 4 }, "100%");
  add("text", { x: 12, y: y(0) + 4 }, "0%");
  add("text", { x: L, y: H - 8 }, "1 call");
  add("text", { x: W - R - 60, y: H - 8 }, `${Math.round(top)} calls per puzzle`);
  const labels = [];                     // frameworks at (nearly) the same spot share one label
  for (const s of summary) {
    const px = x(s.calls), py = y(s.success);
    add("circle", { cx: px, cy: py, r: 4, fill: "var(--md-accent-fg-color)", class: "lllm-reasoning-lab__point" });
    const near = labels.find((l) => Math.abs(l.x - px) < 24 && Math.abs(l.y - py) < 8);
    if (near) near.names.push(s.framework);
    else labels.push({ names: [s.framework], x: px, y: py, success: s.success });
  }
  for (const { names, x: px, y: py, success } of labels) {
    add("text", { x: px + 6, y: py + 3 }, `${names.join(", ")} ${(100 * success).toFixed(0)}%`);
  }
  return svg;
}

function summaryTable(summary) {
  const table = el("table");
  const head = el("tr");
  ["framework", "success", "± spread", "calls/puzzle", "hits/puzzle"].forEach((h) => head.append(el("th", "", h)));
  table.append(head);
  for (const s of summary) {
    const row = el("tr");
    [s.framework, `${(100 * s.success).toFixed(1)}%`, `${(100 * s.spread).toFixed(1)}%`, s.calls.toFixed(1), s.hits.toFixed(1)]
      .forEach((c) => row.append(el("td", "", c)));
    table.append(row);
  }
  return table;
}

// ---- running ---------------------------------------------------------------------------------------

async function ask(root, params, status, output) {
  const ticket = (root.lllmTicket = (root.lllmTicket ?? 0) + 1);
  root.dataset.state = "running";
  root.lllmResult = null;
  output.replaceChildren();
  status.textContent = lllm.status.state === "ready" ? "running…" : "loading Python…";
  try {
    const code = `from lllm.reasoning.bench import lab_json\nprint(lab_json(${JSON.stringify(JSON.stringify(params))}))`;
    const result = JSON.parse((await lllm.run(code, { namespace: NAMESPACE })).stdout.trim().split("\n").pop());
    root.lllmResult = result;
    status.textContent = "";
    if (!result.ok) throw Object.assign(new Error(result.error), { name: "BadInput" });
    if (params.kind === "run") await growTree(result, output, () => root.lllmTicket === ticket);
    else output.replaceChildren(summaryTable(result.summary), chart(result.summary));
    if (root.lllmTicket === ticket) root.dataset.state = "done";
  } catch (error) {
    status.textContent = "";
    output.replaceChildren(el("p", "lllm-reasoning-lab__error",
      error.name === "BadInput" ? error.message : `The lab could not run: ${error.message}`));
    root.dataset.state = "error";
  }
}

function setUp(root) {
  if (root.dataset.lllmLab) return;      // document$ fires again on instant navigation
  root.dataset.lllmLab = "1";
  root.dataset.state = "idle";
  const puzzle = numberInput("puzzle", 900, 0, 1361, 1);
  const framework = Object.assign(el("select"), { name: "framework" });
  FRAMEWORKS.forEach((f) => framework.append(Object.assign(el("option", "", f), { value: f })));
  framework.value = "tot-bfs";
  const rate = numberInput("error_rate", 0.5, 0, 1, 0.1);
  const seed = numberInput("seed", 1, 0, 1000000, 1);
  const limit = numberInput("limit", 10, 1, 100, 1);
  const controls = el("div", "lllm-reasoning-lab__controls");
  controls.append(field("puzzle row", puzzle), field("framework", framework), field("error rate", rate),
                  field("seed", seed), field("benchmark puzzles", limit));
  const run = el("button", "md-button md-button--primary lllm-reasoning-lab__run", "Run");
  const bench = el("button", "md-button lllm-reasoning-lab__bench", "Benchmark");
  run.type = bench.type = "button";
  const status = el("span", "lllm-reasoning-lab__status");
  const buttons = el("div", "lllm-reasoning-lab__buttons");
  buttons.append(run, bench, status);
  const output = el("div", "lllm-reasoning-lab__output");
  root.replaceChildren(controls, buttons, output);
  run.addEventListener("click", () => ask(root, { kind: "run", puzzle: Number(puzzle.value), framework: framework.value,
    error_rate: Number(rate.value), seed: Number(seed.value) }, status, output));
  bench.addEventListener("click", () => ask(root, { kind: "benchmark", frameworks: FRAMEWORKS, limit: Number(limit.value),
    seeds: 1, error_rate: Number(rate.value) }, status, output));
}

function setUpPage() {
  const labs = document.querySelectorAll(".lllm-reasoning-lab");
  if (labs.length && !document.getElementById("lllm-reasoning-lab-style")) {
    document.head.append(Object.assign(el("style", "", STYLE), { id: "lllm-reasoning-lab-style" }));
  }
  labs.forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
setUpPage();
