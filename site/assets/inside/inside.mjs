// Layer 1 (browser) · the /tinyllm/inside/ page's loader: on a page with a `.lllm-inside` element it
// imports the widget (widget.mjs) and mounts it; on every other page it loads nothing.
// Material's instant navigation swaps pages without reloading scripts, hence document$.

function setUpPage() {
  const roots = document.querySelectorAll(".lllm-inside");
  if (roots.length) import("./widget.mjs").then(({ mount }) => roots.forEach(mount));
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
