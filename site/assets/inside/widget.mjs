// Layer 1 (browser) · the /tinyllm/inside/ widget: generate a text with TinyLLM's inspection model,
// then scrub over it and see every stage at the chosen character. Read draw.mjs first (the numbers
// a view shows), then lllm/model/inside.py (the same loop in Python) and export/inspect_export.py
// (the graph: one character per run, every stage an output).
//
// What loads: runtime.json (hooks/runtime.py), onnxruntime-web's plain wasm build and the inspection
// model with its card. No Python: the token loop is the one below, in JavaScript, on the page's own
// thread (a run takes well under a millisecond). Moving a knob recomputes the selected position's
// distribution and draw from the logits already in hand; only Generate runs the model again.
//
// Nothing loads with the page: the model (onnxruntime-web, 14 MB, 3.7 MB gzip, and the 0.6 MB inspection model)
// starts downloading when the reader first touches the widget (a tap, a click, the keyboard's focus), and
// the first text is written when they press Generate; until then the status line says so. Loaded with the
// page, the first text's 44 model runs and the drawing of every stage blocked a phone's main thread for
// over a second (Lighthouse's TBT 1,438 ms; the Performance page has the figures).
// "Start here" (guide.mjs) leads a first visit through the parts marked data-part, in order.
// Readers count characters from 1 ("character 4 of 44"); the view's position, as the terminal's
// --position, counts from 0.
// For tests and curious readers: root.dataset.state is idle | ready | running | error,
// root.dataset.runs counts model runs, root.lllmView is the shown view (the object
// `python -m lllm inside --json` prints) and root.lllmTrace the text and its per-position outputs.
// runTrace, stagesOf, distribution, drawText and loadInside are shared with time travel's drilldown
// (../agents/drill-brains.mjs).

import { el, field, input } from "../runtime/dom.mjs";
import { openModel } from "./session.mjs";
import { Mulberry32, sample } from "../runtime/sampler.mjs";
import { positionView } from "./draw.mjs";
import { heatmap, stageTable } from "./heatmap.mjs";
import { startHere } from "./guide.mjs";

const STAGES = [
  ["input_gate", "input gate i"],
  ["forget_gate", "forget gate f"],
  ["output_gate", "output gate o"],
  ["candidate", "candidate g"],
  ["cn", "cell state c"],
  ["hn", "hidden state h"],
];
const SHOWN = 10; // rows of the distribution table
const TOUCH = ["pointerdown", "focusin", "keydown"]; // the reader's first touch starts the model's download
const IDLE =
  "Press Generate to write a text: the model (onnxruntime-web and the inspection model, about 4 MB " +
  "compressed) loads then, not with the page.";

// ---- the model: onnxruntime-web on the page's thread (session.mjs) ---------------------------------

const loadModel = () => loadInside();

// ---- the token loop: lllm/model/inside.py's trace(), one character per run --------------------------

// `given` (time travel's drilldown): these characters follow the prompt instead of draws, so the trace
// is the forward pass a run already made; the last of them is the one the last position draws.
export async function runTrace(m, root, { prompt, length, seed, temperature, topK, topP, given = null }) {
  const { vocab, config } = m.card;
  const { layers, hidden } = config;
  const index = new Map(vocab.map((ch, i) => [ch, i]));
  let ids = [...prompt].filter((ch) => index.has(ch)).map((ch) => index.get(ch));
  const dropped = [...new Set([...prompt].filter((ch) => !index.has(ch)))];
  if (ids.length === 0) ids = [index.get("\n")];
  const promptLength = ids.length;
  if (given !== null) {
    ids.push(...[...given].filter((ch) => index.has(ch)).map((ch) => index.get(ch)));
    length = ids.length - promptLength - 1;
  }
  const rng = new Mulberry32(seed);
  let h = new Float32Array(layers * hidden),
    c = new Float32Array(layers * hidden);
  const steps = [];
  for (let position = 0; position < promptLength + length; position++) {
    const out = await m.session.run({
      input_id: new m.ort.Tensor("int64", BigInt64Array.from([BigInt(ids[position])]), [1]),
      h0: new m.ort.Tensor("float32", h, [layers, 1, hidden]),
      c0: new m.ort.Tensor("float32", c, [layers, 1, hidden]),
    });
    root.dataset.runs = String(Number(root.dataset.runs) + 1);
    const perLayer = (name, l) => Array.from(out[name].data.subarray(l * hidden, (l + 1) * hidden));
    steps.push({
      embedding: Array.from(out.embedding.data),
      logits: Array.from(out.logits.data),
      layers: Array.from({ length: layers }, (_, l) => Object.fromEntries(STAGES.map(([s]) => [s, perLayer(s, l)]))),
    });
    h = Float32Array.from(out.hn.data);
    c = Float32Array.from(out.cn.data);
    if (position >= promptLength - 1 && ids.length < promptLength + length)
      ids.push(sample(steps[position].logits, { temperature, topK, topP, rng }));
  }
  return { vocab, ids, promptLength, seed, steps, dropped };
}

