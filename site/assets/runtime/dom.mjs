// Two tiny DOM helpers shared by the page widgets (playground, agent demos, oversight, reasoning lab).

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
