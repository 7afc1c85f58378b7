// The playground widget (site/playground.md): TinyLLM or TinyGPT (the model switch) writing in
// the page, character by character, with the next-character probabilities for the current position and the measured
// speed. The same settings and seed give exactly what `python -m lllm generate` prints.
// Generation needs only the model, so it can start before Python has finished loading.

import { lllm } from "./lllm.mjs";
import { el, field, input, pct, select } from "./dom.mjs";

// [value, label]: the model the predictor asks for by name (runtime.json), as `--predictor` names it
const MODELS = [
  ["tinyllm", "TinyLLM (LSTM)"],
  ["tinygpt", "TinyGPT (attention)"],
];

const CONTROLS = [
  // [name, label, default, attributes] — defaults match `python -m lllm generate`
  ["maxNewTokens", "length", 200, { type: "number", min: 0, max: 5000, step: 1 }],
  ["temperature", "temperature", 0.8, { type: "number", min: 0, max: 5, step: 0.1 }],
  ["topK", "top-k", 0, { type: "number", min: 0, step: 1 }],
  ["topP", "top-p", 1, { type: "number", min: 0.01, max: 1, step: 0.05 }],
  ["seed", "seed", 0, { type: "number", min: 0, step: 1 }],
];

function showBars(bars, top, after) {
  bars.replaceChildren(el("div", { class: "lllm-pg__bars-title" }, `next character after ${JSON.stringify(after)}`));
  for (const [char, p] of top) {
    const row = el("div", { class: "lllm-pg__bar" });
    const label = el("code", { class: "lllm-pg__bar-char" }, JSON.stringify(char).slice(1, -1) || " ");
    const track = el("span", { class: "lllm-pg__bar-track" });
    const fill = el("span", { class: "lllm-pg__bar-fill" });
    fill.style.width = pct(p);
    track.append(fill);
    row.append(label, track, el("span", { class: "lllm-pg__bar-p" }, pct(p)));
    bars.append(row);
  }
}

function setUp(root) {
  if (root.dataset.lllmReady) return;
  root.dataset.lllmReady = "1";
  const prompt = el("textarea", { class: "lllm-pg__prompt" });
  prompt.value = root.dataset.prompt ?? "Once";
  prompt.rows = 3;
  prompt.setAttribute("aria-label", "prompt");
  const controls = el("div", { class: "lllm-pg__controls" });
  const inputs = {};
  const model = select("model", MODELS, root.dataset.model ?? "tinyllm");
  controls.append(field("model", model, "lllm-pg__field"));
  for (const [name, label, value, attributes] of CONTROLS) {
    inputs[name] = input(name, value, attributes);
    controls.append(field(label, inputs[name], "lllm-pg__field"));
  }
  // "your trained model" (/tinyllm/train/, kept in this browser) is offered once there is one
  import("../train/yours.mjs")
    .then((m) => m.readYoursCard())
    .then(
      (card) => {
        if (card) model.append(Object.assign(el("option", {}, "your trained model"), { value: "tinyllm-yours" }));
      },
      () => {},
    );
  const go = el("button", { class: "md-button md-button--primary" }, "Generate");
  const stop = el("button", { class: "md-button" }, "Stop");
  go.type = stop.type = "button";
  stop.hidden = true;
  controls.append(go, stop);

  const status = el("div", { class: "lllm-pg__status" });
  const text = el("pre", { class: "lllm-pg__text" });
  const shownPrompt = el("span", { class: "lllm-pg__prompt-echo" });
  const completion = el("span", { class: "lllm-pg__completion" });
  text.append(shownPrompt, completion);
  const bars = el("div", { class: "lllm-pg__bars" });
  const speed = el("div", { class: "lllm-pg__speed" });
  root.replaceChildren(prompt, controls, status, text, speed, bars);

  const unsubscribe = lllm.onStatus((s) => {
    if (!root.isConnected) {
      unsubscribe();
      return;
    } // the reader navigated away (instant navigation)
    if (s.modelError) status.textContent = `The model could not be loaded: ${s.modelError}`;
    else if (s.state === "loading") status.textContent = lllm.describe(s);
    else status.textContent = "";
    root.dataset.state = s.modelError ? "error" : s.state;
  });

  go.addEventListener("click", async () => {
    const params = { prompt: prompt.value, model: model.value };
    for (const [name] of CONTROLS) params[name] = Number(inputs[name].value);
    shownPrompt.textContent = prompt.value;
    if (root.dataset.done === "error") status.textContent = ""; // the last run's error is not this run's
    completion.textContent = "";
    speed.textContent = "";
    root.dataset.done = "";
    go.disabled = true;
    stop.hidden = false;
    let pending = "",
      lastTop = null,
      frame = 0;
    const flush = () => {
      // paint at most once per frame, however fast the model is
      frame = 0;
      completion.textContent += pending;
      pending = "";
      if (lastTop) showBars(bars, lastTop, (prompt.value + completion.textContent).slice(-12));
    };
    const t0 = performance.now();
    let first = 0;
    try {
      await lllm.modelReady(params.model);
      const result = await lllm.generate(params, {
        details: true,
        onStep: (char, top) => {
          first ||= performance.now();
          pending += char;
          lastTop = top;
          frame ||= requestAnimationFrame(flush);
        },
      });
      if (frame) cancelAnimationFrame(frame);
      flush();
      completion.textContent = result.completion; // exact text (a stop string is removed)
      const n = [...result.completion].length;
      speed.textContent =
        `${n} characters in ${result.ms.toFixed(0)} ms: ${((1000 * n) / Math.max(result.ms, 0.001)).toFixed(0)} characters/s ` +
        `(first character after ${(first - t0).toFixed(0)} ms)`;
      if (result.dropped.length)
        speed.textContent += ` · dropped from the prompt (not in the vocabulary): ${result.dropped.map((c) => JSON.stringify(c)).join(", ")}`;
      root.dataset.done = "ok";
    } catch (error) {
      status.textContent = error.message;
      root.dataset.done = "error";
    } finally {
      go.disabled = false;
      stop.hidden = true;
    }
  });
  stop.addEventListener("click", () => lllm.stop());
}

function setUpPage() {
  document.querySelectorAll(".lllm-playground").forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