// ---- drawing one view ----------------------------------------------------------------------------

export const loadInside = (pick = (m) => m.inside) =>
  openModel(pick, "the inspection model", "This build has no inspection model: run `make model`");
const fmt = (x) => (x === null || x === undefined ? "—" : x.toFixed(4));
export const shown = (ch) => (ch === "\n" ? "↵" : ch === " " ? "·" : ch); // glyphs every system font has
export const spoken = (ch) => (ch === "\n" ? "newline" : ch === " " ? "space" : JSON.stringify(ch));

export function distribution(view, vocab) {
  const kept = new Map((view.draw?.kept ?? []).map(([ch, share]) => [ch, share]));
  const order = view.logits.map((_, i) => i).sort((a, b) => view.logits[b] - view.logits[a] || a - b);
  const rows = order.slice(0, SHOWN).map((i) => {
    const char = vocab[i];
    const share = kept.get(char);
    const bar = el("span", { class: "lllm-inside__bar", "aria-hidden": "true" });
    bar.style.width = `${(100 * view.probs[i]).toFixed(1)}%`;
    return el(
      "tr",
      { "data-char": char, class: view.draw && char === view.draw.char ? "lllm-inside__drawn" : null },
      el("td", {}, char === " " || char === "\n" ? spoken(char) : el("code", {}, char)),
      el("td", { "data-value": view.logits[i] }, view.logits[i].toFixed(2)),
      el(
        "td",
        { "data-value": view.probs[i], class: "lllm-inside__prob" },
        el("span", { class: "lllm-inside__barwrap" }, bar),
        fmt(view.probs[i]),
      ),
      el("td", {}, view.draw ? (share === undefined ? "cut" : fmt(share)) : "—"),
    );
  });
  return el(
    "table",
    { class: "lllm-inside__dist" },
    el("caption", {}, `The ${SHOWN} likeliest next characters`),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["character", "logit", `softmax at T = ${view.temperature}`, "share after the cut"].map((h) => el("th", { scope: "col" }, h)),
      ),
    ),
    el("tbody", {}, rows),
  );
}
function render(parts, view) {
  const { vocab } = parts.trace;
  parts.text.replaceChildren(
    ...parts.trace.ids.map((id, p) =>
      el(
        p === view.position ? "mark" : "span",
        { class: p < parts.trace.promptLength ? "lllm-inside__prompt" : null, "data-position": p },
        shown(vocab[id]),
      ),
    ),
  );
  parts.positionLabel.textContent = characterOf(view.position, parts.trace.ids.length);
  parts.slider.setAttribute("aria-valuetext", `${characterOf(view.position, parts.trace.ids.length)}: ${spoken(view.char)}`);
  parts.stages.replaceChildren(...stagesOf(view, vocab, "h2"));
  parts.guide.refresh();
}

/** A position (from 0) as readers count: "character 4 of 44". */
export const characterOf = (position, count) => `character ${position + 1} of ${count}`;

/** The view's stages, as this page draws them: input, embedding, each layer's gates and states, the cut, the draw.
 *  Their headings are `h` (h2 on the inside page, whose widget sits under the page's title; h3 in time travel). */
