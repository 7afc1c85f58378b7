// The reasoning lab's pictures (read lab.mjs first): a run's search tree grown node by node, Graph of
// Thoughts' graph and RAP's tree drawn by depth, and the benchmark's chart of success against model calls
// with its tables.

import { el, pct, svgCanvas, table } from "../runtime/dom.mjs";
import { treeView } from "../runtime/tree.mjs";

const interval = (s) => `${(100 * s.low).toFixed(0)}–${(100 * s.high).toFixed(0)}%`;

// ---- the search tree, grown node by node (an accessible tree: ../runtime/tree.mjs) ----------------

function nodeClass(node, record) {
  if (node.left.startsWith("invalid")) return "invalid";
  if (node.note === "pruned") return "pruned";
  if (record.verification.correct && node.steps.join() === record.steps.join()) return "solved";
  return "kept";
}

function nodeText(node) {
  const last = node.steps.length
    ? node.steps[node.steps.length - 1]
    : `${node.left === "(nothing looked up yet)" ? "question" : "puzzle " + node.left}`;
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
export async function growTree(record, output, isCurrent) {
  const view = treeView(`Search tree of ${record.framework} on ${record.puzzle}`, { className: "lllm-reasoning-lab__tree" });
  output.append(
    el(
      "p",
      { class: "lllm-reasoning-lab__legend" },
      "Search tree: each line is a state with its value, the framework's note and the verifier's verdict. " +
        "The lines marked “on the answer path” lead from the puzzle to the answer. Arrow keys move and open; Enter opens or closes.",
    ),
  );
  output.append(view.element);
  const delay = Math.min(60, 3000 / Math.max(1, record.search.length));
  for (const node of [...record.search].sort((a, b) => a.id - b.id)) {
    if (!isCurrent()) return; // a newer run started: stop drawing this one
    const kind = nodeClass(record.tree[node.id], record);
    view.add({
      id: node.id,
      parent: node.parent,
      text: node.label,
      open: node.on_path || node.parent === null,
      className: `lllm-reasoning-lab__node lllm-reasoning-lab__node--${kind}${node.on_path ? " lllm-reasoning-lab__node--path" : ""}`,
    });
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  const v = record.verification,
    u = record.usage;
  output.append(
    el(
      "p",
      { class: "lllm-reasoning-lab__verdict" },
      `${v.correct ? "correct" : "wrong"}: ${v.message} — ${u.calls} model calls, ${u.hits} cache hits, ` +
        `${u.tokens_in} ${u.unit} in, ${u.tokens_out} out`,
    ),
  );
}

// ---- GoT's graph and RAP's tree, drawn by depth ---------------------------------------------------

export function searchPicture(record) {
  const depth = new Map(),
    rows = [];
  for (const node of record.tree) {
    const d = node.parent === null ? 0 : depth.get(node.parent) + 1;
    depth.set(node.id, d);
    (rows[d] ??= []).push(node);
  }
  const W = 640,
    rowH = 56,
    H = rows.length * rowH + 10;
  const { svg, add } = svgCanvas({ viewBox: `0 0 ${W} ${H}`, width: "100%", class: "lllm-reasoning-lab__picture" });
  const at = new Map();
  rows.forEach((row, d) => row.forEach((node, i) => at.set(node.id, { x: ((i + 0.5) * W) / row.length, y: 20 + d * rowH })));
  for (const node of record.tree) {
    const to = at.get(node.id);
    for (const p of [node.parent, ...node.merged]) {
      if (p === null) continue;
      const from = at.get(p);
      add("line", {
        x1: from.x,
        y1: from.y,
        x2: to.x,
        y2: to.y,
        stroke: "currentColor",
        "stroke-opacity": p === node.parent ? 0.5 : 0.9,
        "stroke-dasharray": p === node.parent ? "" : "3 2",
        class: p === node.parent ? "" : "lllm-reasoning-lab__merge",
      });
    }
  }
  const colour = { solved: "#2e7d32", invalid: "#c62828", pruned: "#9e9e9e", kept: "var(--md-accent-fg-color)" };
  for (const node of record.tree) {
    const { x, y } = at.get(node.id);
    const r = record.framework === "rap" ? 3 + 2 * Math.sqrt(node.visits) : 4;
    const dot = add("circle", { cx: x, cy: y, r, fill: colour[nodeClass(node, record)], class: "lllm-reasoning-lab__vertex" });
    dot.append(Object.assign(document.createElementNS("http://www.w3.org/2000/svg", "title"), { textContent: nodeText(node) }));
    if (rows[depth.get(node.id)].length <= 8)
      add("text", { x: x + r + 2, y: y + 3 }, node.left.startsWith("invalid") ? "×" : node.left.slice(0, 14));
  }
  return svg;
}

// ---- the benchmark: success (with its interval) against calls ------------------------------------

export function chart(summary) {
  const W = 440,
    H = 220,
    L = 40,
    B = 30,
    T = 10,
    R = 100;
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
  const labels = []; // frameworks at (nearly) the same spot share one label
  for (const s of summary) {
    const px = x(s.calls),
      py = y(s.success);
    add("line", { x1: px, y1: y(s.low), x2: px, y2: y(s.high), stroke: "currentColor", class: "lllm-reasoning-lab__interval" });
    add("circle", { cx: px, cy: py, r: 4, fill: "var(--md-accent-fg-color)", class: "lllm-reasoning-lab__point" });
    const near = labels.find((l) => Math.abs(l.x - px) < 24 && Math.abs(l.y - py) < 8);
    if (near) near.names.push(s.framework);
    else labels.push({ names: [s.framework], x: px, y: py, success: s.success });
  }
  for (const { names, x: px, y: py, success } of labels) {
    add(
      "text",
      { x: px + 6, y: py + 3, class: "lllm-reasoning-lab__label", "data-x": px, "data-y": py },
      `${names.join(", ")} ${(100 * success).toFixed(0)}%`,
    );
  }
  return svg;
}

/** Once the chart is in the page (text has a size only then): move each point's label down until it
 * overlaps no other text, to the point's left if it would leave the chart, with a line back to its
 * point when moved; the chart grows taller if the labels need it. Works in the chart's own units, so
 * it holds at any width. */
export function separateLabels(svg) {
  const W = svg.viewBox.baseVal.width;
  let H = svg.viewBox.baseVal.height;
  const placed = [...svg.querySelectorAll("text:not(.lllm-reasoning-lab__label)")].map((t) => t.getBBox());
  const hits = (b) => placed.find((p) => b.x < p.x + p.width && p.x < b.x + b.width && b.y < p.y + p.height && p.y < b.y + b.height);
  const labels = [...svg.querySelectorAll(".lllm-reasoning-lab__label")].sort((a, b) => a.getBBox().y - b.getBBox().y);
  for (const label of labels) {
    const px = Number(label.dataset.x),
      py = Number(label.dataset.y);
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
      for (const [k, v] of Object.entries({
        x1: px,
        y1: py,
        x2: lx,
        y2: box.y + box.height / 2,
        stroke: "currentColor",
        "stroke-opacity": 0.35,
      }))
        leader.setAttribute(k, v);
      svg.insertBefore(leader, label);
    }
  }
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
}

export function summaryTable(summary) {
  const unit = summary[0]?.unit ?? "chars";
  // Five columns, each able to wrap, so the whole table fits a 390 px phone without scrolling sideways.
  return table(
    ["framework", "success (95% interval)", "calls per puzzle", "cache hits per puzzle", `${unit} in / out`],
    summary.map((s) => [
      s.framework,
      `${pct(s.success)} (${interval(s)})`,
      s.calls.toFixed(1),
      s.hits.toFixed(1),
      `${s.tokens_in.toFixed(0)} / ${s.tokens_out.toFixed(0)}`,
    ]),
  );
}

export function sweepTable(result) {
  return table(
    ["framework", ...result.levels.map((v) => `value noise ${v}`)],
    Object.entries(result.sweep).map(([name, ss]) => [name, ...ss.map((s) => `${pct(s.success)} (${interval(s)})`)]),
  );
}
