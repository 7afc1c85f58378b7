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
// Time travel, a big widget a screen below the ReAct demo, waits until it is reached (REACHED: in view,
// or a quarter of a screen from it), not merely near: a reader who only runs the demo never fetches it.
// A time-travel link (`#run=...`, kept by hooks/overrides/main.html before the address can change, or
// pasted into the tab later) draws its page's time-travel widget at once, so the run is replayed
// without the reader scrolling to it; a run handed over by the demo imports it too (demo-inside.mjs).
// `window.lllmEager = true`, set before the page runs, draws every widget at once: the test harness
// sets it (tests/support/runtime.py), so a test of a widget need not scroll to it first;
// tests/browser/test_loader_browser.py checks the lazy way, which is every reader's.
//
// A new widget module is one row of WIDGETS: the selector of the elements it draws, its file, and
// (optionally) how near the viewport its elements must come.
// tests/site/test_site_loader.py checks that every module a page used to list is here, and
// tests/browser/test_loader_browser.py that a page imports only the modules its widgets need.

import "./palette.mjs"; // the header's light/dark toggle (Material's component is off)
import "./lllm.mjs";
import "./offline.mjs";
import "../course/course.mjs";

const WIDGETS = [
  [".lllm-quiz", "../quiz/quiz.mjs"], // quizzes, the review list, the progress page
  ["div.runnable.highlight", "./cells.mjs"], // ```python {.runnable}: Run, Stop, Reset
  // Python when code is touched; the playground's model when it comes near (a quiz may hold a code exercise)
  [
    ".lllm-playground, .lllm-demo, .lllm-mcp, .lllm-oversight, .lllm-reasoning-lab, div.runnable.highlight, .lllm-quiz, .lllm-final",
    "./intent.mjs",
  ],
  [".lllm-playground", "./playground.mjs"], // /playground/ and the generation page
  [".lllm-inside, .lllm-inside-gpt", "../inside/inside.mjs"], // /tinyllm/inside/
  [".lllm-train", "../train/train.mjs"], // /tinyllm/train/
  [".lllm-demo, .lllm-gallery", "../agents/demos.mjs"], // the agent pages' live demos, a gallery's Try it
  [".lllm-oversight", "../agents/oversight.mjs"], // human in the loop
  [".lllm-timetravel", "../agents/timetravel.mjs"], // time travel over runs
  [".lllm-mcp", "../tools/mcp.mjs"], // the tool-calls page: an MCP server's tools in the agent
  [".lllm-final", "../final/final.mjs"], // /course/final/: the course final and its records
];

const AT_ONCE = new Set(["./intent.mjs"]); // imported with the page, not when its widget is near
const LINKED = "../agents/timetravel.mjs"; // at once too when the page was opened with a run link
const WHEN_REACHED = new Set([LINKED]); // imported when its widget is reached (REACHED), not when near
const MARGINS = {
  NEAR: "100% 0px", // within a screen above or below the viewport
  REACHED: "25% 0px", // within a quarter of a screen: scrolled to, not past nearby
};

const url = (file) => new URL(file, import.meta.url).href;
const rows = (root) => WIDGETS.filter(([selector]) => root.querySelector(selector));

/** The modules this document's widgets need, as URLs. */
export function needed(root = document) {
  return rows(root).map(([, file]) => url(file));
}

const imported = new Map(); // file URL -> its import, once per tab

function load(file) {
  if (!imported.has(file)) {
    imported.set(
      file,
      import(file).catch((error) => {
        imported.delete(file); // a failed fetch (offline, a new deploy) is tried again next page
        console.error(`lllm: could not load ${file}:`, error);
      }),
    );
  }
  return imported.get(file);
}

let watching = []; // the current page's observers: its widgets not yet near

/** Import what the current page needs: at once with `all` (or window.lllmEager), otherwise each
 *  module when one of its elements comes near the viewport. Resolves when the modules imported now
 *  have run. */
export function loadPage(root = document, { all = window.lllmEager === true } = {}) {
  watching.forEach((observer) => observer.disconnect());
  const now = [];
  const later = { NEAR: new Map(), REACHED: new Map() }; // margin -> element -> the files it waits for
  const linked = window.lllmRunLink?.path === location.pathname;
  for (const [selector, file] of rows(root)) {
    const margin = WHEN_REACHED.has(file) ? "REACHED" : "NEAR";
    if (all || AT_ONCE.has(file) || (linked && file === LINKED) || imported.has(url(file)) || !("IntersectionObserver" in window))
      now.push(url(file));
    else root.querySelectorAll(selector).forEach((node) => later[margin].set(node, (later[margin].get(node) ?? new Set()).add(url(file))));
  }
  watching = Object.entries(later)
    .filter(([, waiting]) => waiting.size)
    .map(([margin, waiting]) => observe(waiting, MARGINS[margin]));
  return Promise.all(now.map(load));
}

/** Import each element's files of `later` (element -> files) when it comes within `rootMargin`. */
function observe(later, rootMargin) {
  const observer = new IntersectionObserver(
    (entries) => {
      const files = new Set(entries.filter((e) => e.isIntersecting).flatMap((e) => [...(later.get(e.target) ?? [])]));
      for (const [node, waiting] of later) {
        files.forEach((file) => waiting.delete(file));
        if (!waiting.size) {
          observer.unobserve(node);
          later.delete(node);
        }
      }
      files.forEach(load);
      if (!later.size) observer.disconnect();
    },
    { rootMargin },
  );
  later.forEach((_, node) => observer.observe(node));
  return observer;
}

/** Import every module the current page needs, near or not (resolves when they have run). */
export const loadAll = (root = document) => loadPage(root, { all: true });

window.lllmModules = { needed, loadPage, loadAll, imported }; // for tests and curious readers

// A run link pasted into this tab, the page already open: its time travel is drawn at once (it reads the link).
window.addEventListener("hashchange", () => {
  if (location.hash.startsWith("#run=") && document.querySelector(".lllm-timetravel")) load(url(LINKED));
});

if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(() => loadPage());
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => loadPage());
else loadPage();