export function stagesOf(view, vocab, h = "h3") {
  const stages = [
    el(h, { "data-part": "char" }, "1 · Input character"),
    el("p", { class: "lllm-inside__char", "data-part": "char" }, el("code", {}, shown(view.char)), ` ${spoken(view.char)}, id ${view.id}`),
    el(h, {}, `2 · Embedding (${view.embedding.length} numbers)`),
    heatmap(view.embedding, { signed: true, label: "embedding" }),
    stageTable([["embedding", view.embedding]], "embedding"),
  ];
  view.layers.forEach((layer, l) => {
    stages.push(
      el(h, { "data-part": "state" }, `3 · LSTM layer ${l}: gates, candidate, cell and hidden state (${layer.hn.length} units each)`),
    );
    const grid = el("div", { class: "lllm-inside__grid", "data-part": "state" });
    for (const [key, name] of STAGES)
      grid.append(
        el(
          "figure",
          { "data-stage": key, "data-layer": l },
          el("figcaption", {}, name),
          heatmap(layer[key], { signed: !key.endsWith("_gate"), label: `layer ${l} ${name}` }),
        ),
      );
    stages.push(
      el(
        "p",
        { class: "lllm-inside__legend", "data-part": "state" },
        "Gates: pale is 0, indigo 1. Candidate, cell and hidden state: " +
          "orange below 0, pale 0, indigo above 0. One cell per unit, left to right, top to bottom.",
      ),
      grid,
      stageTable(
        STAGES.map(([key, name]) => [name, layer[key]]),
        `layer ${l}`,
      ),
    );
  });
  stages.push(el(h, { "data-part": "probs" }, "4 · Logits, softmax and the cut"), part(distribution(view, vocab), "probs"));
  stages.push(el(h, { "data-part": "draw" }, "5 · The draw"), part(drawText(view), "draw"));
  return stages;
}

const part = (node, key) => {
  node.dataset.part = key;
  return node;
};

export function drawText(view) {
  const d = view.draw;
  if (!d)
    return el(
      "p",
      { class: "lllm-inside__draw", "data-char": view.next?.char ?? "" },
      view.next ? `Nothing is drawn here: the next character, ${spoken(view.next.char)}, is the prompt's.` : "",
    );
  const lead =
    d.uniform === null
      ? "Temperature 0 is greedy: the largest logit wins and no random number is used."
      : `Draw ${d.index + 1} uses random number u = ${d.uniform.toFixed(6)}. The kept weights sum to ${d.total.toFixed(6)}, so the target is u × total = ${d.target.toFixed(6)}; walking the kept characters in order, the first whose running sum passes it is`;
  return el(
    "p",
    { class: "lllm-inside__draw", "data-char": d.char, "data-uniform": d.uniform ?? "" },
    lead,
    " ",
    el("strong", {}, `${spoken(d.char)}.`),
    view.next && view.next.char !== d.char ? ` (The text has ${spoken(view.next.char)}: it was drawn with the knobs Generate used.)` : "",
  );
}

// ---- the widget ----------------------------------------------------------------------------------

