// The native Dialog page's fork tree, drawn from the reader's own objects. The page places it with
//
//   <div class="lllm-dialog-tree"></div>
//
// under the cell that makes `dialog`. "Draw the fork tree" runs, in the cells' namespace (the same
// Python names the cells made), lllm.runtimes.native.dialog_tree.dialog_tree_json(dialog), and draws
// its nodes as an accessible tree (../runtime/tree.mjs): one line per dialog with its split point,
// the lines `format_dialog_tree(dialog)` prints. For tests: `element.dataset.state` is
// idle | running | done | error, and `element.lllmResult` the JSON.

import { lllm } from "../runtime/lllm.mjs";
import { el } from "../runtime/dom.mjs";
import { treeView } from "../runtime/tree.mjs";

const CODE = "from lllm.runtimes.native.dialog_tree import dialog_tree_json\n" + "print(dialog_tree_json(globals().get('dialog')))";

async function draw(root, output) {
  root.dataset.state = "running";
  output.replaceChildren(el("p", {}, lllm.status.pythonReady ? "drawing…" : "loading Python…"));
  try {
    const result = JSON.parse((await lllm.run(CODE)).stdout.trim().split("\n").pop());
    root.lllmResult = result;
    if (!result.ok) throw new Error(result.error);
    const view = treeView("Fork tree of dialog", { className: "lllm-dialog-tree__tree" });
    for (const node of result.nodes) view.add({ id: node.id, parent: node.parent, text: node.label, open: true });
    output.replaceChildren(view.element);
    root.dataset.state = "done";
  } catch (error) {
    output.replaceChildren(el("p", { class: "lllm-dialog-tree__error" }, error.message));
    root.dataset.state = "error";
  }
}

function setUp(root) {
  if (root.dataset.lllmTree) return; // document$ fires again on instant navigation
  root.dataset.lllmTree = "1";
  root.dataset.state = "idle";
  const button = el("button", { type: "button", class: "md-button lllm-dialog-tree__draw" }, "Draw the fork tree of dialog");
  const output = el("div", { class: "lllm-dialog-tree__output", "aria-live": "polite" });
  button.addEventListener("click", () => draw(root, output));
  root.replaceChildren(button, output);
}

function setUpPage() {
  document.querySelectorAll(".lllm-dialog-tree").forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
setUpPage();
