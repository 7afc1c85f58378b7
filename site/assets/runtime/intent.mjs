// Load on intent: the runtime (≈28 MB: Pyodide, onnxruntime-web, TinyLLM) starts downloading only
// when a reader is about to use it — a live widget comes within a screen of the viewport, or is
// first touched, clicked or focused — never because a page was opened. A reader who asked their
// browser to save data (Save-Data) loads it only on touch. Widgets themselves call lllm.run() etc.
// when used, so this file only starts the download early; nothing depends on it having done so.

import { lllm } from "./lllm.mjs";

// [selector, what to start, whether coming into view is enough]
const WIDGETS = [
  [".lllm-playground", "model", true],     // generation needs only the model
  [".lllm-demo, .lllm-oversight, .lllm-reasoning-lab, div.runnable.highlight", "python", true],
  ["textarea.lllm-q__code", "python", false],   // quizzes sit at the foot of many pages: touch only
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
