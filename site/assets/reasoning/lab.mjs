// The reasoning lab (site/reasoning/index.md). The page places it with an empty element:
//
//   <div class="lllm-reasoning-lab"></div>
//
// "Run" sends {kind: "run", task, puzzle, framework, error_rate, value_noise, seed, model} to
// lllm.labs.reasoning_bench.benchmark.lab_json in the page's Python and replays the run's tree node by node
// as an accessible tree you open with the keyboard (../runtime/tree.mjs), each line the label
// lllm/reasoning/search_tree.py gives it (`python -m lllm reason --tree` prints the same lines);
// Graph of Thoughts is also drawn as a graph (merged thoughts have several parents) and RAP as a
// tree whose circles grow with visits. "Benchmark" draws success (with its 95% interval) against
// model calls, with the tokens each framework spent; "Sweep" shows success as the stand-in's value
// judgments get noisier. The Python is the same code `python -m lllm reason` runs. For tests, the
// last result is on the element (`element.lllmResult`); `element.dataset.state` is
// idle | running | done | error | recorded (where Python cannot start, Run's recording plays: recorded.mjs).

import { lllm } from "../runtime/lllm.mjs";
import { el, field, input, pct, select, svgCanvas, table } from "../runtime/dom.mjs";
import { playRecorded } from "../runtime/recorded.mjs";
import { treeView } from "../runtime/tree.mjs";

const NAMESPACE = "lllm-reasoning-lab";
const FRAMEWORKS = ["io", "cot", "cot-sc", "react", "reflexion", "tot-bfs", "tot-dfs", "got", "rap", "foa"];
// The menu's words; the values (and the table's and chart's short names) are the CLI's `--framework` names.
const FRAMEWORK_NAMES = {
  io: "Input–output, one call", cot: "Chain of thought", "cot-sc": "Chain of thought, self-consistency",
  react: "ReAct: think, act, observe", reflexion: "Reflexion: retry after a self-critique",
  "tot-bfs": "Tree of thoughts, breadth-first", "tot-dfs": "Tree of thoughts, depth-first",
  got: "Graph of thoughts", rap: "RAP: Monte-Carlo tree search", foa: "Fleet of agents",
};
const TASK_FRAMEWORKS = { game24: FRAMEWORKS, brookfield: ["io", "cot", "react", "reflexion", "tot-bfs"] };
const STYLE = `
.lllm-reasoning-lab { margin: 1em 0 1.5em; padding: 0.8em 1em; border-left: 3px solid var(--md-accent-fg-color); background: var(--md-code-bg-color); font-size: 0.75rem; }
.lllm-reasoning-lab__controls { display: flex; flex-wrap: wrap; gap: 0.5em 1em; align-items: center; }
.lllm-reasoning-lab input[type="number"] { width: 5em; }
.lllm-reasoning-lab__buttons { display: flex; gap: 0.5em; align-items: center; margin: 0.6em 0; }
.lllm-reasoning-lab__buttons .md-button { padding: 0.2em 1em; font-size: 0.75rem; }
.md-typeset .lllm-reasoning-lab__tree { font-family: var(--md-code-font-family, monospace); }
.lllm-reasoning-lab svg { max-width: 640px; display: block; }
.lllm-reasoning-lab__node--pruned > span { font-style: italic; }
.lllm-reasoning-lab__node--invalid > span { text-decoration: underline wavy #c62828; }
.lllm-reasoning-lab__node--solved > span { text-decoration: underline #2e7d32; }
.lllm-reasoning-lab__node--path > span { font-weight: 700; box-shadow: inset 3px 0 0 var(--md-accent-fg-color); }
.lllm-reasoning-lab__verdict { font-weight: 600; margin-top: 0.5em; }
.lllm-reasoning-lab__error { color: #c62828; font-weight: 600; }
.lllm-reasoning-lab__note { font-style: italic; }
.lllm-reasoning-lab svg text { font-size: 10px; fill: currentColor; }
.lllm-reasoning-lab select { max-width: 100%; }
.md-typeset .lllm-reasoning-lab__output table:not([class]) { font-size: 0.64rem; }
.md-typeset .lllm-reasoning-lab__output table:not([class]) :is(th, td) { min-width: 0; padding: 0.4em 0.5em; }`;

const numberInput = (name, value, min, max, step) => input(name, value, { type: "number", min, max, step });
const interval = (s) => `${(100 * s.low).toFixed(0)}–${(100 * s.high).toFixed(0)}%`;

// ---- the search tree, grown node by node (an accessible tree: ../runtime/tree.mjs) ----------------

function nodeClass(node, record) {
  if (node.left.startsWith("invalid")) return "invalid";
  if (node.note === "pruned") return "pruned";
  if (record.verification.correct && node.steps.join() === record.steps.join()) return "solved";
  return "kept";
}

