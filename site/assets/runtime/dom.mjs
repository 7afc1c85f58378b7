// Small DOM helpers shared by the page widgets (playground, agent demos, oversight, reasoning lab).

// <tag class="className">text</tag>; text is set as textContent, never parsed as HTML.
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// <label class="className">label <control></label>
export function field(label, control, className = "") {
  const wrap = el("label", className, label + " ");
  wrap.append(control);
  return wrap;
}

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
