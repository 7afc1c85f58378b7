// Material renders ```mermaid blocks with window.mermaid when it exists, and fetches Mermaid from
// unpkg.com when it does not. This stub defines window.mermaid on every page (under 2 KB) and
// imports the real Mermaid, served from this site, only when the first diagram is rendered:
// pages without diagrams never fetch a byte of it. Instant navigation keeps window.mermaid alive.
//
// Layout: Mermaid 12 defaults to ELK, a 1.6 MB chunk fetched for every flowchart. dagre is the
// default here; a diagram that wants ELK says so itself (%%{init: {"layout": "elk"}}%%).
//
// When: Material asks for every diagram of a page at once, as soon as the page is set up. A
// diagram is drawn only when its block comes within a screen of the viewport, so a page whose
// diagrams are further down fetches no Mermaid until the reader scrolls towards them. Its block
// already has the drawn diagram's size (hooks/diagrams.py), so nothing moves when it is swapped.
(function () {
  "use strict";
  if (window.mermaid) return;
  var url = new URL("../vendor/mermaid/mermaid.esm.min.mjs", document.currentScript.src).href;
  var settings = {};
  var loading = null;
  var near = new WeakMap();     // pre.mermaid -> function to call when it comes near the viewport
  var watcher = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting || !near.has(entry.target)) return;
      watcher.unobserve(entry.target);
      near.get(entry.target)();
      near.delete(entry.target);
    });
  }, { rootMargin: "100% 0px" }) : null;

  function load() {
    if (!loading) {
      loading = import(url).then(function (module) {
        var mermaid = module.default;
        mermaid.initialize(Object.assign({ layout: "dagre" }, settings, { startOnLoad: false }));
        return mermaid;
      });
    }
    return loading;
  }

  // Material calls render("__mermaid_<n>", text) right after putting the class back on its block,
  // in page order: the first such block with this text that is not yet waiting is the one.
  function blockFor(id, text) {
    if (!watcher || id.indexOf("__mermaid_") !== 0) return null;
    var blocks = document.querySelectorAll("pre.mermaid");
    for (var i = 0; i < blocks.length; i++) {
      if (!blocks[i].dataset.lllmWaiting && blocks[i].textContent === text) return blocks[i];
    }
    return null;
  }

  function whenNear(block) {
    if (!block) return Promise.resolve();
    block.dataset.lllmWaiting = "yes";
    return new Promise(function (resolve) {
      near.set(block, resolve);
      watcher.observe(block);
    });
  }

  window.mermaid = {
    initialize: function (options) { settings = options || {}; },
    render: function (id, text) {
      return whenNear(blockFor(id, text)).then(load).then(function (m) { return m.render(id, text); });
    },
    parse: function (text, options) { return load().then(function (m) { return m.parse(text, options); }); },
    load: load,
  };
})();