function nodeText(node) {
  const last = node.steps.length ? node.steps[node.steps.length - 1] : `${node.left === "(nothing looked up yet)" ? "question" : "puzzle " + node.left}`;
  const value = node.value === null ? "" : `  value ${Number(node.value.toPrecision(6))}`;
  const notes = [];
  if (node.left.startsWith("invalid")) notes.push(node.left);
  else if (node.note && node.note !== "root") notes.push(node.note);
  if (node.visits) notes.push(`visits ${node.visits}`);
  if (node.merged.length) notes.push(`also from ${node.merged.map((m) => "#" + m).join(", ")}`);
  return `#${node.id} ${last}${value}${notes.length ? `  [${notes.join("; ")}]` : ""}`;
}

/** The run's search tree (lllm/reasoning/search_tree.py: the labels `reason --tree` prints), grown in
 * the order the framework made its nodes; the path to the answer starts open and says so in words. */
async function growTree(record, output, isCurrent) {
  const view = treeView(`Search tree of ${record.framework} on ${record.puzzle}`, { className: "lllm-reasoning-lab__tree" });
  output.append(el("p", { class: "lllm-reasoning-lab__legend" },
    "Search tree: each line is a state with its value, the framework's note and the verifier's verdict. " +
    "The lines marked “on the answer path” lead from the puzzle to the answer. Arrow keys move and open; Enter opens or closes."));
  output.append(view.element);
  const delay = Math.min(60, 3000 / Math.max(1, record.search.length));
  for (const node of [...record.search].sort((a, b) => a.id - b.id)) {
    if (!isCurrent()) return;            // a newer run started: stop drawing this one
    const kind = nodeClass(record.tree[node.id], record);
    view.add({ id: node.id, parent: node.parent, text: node.label, open: node.on_path || node.parent === null,
               className: `lllm-reasoning-lab__node lllm-reasoning-lab__node--${kind}${node.on_path ? " lllm-reasoning-lab__node--path" : ""}` });
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  const v = record.verification, u = record.usage;
  output.append(el("p", { class: "lllm-reasoning-lab__verdict" },
    `${v.correct ? "correct" : "wrong"}: ${v.message} — ${u.calls} model calls, ${u.hits} cache hits, ` +
    `${u.tokens_in} ${u.unit} in, ${u.tokens_out} out`));
}

// ---- GoT's graph and RAP's tree, drawn by depth ---------------------------------------------------

function searchPicture(record) {
  const depth = new Map(), rows = [];
  for (const node of record.tree) {
    const d = node.parent === null ? 0 : depth.get(node.parent) + 1;
    depth.set(node.id, d);
    (rows[d] ??= []).push(node);
  }
  const W = 640, rowH = 56, H = rows.length * rowH + 10;
  const { svg, add } = svgCanvas({ viewBox: `0 0 ${W} ${H}`, width: "100%", class: "lllm-reasoning-lab__picture" });
  const at = new Map();
  rows.forEach((row, d) => row.forEach((node, i) => at.set(node.id, { x: ((i + 0.5) * W) / row.length, y: 20 + d * rowH })));
  for (const node of record.tree) {
    const to = at.get(node.id);
    for (const p of [node.parent, ...node.merged]) {
      if (p === null) continue;
      const from = at.get(p);
      add("line", { x1: from.x, y1: from.y, x2: to.x, y2: to.y, stroke: "currentColor", "stroke-opacity": p === node.parent ? 0.5 : 0.9,
                    "stroke-dasharray": p === node.parent ? "" : "3 2", class: p === node.parent ? "" : "lllm-reasoning-lab__merge" });
    }
  }
  const colour = { solved: "#2e7d32", invalid: "#c62828", pruned: "#9e9e9e", kept: "var(--md-accent-fg-color)" };
  for (const node of record.tree) {
    const { x, y } = at.get(node.id);
    const r = record.framework === "rap" ? 3 + 2 * Math.sqrt(node.visits) : 4;
    const dot = add("circle", { cx: x, cy: y, r, fill: colour[nodeClass(node, record)], class: "lllm-reasoning-lab__vertex" });
    dot.append(Object.assign(document.createElementNS("http://www.w3.org/2000/svg", "title"), { textContent: nodeText(node) }));
    if (rows[depth.get(node.id)].length <= 8) add("text", { x: x + r + 2, y: y + 3 }, node.left.startsWith("invalid") ? "×" : node.left.slice(0, 14));
  }
  return svg;
}

// ---- the benchmark: success (with its interval) against calls ------------------------------------

function chart(summary) {
  const W = 440, H = 220, L = 40, B = 30, T = 10, R = 100;
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
    add("line", { x1: px, y1: y(s.low), x2: px, y2: y(s.high), stroke: "currentColor", class: "lllm-reasoning-lab__interval" });
    add("circle", { cx: px, cy: py, r: 4, fill: "var(--md-accent-fg-color)", class: "lllm-reasoning-lab__point" });
    const near = labels.find((l) => Math.abs(l.x - px) < 24 && Math.abs(l.y - py) < 8);
    if (near) near.names.push(s.framework);
    else labels.push({ names: [s.framework], x: px, y: py, success: s.success });
  }
  for (const { names, x: px, y: py, success } of labels) {
    add("text", { x: px + 6, y: py + 3, class: "lllm-reasoning-lab__label", "data-x": px, "data-y": py }, `${names.join(", ")} ${(100 * success).toFixed(0)}%`);
  }
  return svg;
}

