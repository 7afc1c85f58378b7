// The /tinyllm/train/ page's loader: on a page with a `.lllm-train` element it imports the widget
// (widget.mjs) and mounts it; on every other page it loads nothing. Material's instant navigation
// swaps pages without reloading scripts, hence document$.

function setUpPage() {
  const roots = document.querySelectorAll(".lllm-train");
  if (roots.length) import("./widget.mjs").then(({ mount }) => roots.forEach(mount));
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
