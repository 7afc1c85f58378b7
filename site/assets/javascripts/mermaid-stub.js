// Material renders ```mermaid blocks with window.mermaid when it exists, and fetches Mermaid from
// unpkg.com when it does not. This stub defines window.mermaid on every page (under 1 KB) and
// imports the real Mermaid, served from this site, only when the first diagram is rendered:
// pages without diagrams never fetch a byte of it. Instant navigation keeps window.mermaid alive.
//
// Layout: Mermaid 12 defaults to ELK, a 1.6 MB chunk fetched for every flowchart. dagre is the
// default here; a diagram that wants ELK says so itself (%%{init: {"layout": "elk"}}%%).
(function () {
  "use strict";
  if (window.mermaid) return;
  var url = new URL("../vendor/mermaid/mermaid.esm.min.mjs", document.currentScript.src).href;
  var settings = {};
  var loading = null;

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

  window.mermaid = {
    initialize: function (options) { settings = options || {}; },
    render: function (id, text) { return load().then(function (m) { return m.render(id, text); }); },
    parse: function (text, options) { return load().then(function (m) { return m.parse(text, options); }); },
    load: load,
  };
})();
