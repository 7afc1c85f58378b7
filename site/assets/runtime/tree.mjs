// An accessible tree you can open and close (the WAI-ARIA tree view pattern), grown one node at a time:
//
//   const view = treeView("Search tree", { className: "my-tree" });
//   container.append(view.element);
//   view.add({ id: 0, parent: null, text: "#0 puzzle 4 5 6 10 | root", open: true });
//   view.add({ id: 1, parent: 0, text: "#1 10 - 6 = 4 ...", className: "kept" });
//
// <ul role=tree> holds <li role=treeitem> items; an item with children has aria-expanded and a
// <ul role=group> that is `hidden` while it is closed. One item is in the tab order at a time (roving
// tabindex). Keys: Up/Down move between visible items, Right opens (or goes to the first child),
// Left closes (or goes to the parent), Home/End, Enter/Space toggle; a click toggles too. Each item is
// named by its own label only (aria-labelledby), not by the text of everything below it. Used by the
// reasoning lab's search trees and the native runtime's dialog trees; it knows nothing about either.

import { el } from "./dom.mjs";

let made = 0; // makes element ids unique across every tree on the page

const STYLE = `
.md-typeset ul.lllm-tree, .md-typeset ul.lllm-tree ul { list-style: none; margin: 0; padding: 0; }
.md-typeset ul.lllm-tree ul { margin-left: 1.1em; border-left: 1px dotted var(--md-default-fg-color--lighter); }
.md-typeset ul.lllm-tree li { list-style: none; margin: 0; padding: 0 0 0 0.2em; }
.lllm-tree li:focus { outline: none; }
.lllm-tree li:focus-visible > .lllm-tree__label { outline: 2px solid var(--md-accent-fg-color); outline-offset: 1px; }
.lllm-tree__label { display: block; padding: 0.1em 0.2em 0.1em 1.1em; text-indent: -0.9em; overflow-wrap: anywhere; cursor: default; }
.lllm-tree li[aria-expanded] > .lllm-tree__label { cursor: pointer; }
.lllm-tree__label::before { display: inline-block; width: 0.9em; text-indent: 0; content: "·"; }
.lllm-tree li[aria-expanded="false"] > .lllm-tree__label::before { content: "▸"; }
.lllm-tree li[aria-expanded="true"] > .lllm-tree__label::before { content: "▾"; }`;

function addStyle() {
  if (document.getElementById("lllm-tree-style")) return;
  document.head.append(Object.assign(el("style", {}, STYLE), { id: "lllm-tree-style" }));
}

const visible = (tree) => [...tree.querySelectorAll("li[role=treeitem]")].filter((li) => !li.parentElement.closest("[hidden]"));
const parentItem = (li) => li.parentElement.closest("li[role=treeitem]");

function setOpen(li, open) {
  if (!li.hasAttribute("aria-expanded")) return;
  li.setAttribute("aria-expanded", String(open));
  li.querySelector(":scope > ul[role=group]").hidden = !open;
}

function focusItem(tree, li) {
  if (!li) return;
  for (const other of tree.querySelectorAll("li[tabindex='0']")) other.tabIndex = -1;
  li.tabIndex = 0;
  li.focus();
}

function onKey(tree, event) {
  const li = event.target.closest("li[role=treeitem]");
  if (!li || !tree.contains(li)) return;
  const items = visible(tree),
    at = items.indexOf(li),
    expanded = li.getAttribute("aria-expanded");
  const moves = {
    ArrowDown: () => focusItem(tree, items[at + 1]),
    ArrowUp: () => focusItem(tree, items[at - 1]),
    Home: () => focusItem(tree, items[0]),
    End: () => focusItem(tree, items[items.length - 1]),
    ArrowRight: () =>
      expanded === "false" ? setOpen(li, true) : expanded === "true" ? focusItem(tree, li.querySelector(":scope > ul > li")) : null,
    ArrowLeft: () => (expanded === "true" ? setOpen(li, false) : focusItem(tree, parentItem(li))),
    Enter: () => setOpen(li, expanded === "false"),
    " ": () => setOpen(li, expanded === "false"),
  };
  if (!moves[event.key]) return;
  event.preventDefault();
  event.stopPropagation(); // the page's own shortcuts (Material's search, n / p) stay out
  moves[event.key]();
}

/** An empty tree named `label`; `add` appends a node under its parent (a parent is added first). */
export function treeView(label, { className = "" } = {}) {
  addStyle();
  const prefix = `lllm-tree-${++made}`;
  const tree = el("ul", { role: "tree", "aria-label": label, class: `lllm-tree ${className}`.trim() });
  const items = new Map(); // id -> <li>
  tree.addEventListener("keydown", (event) => onKey(tree, event));
  tree.addEventListener("click", (event) => {
    const li = event.target.closest("li[role=treeitem]");
    if (!li || !tree.contains(li)) return;
    focusItem(tree, li);
    setOpen(li, li.getAttribute("aria-expanded") === "false");
  });

  function add({ id, parent = null, text, className: itemClass = "", open = false }) {
    const name = el("span", { class: "lllm-tree__label", id: `${prefix}-${id}` }, text);
    const li = el("li", { role: "treeitem", "aria-labelledby": name.id, tabindex: items.size ? -1 : 0, class: itemClass || null }, name);
    li.dataset.open = String(open); // how it starts once it has children
    li.dataset.id = String(id);
    items.set(id, li);
    const above = parent === null ? null : items.get(parent);
    if (!above) {
      tree.append(li);
      return li;
    }
    let group = above.querySelector(":scope > ul[role=group]");
    if (!group) {
      group = el("ul", { role: "group" });
      above.append(group);
      above.setAttribute("aria-expanded", above.dataset.open);
      group.hidden = above.dataset.open !== "true";
    }
    group.append(li);
    return li;
  }

  return { element: tree, add, items };
}
