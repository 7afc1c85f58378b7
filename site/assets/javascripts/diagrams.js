// Wide generated diagrams (hooks/architecture.py wraps them in <div class="lllm-diagram">): the
// frame scrolls sideways at a legible scale (site/assets/stylesheets/diagrams.css), and an
// "Enlarge" button opens the diagram at its natural size in a full-window dialog.
//
// Material draws each diagram into a closed shadow root, so the drawn SVG cannot be reached from
// here. Instead the Mermaid text is read from the <pre> while Material is still drawing it (it
// replaces the <pre> only when mermaid.render resolves), and Enlarge draws it again with the same
// window.mermaid. No framework, no inline handlers, nothing evaluated: it works under the site's CSP.
(function () {
  "use strict";
  var sources = new WeakMap();   // frame -> Mermaid text
  var drawn = 0;

  function button(text, className, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = className;
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  function naturalSize(svg) {
    var box = svg.viewBox && svg.viewBox.baseVal;
    if (!box || !box.width) return;
    svg.removeAttribute("width");
    svg.style.maxWidth = "none";
    svg.style.width = box.width + "px";
    svg.style.height = box.height + "px";
  }

  function enlarge(text) {
    var dialog = document.createElement("dialog");
    dialog.className = "lllm-zoom";
    dialog.setAttribute("aria-label", "Diagram at full size");
    var canvas = document.createElement("div");
    canvas.className = "lllm-zoom__canvas";
    canvas.textContent = "Drawing the diagram…";
    dialog.append(button("Close", "lllm-zoom__close", function () { dialog.close(); }), canvas);
    dialog.addEventListener("close", function () { dialog.remove(); });
    dialog.addEventListener("click", function (event) { if (event.target === dialog) dialog.close(); });
    document.body.append(dialog);
    dialog.showModal();
    window.mermaid.render("lllm-zoom-" + ++drawn, text).then(function (result) {
      canvas.textContent = "";
      var root = canvas.attachShadow({ mode: "open" });   // open: tests can look at the SVG
      root.innerHTML = result.svg;
      naturalSize(root.querySelector("svg"));
    }, function (error) {
      canvas.textContent = "Could not draw the diagram: " + ((error && error.message) || error);
    });
  }

  function setUpPage() {
    document.querySelectorAll(".lllm-diagram").forEach(function (frame) {
      if (frame.dataset.lllmDiagram) return;      // document$ fires again on instant navigation
      var pre = frame.querySelector("pre");
      if (!pre || !window.mermaid) return;        // already drawn before we saw it: the frame still scrolls
      frame.dataset.lllmDiagram = "ready";
      sources.set(frame, pre.textContent);
      var bar = document.createElement("div");
      bar.className = "lllm-diagram__bar";
      bar.append(button("Enlarge", "lllm-diagram__enlarge", function () { enlarge(sources.get(frame)); }));
      frame.parentNode.insertBefore(bar, frame);
    });
  }

  if (window.document$) window.document$.subscribe(setUpPage);
})();
