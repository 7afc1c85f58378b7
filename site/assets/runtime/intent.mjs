// Load on intent: the runtime starts downloading only when a reader is about to use it, never
// because a page was opened. Python (Pyodide, ≈12 MB, with onnxruntime-web beside it for the
// predictor) starts when a widget that runs code is first touched, clicked, focused or typed in: a
// cell, a demo, a lab, a quiz's code answer. Seeing one is not enough — most readers read the code
// and scroll on. The playground's generation needs only the model (onnxruntime-web and TinyLLM, no
// Python), so that starts when the playground comes within a screen of the viewport, or on touch
// when the reader's browser asks to save data (Save-Data). Widgets themselves call lllm.run() etc.
// when used, so this file only starts the download early; nothing depends on it having done so.

import { lllm } from "./lllm.mjs";

// [selector, what to start, whether coming into view is enough]
const WIDGETS = [
  [".lllm-playground", "model", true],     // generation needs only the model
  [".lllm-demo, .lllm-oversight, .lllm-reasoning-lab, div.runnable.highlight, textarea.lllm-q__code", "python", false],
];
const NEAR = "600px 0px";                  // about a screen ahead of the reader
const TOUCH = ["pointerdown", "focusin", "keydown"];

const saveData = () => navigator.connection?.saveData === true;

function start(what) {
  (what === "model" ? lllm.modelReady() : lllm.ready()).catch(() => {});   // a failure shows on Run
}

function watch(node, what, onView) {
  if (node.dataset.lllmIntent) return;     // document$ fires again on instant navigation
  node.dataset.lllmIntent = what;
  const go = () => {
    observer?.disconnect();
    TOUCH.forEach((type) => node.removeEventListener(type, go, true));
    start(what);
  };
  TOUCH.forEach((type) => node.addEventListener(type, go, true));
  const observer = onView && !saveData() && "IntersectionObserver" in window
    ? new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && go(), { rootMargin: NEAR })
    : null;
  observer?.observe(node);
}

function setUpPage() {
  for (const [selector, what, onView] of WIDGETS)
    document.querySelectorAll(selector).forEach((node) => watch(node, what, onView));
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
