// Layer 1 (browser) · the /tinyllm/inside/ page's loader: on a page with a `.lllm-inside` element it
// imports the widget (widget.mjs) and mounts it, with the TinyLLM / TinyGPT switch; on every other page it loads nothing.
// Material's instant navigation swaps pages without reloading scripts, hence document$.

// The model switch: where a `.lllm-inside-gpt` element follows, a TinyLLM / TinyGPT choice above the
// two; TinyGPT's widget (gpt-widget.mjs) loads the first time it is chosen.
function modelSwitch(lstm, gpt) {
  if (gpt.dataset.switch) return;
  gpt.dataset.switch = "1";
  gpt.hidden = true;
  const label = Object.assign(document.createElement("label"), { className: "lllm-inside__switch" });
  const select = Object.assign(document.createElement("select"), { name: "model" });
  for (const [value, text] of [
    ["tinyllm", "TinyLLM (LSTM)"],
    ["tinygpt", "TinyGPT (attention)"],
  ])
    select.append(Object.assign(document.createElement("option"), { value, textContent: text }));
  label.append("model ", select);
  lstm.before(label);
  select.addEventListener("change", () => {
    const isGpt = select.value === "tinygpt";
    lstm.hidden = isGpt;
    gpt.hidden = !isGpt;
    if (isGpt) import("./gpt-widget.mjs").then(({ mount }) => mount(gpt));
  });
}

// The switch is drawn in the same task as the widget, and TinyGPT's box is hidden by inside.css until
// then, so the page moves once, into the room inside.css keeps for both: no layout shift.
function setUpPage() {
  const roots = document.querySelectorAll(".lllm-inside");
  const gpt = document.querySelector(".lllm-inside-gpt");
  if (roots.length)
    import("./widget.mjs").then(({ mount }) => {
      roots.forEach(mount);
      if (gpt) modelSwitch(roots[0], gpt);
    });
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