export function mount(root) {
  if (root.dataset.mounted) return;
  root.dataset.mounted = "1";
  root.dataset.runs = "0";
  const prompt = input("prompt", root.dataset.prompt ?? "Once", { type: "text", size: 16 });
  const seed = input("seed", root.dataset.seed ?? 1, { type: "number", min: 0, step: 1 });
  const length = input("length", root.dataset.length ?? 40, { type: "number", min: 1, max: 400, step: 1 });
  const temperature = input("temperature", 0.8, { type: "range", min: 0, max: 2, step: 0.05 });
  const topK = input("top-k", 0, { type: "number", min: 0, max: 96, step: 1 });
  const topP = input("top-p", 1, { type: "range", min: 0.05, max: 1, step: 0.05 });
  temperature.value = "0.8";
  topP.value = "1"; // again: a range input clamps a value set before its min/max/step
  const tOut = el("output", {}, "0.8"),
    pOut = el("output", {}, "1");
  const go = el("button", { type: "button", class: "md-button md-button--primary" }, "Generate");
  const status = el("p", { class: "lllm-inside__status", role: "status" }, IDLE);
  const slider = input("position", 0, { type: "range", min: 0, max: 0, step: 1, disabled: true });
  slider.setAttribute("aria-label", "character of the text");
  const prev = el("button", { type: "button", class: "md-button", disabled: true }, "◀ previous");
  const next = el("button", { type: "button", class: "md-button", disabled: true }, "next ▶");
  const positionLabel = el("span", { class: "lllm-inside__pos" });
  const text = el("p", { class: "lllm-inside__text", "aria-hidden": "true", "data-part": "char" });
  const stages = el("div", { class: "lllm-inside__stages", "aria-live": "off" });
  const guide = startHere(root, { focusFirst: slider });
  root.replaceChildren(
    guide.box,
    el("div", { class: "lllm-inside__controls" }, field("prompt", prompt), field("seed", seed), field("length", length), go),
    el(
      "div",
      { class: "lllm-inside__controls" },
      field("temperature", temperature),
      tOut,
      field("top-k", topK),
      field("top-p", topP),
      pOut,
    ),
    status,
    text,
    el("div", { class: "lllm-inside__scrub", "data-part": "char" }, prev, field("character", slider), next, positionLabel),
    stages,
  );
  const parts = { text, stages, positionLabel, slider, guide, trace: null };
  const knobs = () => ({
    temperature: Number(temperature.value),
    topK: Math.max(0, Math.floor(Number(topK.value) || 0)),
    topP: Number(topP.value),
  });
  const show = () => {
    if (!parts.trace) return;
    tOut.textContent = temperature.value;
    pOut.textContent = topP.value;
    const view = positionView(parts.trace, Number(slider.value), knobs());
    root.lllmView = view;
    render(parts, view);
    prev.disabled = view.position === 0;
    next.disabled = view.position === parts.trace.ids.length - 1;
  };
  const move = (by) => {
    slider.value = String(Number(slider.value) + by);
    show();
  };
  slider.addEventListener("input", show);
  prev.addEventListener("click", () => move(-1));
  next.addEventListener("click", () => move(1));
  for (const knob of [temperature, topK, topP]) knob.addEventListener("input", show);
  text.addEventListener("click", (e) => {
    const p = e.target.closest("[data-position]")?.dataset.position;
    if (p !== undefined) {
      slider.value = p;
      show();
    }
  });
  let model = null; // the model's load, started by the reader's first touch (or Generate)
  const load = () => {
    if (!model) {
      model = loadModel();
      model.catch(() => {
        model = null; // a failed download is tried again on the next Generate
      });
    }
    return model;
  };
  for (const type of TOUCH) root.addEventListener(type, load, { once: true, passive: true });
  const generate = async () => {
    go.disabled = true;
    root.dataset.state = "running";
    if (!parts.trace) status.textContent = "Loading the model…";
    try {
      const m = await load();
      const trace = await runTrace(m, root, {
        prompt: prompt.value,
        length: Math.max(1, Math.floor(Number(length.value) || 40)),
        seed: Math.max(0, Math.floor(Number(seed.value) || 0)),
        ...knobs(),
      });
      parts.trace = trace;
      root.lllmTrace = trace;
      slider.max = String(trace.ids.length - 1);
      slider.disabled = false;
      slider.value = String(trace.promptLength - 1);
      status.textContent =
        `${trace.ids.length} characters, one model run each (${root.dataset.runs} runs so far).` +
        (trace.dropped.length ? ` Dropped from the prompt (not in the vocabulary): ${trace.dropped.map(spoken).join(", ")}.` : "");
      show();
      root.dataset.state = "ready";
    } catch (error) {
      status.textContent = `The inspection model could not run: ${error.message ?? error}`;
      root.dataset.state = "error";
    } finally {
      go.disabled = false;
    }
  };
  go.addEventListener("click", generate);
  root.dataset.state = "idle";
}
