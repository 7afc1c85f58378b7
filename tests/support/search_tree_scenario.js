// The reasoning lab's search tree in any engine (tests/browser/test_search_tree_browser.py): run one
// framework on one puzzle, hand back the tree's lines as the terminal prints them (`reason --tree`),
// then, with `keys`, walk it with the keyboard: Down to the first closed node, Right opens it, Right
// goes to its first child, Left back to it, Left closes it. Keys are dispatched as keydown events on
// the focused item here (Firefox's and WebKit's drivers hand the page a function, not a keyboard);
// the Chromium test presses real keys instead. A single async arrow function, as engine_scenario.js.
async ({ framework, puzzle, seed, keys }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const report = { steps: [] };
  try {
    await window.lllm.ready();
    const lab = document.querySelector(".lllm-reasoning-lab");
    const set = (selector, value) => {
      const control = lab.querySelector(selector);
      control.value = String(value);
      control.dispatchEvent(new Event("change", { bubbles: true }));
    };
    set("select[name=framework]", framework);
    set("input[name=puzzle]", puzzle);
    set("input[name=seed]", seed);
    lab.querySelector(".lllm-reasoning-lab__run").click();
    const deadline = Date.now() + 600_000;
    while (lab.dataset.state !== "done" && lab.dataset.state !== "error") {
      if (Date.now() > deadline) throw new Error("the run timed out");
      await sleep(100);
    }
    report.state = lab.dataset.state;
    const tree = lab.querySelector("[role=tree]");
    const items = [...tree.querySelectorAll("[role=treeitem]")];
    const depth = (li) => {
      let d = 0;
      for (let p = li.parentElement.closest("[role=treeitem]"); p; p = p.parentElement.closest("[role=treeitem]")) d++;
      return d;
    };
    const label = (li) => document.getElementById(li.getAttribute("aria-labelledby")).textContent;
    const shown = (li) => !li.parentElement.closest("[hidden]");
    report.lines = items.map(
      (li) => (li.classList.contains("lllm-reasoning-lab__node--path") ? "* " : "  ") + "  ".repeat(depth(li)) + label(li),
    );
    report.pathShown = items.filter((li) => li.classList.contains("lllm-reasoning-lab__node--path")).every(shown);
    report.tabStops = items.filter((li) => li.tabIndex === 0).length;
    if (!keys) return report;
    const press = (key) => document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
    const focused = () => ({ label: label(document.activeElement), expanded: document.activeElement.getAttribute("aria-expanded") });
    items[0].focus();
    for (let i = 0; i < items.length && document.activeElement.getAttribute("aria-expanded") !== "false"; i++) press("ArrowDown");
    const closed = document.activeElement;
    report.steps.push(focused());
    press("ArrowRight");
    report.steps.push({ ...focused(), childrenShown: [...closed.querySelectorAll(":scope > ul > li")].map(shown) });
    press("ArrowRight");
    report.steps.push({ ...focused(), parent: label(document.activeElement.parentElement.closest("[role=treeitem]")) });
    press("ArrowLeft");
    press("ArrowLeft");
    report.steps.push({ ...focused(), childrenShown: [...closed.querySelectorAll(":scope > ul > li")].map(shown) });
    report.closedLabel = label(closed);
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
};
