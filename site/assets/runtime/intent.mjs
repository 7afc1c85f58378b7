// Load on intent: the runtime starts downloading only when a reader is about to use it, never
// because a page was opened. Python (Pyodide, ≈12 MB, with onnxruntime-web beside it for the
// predictor) starts when a widget that runs code is first touched, clicked, focused or typed in: a
// cell, a demo, a lab, a quiz's code exercise. Seeing one is not enough — most readers read the code
// and scroll on. The playground's generation needs only the model (onnxruntime-web and TinyLLM, no
// Python), so a touch of the playground starts that alone; a page that is only looked at fetches no
// runtime file, playground or not (measured on /playground/). Widgets themselves call lllm.run() etc.
// when used, so this file only starts the download early; nothing depends on it having done so.
// One start happens because a page was opened, and it downloads nothing: on a page whose code can
// call run_python, that tool's isolated interpreter is started while the page is idle, once its files
// are already in this browser (lllm.prepareSandbox; sandbox.mjs says when).

import { lllm } from "./lllm.mjs";

// [selector, what a touch starts]
const WIDGETS = [
  [".lllm-playground", "model"], // generation needs only the model
  [".lllm-demo, .lllm-mcp, .lllm-oversight, .lllm-reasoning-lab, div.runnable.highlight, .lllm-q--code", "python"],
];
const CALLS_RUN_PYTHON = /\brun_python\b|\bProxyManager\b/; // in a runnable cell's code
const TOUCH = ["pointerdown", "focusin", "keydown"];

const saveData = () => navigator.connection?.saveData === true;
const started = new Set(); // what this document has started (instant navigation keeps it)

function start(what) {
  if (started.has(what)) return;
  started.add(what);
  (what === "model" ? lllm.modelReady() : lllm.ready()).catch(() => {}); // a failure shows on Run
}

// A touch is caught on the document itself, so a widget drawn after this file ran counts too (a
// quiz's code exercise, which quiz.mjs draws, and the editor that replaces its textarea).
function touched(event) {
  const widget = event.target instanceof Element && WIDGETS.find(([selector]) => event.target.closest(selector));
  if (widget) start(widget[1]);
}

function setUpPage() {
  if (saveData()) return; // then nothing starts before a touch, not even from the cache
  if ([...document.querySelectorAll("div.runnable.highlight")].some((cell) => CALLS_RUN_PYTHON.test(cell.textContent)))
    lllm.prepareSandbox();
}

TOUCH.forEach((type) => document.addEventListener(type, touched, true));
if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
