// The one module every page loads (mkdocs.yml's extra_javascript). It imports what every page uses —
// the light/dark toggle, window.lllm (loads nothing until asked), the offline footer, the course's marks — and each widget's
// module only where the page has that widget: a reading page parses four small modules, not
// thirteen. Material's instant navigation swaps pages without a reload and announces each one on
// `document$`, which replays the current page to a late subscriber; so a module imported here on the
// fifth page sets up that page as if it had been loaded with the first (every widget module
// subscribes to document$ and sets each element up once).
//
// And only when the widget is about to be seen: a module is imported when one of its elements comes
// within a screen of the viewport (scrolled to, opened in a <details> or a tab, jumped to by a link),
// so the page's first seconds are the reader's text, not the drawing of a quiz at its end (on the
// ReAct page, about a third of Lighthouse's blocking time; the Performance page has the figures).
// intent.mjs is the exception: it is small and must hear the first touch anywhere on the page.
// A time-travel link (`#run=...`, kept by hooks/overrides/main.html before the address can change) draws
// its page's time-travel widget at once, so the run is replayed without the reader scrolling to it.
// `window.lllmEager = true`, set before the page runs, draws every widget at once: the test harness
// sets it (tests/support/runtime.py), so a test of a widget need not scroll to it first;
// tests/browser/test_loader_browser.py checks the lazy way, which is every reader's.
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
  [".lllm-playground, .lllm-demo, .lllm-mcp, .lllm-oversight, .lllm-reasoning-lab, div.runnable.highlight, .lllm-quiz, .lllm-final",
    "./intent.mjs"],
  [".lllm-playground", "./playground.mjs"],                 // /playground/ and the generation page
  [".lllm-inside, .lllm-inside-gpt", "../inside/inside.mjs"],   // /tinyllm/inside/
  [".lllm-train", "../train/train.mjs"],                    // /tinyllm/train/
  [".lllm-demo, .lllm-gallery", "../agents/demos.mjs"],      // the agent pages' live demos, a gallery's Try it
  [".lllm-oversight", "../agents/oversight.mjs"],           // human in the loop
  [".lllm-timetravel", "../agents/timetravel.mjs"],         // time travel over runs
  [".lllm-mcp", "../tools/mcp.mjs"],                        // the tool-calls page: an MCP server's tools in the agent
  [".lllm-final", "../final/final.mjs"],                    // /course/final/: the course final and its records
];

const AT_ONCE = new Set(["./intent.mjs"]);   // imported with the page, not when its widget is near
const LINKED = "../agents/timetravel.mjs";   // at once too when the page was opened with a run link
const NEAR = "100% 0px";                      // within a screen above or below the viewport

const url = (file) => new URL(file, import.meta.url).href;
const rows = (root) => WIDGETS.filter(([selector]) => root.querySelector(selector));

/** The modules this document's widgets need, as URLs. */
export function needed(root = document) {
  return rows(root).map(([, file]) => url(file));
}

const imported = new Map();             // file URL -> its import, once per tab

function load(file) {
  if (!imported.has(file)) {
    imported.set(file, import(file).catch((error) => {
      imported.delete(file);            // a failed fetch (offline, a new deploy) is tried again next page
      console.error(`lllm: could not load ${file}:`, error);
    }));
  }
  return imported.get(file);
}

let watching = null;                    // the current page's observer: its widgets not yet near

/** Import what the current page needs: at once with `all` (or window.lllmEager), otherwise each
 *  module when one of its elements comes near the viewport. Resolves when the modules imported now
 *  have run. */
export function loadPage(root = document, { all = window.lllmEager === true } = {}) {
  watching?.disconnect();
  watching = null;
  const now = [];
  const later = new Map();              // element -> the files it waits for (an element can be in two rows)
  const linked = window.lllmRunLink?.path === location.pathname;
  for (const [selector, file] of rows(root)) {
    if (all || AT_ONCE.has(file) || (linked && file === LINKED) || imported.has(url(file)) || !("IntersectionObserver" in window)) now.push(url(file));
    else root.querySelectorAll(selector).forEach((node) => later.set(node, (later.get(node) ?? new Set()).add(url(file))));
  }
  if (later.size) {
    const observer = new IntersectionObserver((entries) => {
      const files = new Set(entries.filter((e) => e.isIntersecting).flatMap((e) => [...(later.get(e.target) ?? [])]));
      for (const [node, waiting] of later) {
        files.forEach((file) => waiting.delete(file));
        if (!waiting.size) { observer.unobserve(node); later.delete(node); }
      }
      files.forEach(load);
      if (!later.size) observer.disconnect();
    }, { rootMargin: NEAR });
    later.forEach((_, node) => observer.observe(node));
    watching = observer;
  }
  return Promise.all(now.map(load));
}

/** Import every module the current page needs, near or not (resolves when they have run). */
export const loadAll = (root = document) => loadPage(root, { all: true });

window.lllmModules = { needed, loadPage, loadAll, imported };     // for tests and curious readers

if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(() => loadPage());
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => loadPage());
else loadPage();
