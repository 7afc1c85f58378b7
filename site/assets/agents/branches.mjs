// Time travel's steps and branches, drawn the same way for every demo: read timetravel.mjs first (the
// widget that uses them). `viewOf(step, branch)` puts a ReAct or memory step (lllm/timetravel/react.py)
// and a stepped demo's step (lllm/timetravel/steps.py: a title, named fields an edit may change,
// read-only context) into one shape; `treeNodes` draws the branches as an ARIA tree (↑ ↓ move, Enter or
// Space opens one); `comparison` puts two branches side by side with the first differing step marked.

import { el } from "../runtime/dom.mjs";

const REACT_FIELDS = ["thought", "action", "observation"];

// ---- a step, in one shape for every demo -----------------------------------------------------------
// {label (timeline), heading, fields {name: text}, editable [names], rows [[label, text, class]], prompt}

const reactAction = (s) => (s.action ? `${s.action[0]}[${s.action[1]}]` : s.final !== null ? `Final Answer: ${s.final}` : "");
const reactText = (s) =>
  [
    s.thought && `Thought: ${s.thought}`,
    s.action && `Action: ${s.action[0]}[${s.action[1]}]`,
    s.final !== null && `Final Answer: ${s.final}`,
    s.observation !== null && `Observation: ${s.observation}`,
  ]
    .filter(Boolean)
    .join("\n") || "(nothing)";

function reactView(step, branch) {
  const turn = step.turn ? branch.turns[step.turn - 1] : null;
  return {
    label: `${step.turn ? ` (goal ${step.turn})` : ""}: ${step.outcome}`,
    heading: ` (${step.forced ? "forced" : step.outcome})`,
    fields: { thought: step.thought ?? "", action: reactAction(step), observation: step.observation ?? "" },
    editable: REACT_FIELDS,
    rows: [
      ...(turn
        ? [
            [`goal ${step.turn}`, turn.goal, ""],
            ["memory injected", turn.memory || "(empty)", "lllm-tt__memory"],
          ]
        : []),
      ["raw output", step.raw || "(nothing)", ""],
      ["parsed", reactText(step), "lllm-tt__parsed"],
    ],
    prompt: step.prompt,
    text: reactText(step),
    key: JSON.stringify(["raw", "thought", "action", "final", "observation", "forced", "outcome"].map((k) => step[k])),
  };
}

function steppedView(step) {
  const lines = (pairs) => pairs.map(([k, v]) => `${k}: ${v === "" ? "(empty)" : v}`);
  return {
    label: `: ${step.title}`,
    heading: `: ${step.title}`,
    fields: step.fields,
    editable: step.editable,
    rows: [
      ...Object.entries(step.fields).map(([k, v]) => [k, v || "(empty)", `lllm-tt__field-${k}`]),
      ...Object.entries(step.context).map(([k, v]) => [k, v || "(empty)", "lllm-tt__context"]),
    ],
    prompt: step.prompt,
    text: lines([...Object.entries(step.fields), ...Object.entries(step.context)]).join("\n") || "(nothing)",
    key: JSON.stringify([step.kind, step.title, step.fields, step.context]),
  };
}

export const viewOf = (step, branch) => (step.fields ? steppedView(step) : reactView(step, branch));

// ---- the tree and the comparison --------------------------------------------------------------------

export function row(label, node) {
  return el("div", { class: "lllm-tt__row" }, el("span", { class: "lllm-tt__label" }, label), node);
}

function edited(edit) {
  if (edit.goal !== undefined) return "goal edited";
  return `step ${edit.step}: ${Object.keys(edit)
    .filter((k) => k !== "parent" && k !== "step")
    .join(", ")} edited`;
}

export function treeNodes(record, selected, choose, label = null) {
  const children = (id) => record.branches.filter((b) => b.parent === id);
  const item = (b) => {
    const what = b.edit ? edited(b.edit) : "the run";
    const end = b.answer !== null ? `answer ${b.answer}` : `no answer (${b.stop_reason})`;
    const li = el(
      "li",
      {
        role: "treeitem",
        "aria-selected": String(b.id === selected),
        tabindex: b.id === selected ? "0" : "-1",
        "data-branch": b.id,
        class: "lllm-tt__node",
      },
      el("span", {}, label ? label(b) : `branch ${b.id}: ${what} → ${end}`),
    );
    li.addEventListener("click", (e) => {
      e.stopPropagation();
      choose(b.id, true);
    });
    const kids = children(b.id);
    if (kids.length) {
      li.setAttribute("aria-expanded", "true");
      li.append(el("ul", { role: "group" }, kids.map(item)));
    }
    return li;
  };
  const tree = el("ul", { role: "tree", class: "lllm-tt__tree", "aria-label": "branches of the run" }, children(null).map(item));
  tree.addEventListener("keydown", (e) => {
    const items = [...tree.querySelectorAll("[role=treeitem]")];
    const at = items.indexOf(document.activeElement);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
    if (to !== undefined && items[to]) {
      e.preventDefault();
      items.forEach((i) => (i.tabIndex = -1));
      items[to].tabIndex = 0;
      items[to].focus();
    } else if ((e.key === "Enter" || e.key === " ") && at >= 0) {
      e.preventDefault();
      choose(Number(items[at].dataset.branch), true);
    }
  });
  return tree;
}

function firstDifference(a, b) {
  for (let i = 0; i < Math.max(a.steps.length, b.steps.length); i++) {
    const x = a.steps[i],
      y = b.steps[i];
    if (!x || !y || viewOf(x, a).key !== viewOf(y, b).key || (i === 0 && a.goal !== b.goal)) return i + 1;
  }
  return null;
}

export function comparison(a, b, native = null) {
  const first = (native?.firstDifference ?? firstDifference)(a, b);
  const text = (step, branch) => (native ? native.stepText(step) : viewOf(step, branch).text);
  const rows = [];
  for (let i = 0; i < Math.max(a.steps.length, b.steps.length); i++) {
    const marked = i + 1 === first,
      step = a.steps[i] ?? b.steps[i];
    const where = native ? "" : step.fields ? `: ${step.title}` : step.turn ? ` (goal ${step.turn})` : "";
    rows.push(
      el(
        "tr",
        { class: marked ? "lllm-tt__first-diff" : null },
        el("th", { scope: "row" }, `step ${i + 1}`, where, marked ? el("strong", {}, " (first difference)") : ""),
        el("td", {}, el("pre", {}, a.steps[i] ? text(a.steps[i], a) : "(no step)")),
        el("td", {}, el("pre", {}, b.steps[i] ? text(b.steps[i], b) : "(no step)")),
      ),
    );
  }
  const summary = first === null ? "The two branches are the same." : `First difference: step ${first}.`;
  return [
    el("p", { class: "lllm-tt__diff-summary", "data-first": first ?? "" }, summary),
    el(
      "div",
      { class: "lllm-tt__scroll", tabindex: "0", role: "region", "aria-label": `branch ${a.id} and branch ${b.id} side by side` },
      el(
        "table",
        { class: "lllm-tt__compare" },
        el("caption", {}, `branch ${a.id} (left) and branch ${b.id} (right)`),
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "col" }, "step"),
            el("th", { scope: "col" }, `branch ${a.id}`),
            el("th", { scope: "col" }, `branch ${b.id}`),
          ),
        ),
        el("tbody", {}, rows),
      ),
    ),
  ];
}
