// Accessibility fixes that neither CSS (a11y.css) nor the build (hooks/markup.py names the search
// dialog and the loading bar) can make: a code block, table or widget output that scrolls gets
// tabindex=0 (and, unless it is a <code>, a role and a label), so keyboard users can scroll it too
// (WCAG 2.1.1; axe's scrollable-region-focusable). Whether a block scrolls depends on the screen,
// so only the page can tell.
//
// Light on the main thread: each block is checked when it appears (every block of a page once,
// after each instant navigation), then again only when a widget changes what is inside it (a demo's
// trajectory, a cell's output), seen by one observer on the page's content, not the whole document,
// or when a <details> around it opens.
// Checks wait for the next animation frame and run as one batch: every size is read first, then
// the attributes are written, so a batch costs at most one layout, not one per block.
(function () {
  "use strict";
  var SCROLLERS =
    ".md-typeset pre > code, .md-typeset pre, .md-typeset__scrollwrap, .md-typeset .lllm-diagram, " +
    ".md-typeset .mermaid > code, .lllm-demo pre, .lllm-cell__output";

  var queued = new Set();
  var frame = 0;

  function focusable(node) {
    // it, or a block around it, can already take the focus
    return node.hasAttribute("tabindex") || Boolean(node.parentElement && node.parentElement.closest("[tabindex='0']"));
  }

  function check(node) {
    if (node && !focusable(node)) queued.add(node);
    if (queued.size && !frame) frame = requestAnimationFrame(flush);
  }

  function scrolls(node) {
    return node.scrollWidth > node.clientWidth + 1 || node.scrollHeight > node.clientHeight + 1;
  }

  function flush() {
    frame = 0;
    var nodes = Array.from(queued).filter(function (node) {
      return node.isConnected;
    });
    queued.clear();
    var scrolling = nodes.filter(scrolls); // reads only: one layout for the whole batch
    scrolling.forEach(function (node) {
      // then writes, in the order the blocks came
      if (focusable(node)) return; // a block around it got tabindex=0 in this batch
      node.setAttribute("tabindex", "0");
      if (!node.hasAttribute("aria-label") && !node.hasAttribute("role") && node.tagName !== "CODE") {
        node.setAttribute("role", "group"); // a plain div or pre may not carry a name; a group may
        node.setAttribute("aria-label", "scrollable content");
      }
    });
  }

  // What a widget changed: the blocks it added, and the block that holds text it added or edited.
  function changed(records) {
    records.forEach(function (record) {
      var target = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
      check(target && target.closest(SCROLLERS));
      record.addedNodes.forEach(function (node) {
        if (node.nodeType !== Node.ELEMENT_NODE) return;
        if (node.matches(SCROLLERS)) check(node);
        if (node.firstElementChild) node.querySelectorAll(SCROLLERS).forEach(check);
      });
    });
  }

  var observer = new MutationObserver(changed);

  function setUpPage() {
    // the first load and every instant navigation: Material swaps the content
    observer.disconnect();
    var content = document.querySelector(".md-content") || document.body;
    content.querySelectorAll(SCROLLERS).forEach(check);
    observer.observe(content, { childList: true, subtree: true, characterData: true });
  }

  // A block inside a closed <details> (a demo's terminal output) has no size until it is opened.
  document.addEventListener(
    "toggle",
    function (event) {
      if (event.target.open) event.target.querySelectorAll(SCROLLERS).forEach(check);
    },
    true,
  ); // toggle does not bubble

  if (window.document$) window.document$.subscribe(setUpPage);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUpPage);
  else setUpPage();
})();
