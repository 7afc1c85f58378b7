// Wide generated diagrams (hooks/architecture.py wraps them in <div class="lllm-diagram">): the
// frame scrolls sideways at a legible scale (site/assets/stylesheets/diagrams.css), and an
// "Enlarge" button opens the diagram at its natural size in a full-window dialog.
//
// Every diagram is drawn at build time (hooks/diagrams.py) as an SVG in the page, so Enlarge shows a
// copy of that SVG at the width of its viewBox. The copy goes into a shadow root of its own: its ids
// (arrow heads) stay apart from the original's, and the page's --md-mermaid-* colours still reach it.
// The page's one copy of the diagrams' CSS lives in its first SVG, so it is carried into the copy too.
// No framework, no inline handlers, nothing evaluated: it works under the site's CSP.
(function () {
  "use strict";

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

  function enlarge(svg) {
    var dialog = document.createElement("dialog");
    dialog.className = "lllm-zoom";
    dialog.setAttribute("aria-label", "Diagram at full size");
    var canvas = document.createElement("div");
    canvas.className = "lllm-zoom__canvas mermaid lllm-mermaid";
    dialog.append(
      button("Close", "lllm-zoom__close", function () {
        dialog.close();
      }),
      canvas,
    );
    dialog.addEventListener("close", function () {
      dialog.remove();
    });
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) dialog.close();
    });
    var root = canvas.attachShadow({ mode: "open" }); // open: tests can look at the SVG
    var copy = svg.cloneNode(true);
    document.querySelectorAll(".lllm-mermaid > svg > style").forEach(function (style) {
      copy.prepend(style.cloneNode(true)); // the shared CSS, wherever on the page it is
    });
    var frame = document.createElement("div"); // the shared CSS is scoped to `.lllm-mermaid > svg`
    frame.className = "lllm-mermaid";
    frame.append(copy);
    root.append(frame);
    naturalSize(copy);
    document.body.append(dialog);
    dialog.showModal();
  }

  function setUpPage() {
    document.querySelectorAll(".lllm-diagram").forEach(function (frame) {
      if (frame.dataset.lllmDiagram) return; // document$ fires again on instant navigation
      var svg = frame.querySelector(".lllm-mermaid > svg");
      if (!svg) return;
      frame.dataset.lllmDiagram = "ready";
      var bar = document.createElement("div");
      bar.className = "lllm-diagram__bar";
      bar.append(
        button("Enlarge", "lllm-diagram__enlarge", function () {
          enlarge(svg);
        }),
      );
      frame.parentNode.insertBefore(bar, frame);
    });
  }

  if (window.document$) window.document$.subscribe(setUpPage);
})();
