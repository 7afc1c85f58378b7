// The DOM helpers the page widgets share (playground, recorded runs, agent demos, oversight,
// reasoning lab, quizzes, course): each is written here once and imported, never copied.
// Page-only: these call `document`, so worker.mjs and what it imports must not use them (importing
// this file is harmless anywhere; it touches `document` only when a helper is called).
//
// One element builder, el(tag, attrs = {}, ...children). It is the quiz's and the course's form, not
// the old el(tag, className, text) of the demos: those widgets set roles, ARIA and data- attributes
// and click handlers and nest children, which a (className, text) form cannot say without a
// statement per attribute, while every (className, text) call is simply el(tag, { class }, text).

// <tag ...attrs>children</tag>. attrs: each becomes an attribute (true: present and empty; false,
// null, undefined: left out), except "on<event>" (a listener) and "html" (innerHTML: only for
// Markdown the build rendered, hooks/quiz.py). children: nodes or strings (strings become text, never
// parsed as HTML), arrays flattened; null, undefined and "" add nothing.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "html") node.innerHTML = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== "") node.append(child);
  return node;
}

// <label class="className">label <control></label>
export function field(label, control, className = "") {
  return el("label", className ? { class: className } : {}, label + " ", control);
}

// <input name=name> with its value, then any other properties (type, min, max, step, checked,
// className…), all set as properties: the value property, not the value attribute (a checkbox, whose
// value is its attribute, gets value="…" when its type is set).
export function input(name, value, properties = {}) {
  return Object.assign(el("input"), { name, value: String(value) }, properties);
}

// <select name=name> of options, each a [value, label] pair or a string that is both; `value` is
// selected (the first option when it is left out).
export function select(name, options, value) {
  const s = Object.assign(el("select"), { name });
  for (const option of options) {
    const [v, label] = Array.isArray(option) ? option : [option, option];
    s.append(Object.assign(el("option", {}, label), { value: v }));
  }
  if (value !== undefined) s.value = value;
  return s;
}

// <table class="className"><thead><tr><th>header…</tr></thead><tbody><tr><td>cell…</tr>…</tbody></table>;
// a cell is text, a number or a node. With no rows the <tbody> is there, empty, to be filled later.
export function table(headers, rows, className = "") {
  return el(
    "table",
    className ? { class: className } : {},
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        headers.map((h) => el("th", {}, h)),
      ),
    ),
    el(
      "tbody",
      {},
      rows.map((cells) =>
        el(
          "tr",
          {},
          cells.map((c) => el("td", {}, c)),
        ),
      ),
    ),
  );
}

// A fraction as a percentage with one decimal: pct(0.4567) is "45.7%".
export const pct = (x) => `${(100 * x).toFixed(1)}%`;

// An <svg> with the given attributes, and `add(tag, attrs, text)` that appends an SVG child to it.
export function svgCanvas(attrs) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  for (const [k, v] of Object.entries(attrs)) svg.setAttribute(k, v);
  const add = (tag, childAttrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(childAttrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  return { svg, add };
}