/** Once the chart is in the page (text has a size only then): move each point's label down until it
 * overlaps no other text, to the point's left if it would leave the chart, with a line back to its
 * point when moved; the chart grows taller if the labels need it. Works in the chart's own units, so
 * it holds at any width. */
function separateLabels(svg) {
  const W = svg.viewBox.baseVal.width;
  let H = svg.viewBox.baseVal.height;
  const placed = [...svg.querySelectorAll("text:not(.lllm-reasoning-lab__label)")].map((t) => t.getBBox());
  const hits = (b) => placed.find((p) => b.x < p.x + p.width && p.x < b.x + b.width && b.y < p.y + p.height && p.y < b.y + b.height);
  const labels = [...svg.querySelectorAll(".lllm-reasoning-lab__label")].sort((a, b) => a.getBBox().y - b.getBBox().y);
  for (const label of labels) {
    const px = Number(label.dataset.x), py = Number(label.dataset.y);
    let box = label.getBBox();
    if (box.x + box.width > W) {
      label.setAttribute("text-anchor", "end");
      label.setAttribute("x", px - 6);
      box = label.getBBox();
    }
    for (let hit = hits(box); hit; hit = hits(box)) {
      label.setAttribute("y", Number(label.getAttribute("y")) + hit.y + hit.height - box.y + 1);
      box = label.getBBox();
    }
    placed.push(box);
    H = Math.max(H, box.y + box.height + 2);
    if (box.y > py) {
      const leader = document.createElementNS("http://www.w3.org/2000/svg", "line");
      const lx = label.getAttribute("text-anchor") === "end" ? box.x + box.width : box.x;
      for (const [k, v] of Object.entries({ x1: px, y1: py, x2: lx, y2: box.y + box.height / 2, stroke: "currentColor", "stroke-opacity": 0.35 })) leader.setAttribute(k, v);
      svg.insertBefore(leader, label);
    }
  }
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
}

function summaryTable(summary) {
  const unit = summary[0]?.unit ?? "chars";
  // Five columns, each able to wrap, so the whole table fits a 390 px phone without scrolling sideways.
  return table(["framework", "success (95% interval)", "calls per puzzle", "cache hits per puzzle", `${unit} in / out`],
    summary.map((s) => [s.framework, `${pct(s.success)} (${interval(s)})`, s.calls.toFixed(1), s.hits.toFixed(1),
                        `${s.tokens_in.toFixed(0)} / ${s.tokens_out.toFixed(0)}`]));
}

function sweepTable(result) {
  return table(["framework", ...result.levels.map((v) => `value noise ${v}`)],
    Object.entries(result.sweep).map(([name, ss]) => [name, ...ss.map((s) => `${pct(s.success)} (${interval(s)})`)]));
}

// ---- running ---------------------------------------------------------------------------------------

function standInNote(params) {
  return params.model === "tinyllm" ? "Model: TinyLLM in this page (counted in characters)."
    : "Model: the stand-in — a program that errs at the set rates, not an LLM; these numbers are the stand-in's.";
}

