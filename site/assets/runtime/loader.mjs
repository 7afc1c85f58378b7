// The one module every page loads (mkdocs.yml's extra_javascript). It imports what every page uses —
// the light/dark toggle, window.lllm (loads nothing until asked), the offline footer, the course's marks — and each widget's
// module only where the page has that widget: a reading page parses four small modules, not
// thirteen. Material's instant navigation swaps pages without a reload and announces each one on
// `document$`, which replays the current page to a late subscriber; so a module imported here on the
// fifth page sets up that page as if it had been loaded with the first (every widget module
// subscribes to document$ and sets each element up once).
//
// A new widget module is one row of WIDGETS: the selector of the elements it draws, and its file.
// tests/site/test_site_loader.py checks that every module a page used to list is here, and
// tests/browser/test_loader_browser.py that a page imports only the modules its widgets need.

import "./palette.mjs";                  // the header's light/dark toggle (Material's component is off)
import "./lllm.mjs";
import "./offline.mjs";
import "../course/course.mjs";

const WIDGETS = [
  [".lllm-quiz", "../quiz/quiz.mjs"],                       // quizzes, the review list, the progress page
  ["div.runnable.highlight", "./cells.mjs"],                // ```python {.runnable}: Run, Stop, Reset
  // Python when code is touched; the playground's model when it comes near (a quiz may hold a code exercise)
  [".lllm-playground, .lllm-demo, .lllm-oversight, .lllm-reasoning-lab, div.runnable.highlight, .lllm-quiz",
    "./intent.mjs"],
  [".lllm-playground", "./playground.mjs"],                 // /playground/ and the generation page
  [".lllm-inside, .lllm-inside-gpt", "../inside/inside.mjs"],   // /tinyllm/inside/
  [".lllm-train", "../train/train.mjs"],                    // /tinyllm/train/
  [".lllm-demo", "../agents/demos.mjs"],                    // the agent pages' live demos
  [".lllm-oversight", "../agents/oversight.mjs"],           // human in the loop
  [".lllm-timetravel", "../agents/timetravel.mjs"],         // time travel over runs
];

/** The modules this document's widgets need, as URLs. */
export function needed(root = document) {
  return WIDGETS.filter(([selector]) => root.querySelector(selector)).map(([, file]) => new URL(file, import.meta.url).href);
}

const imported = new Map();             // file -> its import, once per tab

/** Import what the current page needs; resolves when those modules have run. */
export function loadPage(root = document) {
  return Promise.all(needed(root).map((file) => {
    if (!imported.has(file)) {
      imported.set(file, import(file).catch((error) => {
        imported.delete(file);            // a failed fetch (offline, a new deploy) is tried again next page
        console.error(`lllm: could not load ${file}:`, error);
      }));
    }
    return imported.get(file);
  }));
}

window.lllmModules = { needed, loadPage, imported };     // for tests and curious readers

if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(() => loadPage());
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => loadPage());
else loadPage();
