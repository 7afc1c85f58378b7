// Accessibility fixes that CSS cannot make (a11y.css has the rest), applied to every page and
// again after each instant navigation:
// - Material's loading bar (role=progressbar) gets an accessible name;
// - a code block or table that scrolls sideways gets tabindex=0 and a label, so keyboard users
//   can scroll it too (WCAG 2.1.1; axe's scrollable-region-focusable).
(function () {
  "use strict";
  var SCROLLERS = ".md-typeset pre > code, .md-typeset pre, .md-typeset__scrollwrap, .md-typeset .lllm-diagram, "
    + ".md-typeset .mermaid > code, .lllm-demo pre, .lllm-cell__output";

  function fix() {
    document.querySelectorAll("[role=progressbar]:not([aria-label])").forEach(function (bar) {
      bar.setAttribute("aria-label", "Loading the page");
    });
    document.querySelectorAll(SCROLLERS).forEach(function (node) {
      if (node.hasAttribute("tabindex") || node.closest("[tabindex='0']") !== node && node.closest("[tabindex='0']")) return;
      if (node.scrollWidth > node.clientWidth + 1 || node.scrollHeight > node.clientHeight + 1) {
        node.setAttribute("tabindex", "0");
        if (!node.hasAttribute("aria-label") && !node.hasAttribute("role") && node.tagName !== "CODE") {
          node.setAttribute("role", "group");   // a plain div or pre may not carry a name; a group may
          node.setAttribute("aria-label", "scrollable content");
        }
      }
    });
  }

  if (window.document$) window.document$.subscribe(fix);
  else document.addEventListener("DOMContentLoaded", fix);
  // Widgets draw their output later (a demo's trajectory, a cell's output): check again then.
  var queued = false;
  new MutationObserver(function () {
    if (!queued) { queued = true; requestAnimationFrame(function () { queued = false; fix(); }); }
  })
    .observe(document.documentElement, { childList: true, subtree: true });
})();