async function ask(root, params, status, output) {
  const ticket = (root.lllmTicket = (root.lllmTicket ?? 0) + 1);
  root.dataset.state = "running";
  root.lllmResult = null;
  output.replaceChildren();
  status.textContent = lllm.status.pythonReady ? "running…" : "loading Python…";
  try {
    // The page's TinyLLM, resolved by the same make_predictor as `--predictor tinyllm` in a terminal.
    const tinyllm = params.model === "tinyllm"
      ? ', tinyllm=lambda seed: make_predictor("tinyllm", temperature=0.8, seed=seed, models=browser_models())' : "";
    const code = "from lllm.labs.reasoning_bench.benchmark import lab_json\nfrom lllm.predictors import make_predictor\n" +
      "from lllm.web.demos import browser_models\n" +
      `print(lab_json(${JSON.stringify(JSON.stringify(params))}${tinyllm}))`;
    const result = JSON.parse((await lllm.run(code, { namespace: NAMESPACE })).stdout.trim().split("\n").pop());
    root.lllmResult = result;
    status.textContent = "";
    if (!result.ok) throw Object.assign(new Error(result.error), { name: "BadInput" });
    output.append(el("p", { class: "lllm-reasoning-lab__note" }, standInNote(params)));
    if (params.kind === "run") {
      if (["got", "rap"].includes(result.framework)) output.append(searchPicture(result));
      await growTree(result, output, () => root.lllmTicket === ticket);
    } else if (params.kind === "sweep") output.append(sweepTable(result));
    else {
      const picture = chart(result.summary);
      output.append(summaryTable(result.summary), picture);
      separateLabels(picture);
    }
    if (root.lllmTicket === ticket) root.dataset.state = "done";
    root.dispatchEvent(new CustomEvent("lllm:ran", { bubbles: true, detail: { widget: "reasoning-lab" } }));   // the course counts it
  } catch (error) {
    status.textContent = "";
    if (await playRecorded(root, params, error, output, (out, recorded) => recordedRun(out, recorded, () => root.lllmTicket === ticket))) return;
    output.replaceChildren(el("p", { class: "lllm-reasoning-lab__error" },
      error.name === "BadInput" ? error.message : `The lab could not run: ${error.message}`));
    root.dataset.state = "error";
  }
}

/** The Run recorded at build time (hooks/recorded.py), drawn as a live run is: played where Python cannot start. */
function recordedRun(result, params, alive) {
  const box = el("div");
  box.append(el("p", { class: "lllm-reasoning-lab__note" }, standInNote(params)));
  if (["got", "rap"].includes(result.framework)) box.append(searchPicture(result));
  growTree(result, box, alive);
  return [box];
}

function setUp(root) {
  if (root.dataset.lllmLab) return;      // document$ fires again on instant navigation
  root.dataset.lllmLab = "1";
  root.dataset.state = "idle";
  const task = select("task", Object.keys(TASK_FRAMEWORKS), "game24");
  const model = select("model", ["stand-in", "tinyllm"], "stand-in");
  const puzzle = numberInput("puzzle", 900, 0, 1361, 1);
  const framework = select("framework", FRAMEWORKS.map((f) => [f, `${FRAMEWORK_NAMES[f]} (${f})`]), "got");
  const rate = numberInput("error_rate", 0.5, 0, 1, 0.1);
  const noise = numberInput("value_noise", 0.5, 0, 1, 0.1);
  const seed = numberInput("seed", 1, 0, 1000000, 1);
  const limit = numberInput("limit", 10, 1, 100, 1);
  task.addEventListener("change", () => { puzzle.value = task.value === "game24" ? "900" : "1"; });
  const controls = el("div", { class: "lllm-reasoning-lab__controls" });
  controls.append(field("task", task), field("model", model), field("puzzle row", puzzle), field("framework", framework),
                  field("error rate", rate), field("value noise", noise), field("seed", seed), field("benchmark puzzles", limit));
  const run = el("button", { class: "md-button md-button--primary lllm-reasoning-lab__run" }, "Run");
  const bench = el("button", { class: "md-button lllm-reasoning-lab__bench" }, "Benchmark");
  const sweep = el("button", { class: "md-button lllm-reasoning-lab__sweep" }, "Sweep value noise");
  run.type = bench.type = sweep.type = "button";
  const status = el("span", { class: "lllm-reasoning-lab__status" });
  const buttons = el("div", { class: "lllm-reasoning-lab__buttons" });
  buttons.append(run, bench, sweep, status);
  const output = el("div", { class: "lllm-reasoning-lab__output" });
  root.replaceChildren(controls, buttons, output);
  const common = () => ({ task: task.value, model: model.value, error_rate: Number(rate.value), value_noise: Number(noise.value) });
  run.addEventListener("click", () => ask(root, { kind: "run", ...common(), puzzle: Number(puzzle.value),
    framework: framework.value, seed: Number(seed.value) }, status, output));
  bench.addEventListener("click", () => ask(root, { kind: "benchmark", ...common(), frameworks: TASK_FRAMEWORKS[task.value],
    limit: Number(limit.value), seeds: 1 }, status, output));
  sweep.addEventListener("click", () => ask(root, { kind: "sweep", ...common(), model: "stand-in",
    frameworks: ["io", "tot-bfs", "got", "rap"], limit: Number(limit.value) }, status, output));
}

function setUpPage() {
  const labs = document.querySelectorAll(".lllm-reasoning-lab");
  if (labs.length && !document.getElementById("lllm-reasoning-lab-style")) {
    document.head.append(Object.assign(el("style", {}, STYLE), { id: "lllm-reasoning-lab-style" }));
  }
  labs.forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
setUpPage();
