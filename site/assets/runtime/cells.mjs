// Runnable code cells. In a page's Markdown, mark a Python block as runnable with a class:
//
//   ```python {.runnable}
//   from lllm.web.browser import from_browser
//   print(from_browser(seed=1)("Once", 80))
//   ```
//
// (pymdownx.superfences + attr_list render it as <div class="language-python runnable highlight">.)
// The reader can edit the code in place, Run it (or Ctrl/Shift+Enter), Stop it, and Reset it to
// the page's version. Output appears under the block. The cells of one page share a namespace.
// Python starts loading when a cell is first focused, typed in or run (intent.mjs), not when it is seen.
// The code becomes a real editor (CodeMirror, ../editor/editor.mjs) when the cell comes near; until
// then the highlighted code itself is editable. What the reader types is kept as a draft per cell.

import { lllm } from "./lllm.mjs";
import { showError } from "./cell-error.mjs";
import { codeEditor, KEYS_HINT } from "../editor/editor.mjs";

function button(label, title, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "md-button lllm-cell__button";
  b.textContent = label;
  b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function append(output, text, kind) {
  if (!text) return;
  const span = document.createElement("span");
  span.className = `lllm-out--${kind}`;
  span.textContent = text;
  output.append(span);
}

function setUpCell(block, index) {
  if (block.dataset.lllmCell) return; // document$ fires again on instant navigation: stay idempotent
  block.dataset.lllmCell = "1";
  const code = block.querySelector("code");
  const original = code.textContent.replace(/\n$/, "");
  code.contentEditable = "plaintext-only";
  code.spellcheck = false;
  const hint = document.createElement("span");
  hint.className = "lllm-editor__keys";
  hint.id = `lllm-cell-${index + 1}-keys`;
  hint.textContent = KEYS_HINT;
  code.setAttribute("aria-describedby", hint.id);
  const editor = codeEditor({
    host: block,
    fallback: code,
    hide: code.closest("pre"),
    original,
    draftKey: `cell:${location.pathname}#${index + 1}`,
    label: `Python code, cell ${index + 1}`,
    describedBy: hint.id,
    onRun: () => run.disabled || run.click(),
  });

  // The bar and the output are in the HTML already, hidden (hooks/codeblocks.py): filling and showing
  // them restyles them alone, where new elements after the block restyled the rest of the article.
  let bar = block.nextElementSibling,
    output = bar?.nextElementSibling;
  if (!bar?.matches(".lllm-cell__bar") || !output?.matches("pre.lllm-cell__output")) {
    bar = Object.assign(document.createElement("div"), { className: "lllm-cell__bar" });
    output = Object.assign(document.createElement("pre"), { className: "lllm-cell__output", hidden: true });
    block.after(bar, output);
  }
  const state = document.createElement("span");
  state.className = "lllm-cell__state";

  const run = button("Run", "Run this cell (Ctrl+Enter)", async () => {
    output.hidden = false;
    output.textContent = "";
    delete block.dataset.lllmResult;
    block.classList.add("lllm-cell--running");
    run.disabled = true;
    stop.hidden = false;
    const unsubscribe = lllm.onStatus((s) => {
      state.textContent = s.state === "loading" ? lllm.describe(s) : "running…";
    });
    try {
      const result = await lllm.run(editor.value, {
        onStdout: (t) => append(output, t, "stdout"),
        onStderr: (t) => append(output, t, "stderr"),
      });
      if (result.value !== null && result.value !== undefined) append(output, result.value + "\n", "value");
      if (!output.textContent) append(output, "(no output)", "note");
      block.dataset.lllmResult = "ok";
      block.dispatchEvent(new CustomEvent("lllm:ran", { bubbles: true, detail: { widget: "cell" } })); // the course counts it
    } catch (error) {
      showError(output, error); // the error and the cell's lines first, the full traceback folded
      block.dataset.lllmResult = error.name === "Stopped" ? "stopped" : "error";
    } finally {
      unsubscribe();
      state.textContent = "";
      run.disabled = false;
      stop.hidden = true;
      block.classList.remove("lllm-cell--running");
    }
  });
  const stop = button("Stop", "Stop (restarts Python; names defined by earlier cells are lost)", () => lllm.stop());
  stop.hidden = true;
  const reset = button("Reset", "Restore the page's version of this code", () => {
    editor.value = original;
    output.hidden = true;
    output.textContent = "";
  });
  code.addEventListener("keydown", (event) => {
    // until the editor replaces it
    if (event.key === "Enter" && (event.ctrlKey || event.shiftKey || event.metaKey)) {
      event.preventDefault();
      run.click();
    } else if (event.key === "Tab") {
      event.preventDefault();
      document.execCommand("insertText", false, "    ");
    }
  });
  bar.append(run, stop, reset, state, hint);
  bar.hidden = false;
  return true;
}

function setUpPage() {
  document.querySelectorAll("div.runnable.highlight").forEach(setUpCell);
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
