// Layer 1 (browser) · /tinyllm/inside/ with the model switch on TinyGPT: generate a text, pick a
// position, and see the attention of every head of every layer over the characters before it, and
// what the key/value cache saved. The twin of lllm/model/gpt_inside.py (read it first): the same
// loop (site/assets/runtime/gpt.mjs's gptForward, the same refill rule) and the same sampler, so
// `python -m lllm inside --predictor tinygpt` prints the numbers shown here.
//
// For tests: root.dataset.state is loading | ready | running | error; root.lllmTrace holds the text
// and each position's attention rows; root.lllmView the shown position; root.lllmSaving the
// positions computed and the milliseconds taken with and without the cache (measured here, now).
// `keep` and `headsTable` are shared with time travel's drilldown (../agents/drill-brains.mjs).

import { el, field, input } from "../runtime/dom.mjs";
import { openModel } from "./session.mjs";
import { Mulberry32, sample } from "../runtime/sampler.mjs";
import { gptForward } from "../runtime/gpt.mjs";
import { characterOf, shown } from "./widget.mjs";

const PALE = [243, 244, 251],
  INDIGO = [40, 53, 147];

const loadModel = () => openModel((m) => m.models?.tinygpt, "TinyGPT", "This build has no TinyGPT: run `make model`");

// ---- the loop: gpt_inside.trace, every position read once ---------------------------------------

/** Keep rows of attention {data, dims [L, 1, n, T, S]} for the last positions.length queries. */
export function keep(trace, attention, positions, firstKey) {
  const [L, , n, T, S] = attention.dims;
  positions.forEach((p, k) => {
    const r = T - positions.length + k;
    trace.firstKey[p] = firstKey;
    trace.rows[p] = Array.from({ length: L }, (_, l) =>
      Array.from({ length: n }, (_, h) => {
        const at = ((l * n + h) * T + r) * S;
        return Array.from(attention.data.subarray(at, at + p - firstKey + 1));
      }),
    );
  });
}

async function runTrace(m, { prompt, length, seed, temperature }) {
  const { vocab } = m.card;
  const index = new Map(vocab.map((ch, i) => [ch, i]));
  let ids = [...prompt].filter((ch) => index.has(ch)).map((ch) => index.get(ch));
  if (ids.length === 0) ids = [index.get("\n")];
  const total = ids.length + length;
  const trace = { vocab, ids, promptLength: ids.length, firstKey: new Array(total).fill(null), rows: new Array(total).fill(null), fed: 0 };
  const rng = new Mulberry32(seed);
  const t0 = performance.now();
  let { logits, state, attention, fed } = await gptForward(m.ort, m, ids, null);
  trace.fed += fed;
  keep(
    trace,
    attention,
    Array.from({ length: state.S }, (_, k) => ids.length - state.S + k),
    ids.length - state.S,
  );
  while (ids.length < total) {
    ids.push(sample(logits, { temperature, topK: 0, topP: 1, rng }));
    ({ logits, state, attention, fed } = await gptForward(m.ort, m, [ids[ids.length - 1]], state));
    trace.fed += fed;
    keep(trace, attention, [ids.length - 1], ids.length - state.S);
  }
  trace.ms = performance.now() - t0;
  return trace;
}

/** The same text read without a cache: every position re-reads the last `block` characters. */
async function withoutCache(m, trace) {
  const { block } = m.card.config;
  const t0 = performance.now();
  let computed = 0;
  for (let p = trace.promptLength - 1; p < trace.ids.length; p++) {
    const window = trace.ids.slice(Math.max(0, p + 1 - block), p + 1);
    await gptForward(m.ort, m, window, null);
    computed += window.length;
  }
  return { computed, ms: performance.now() - t0 };
}

// ---- drawing one position ------------------------------------------------------------------------

// pale (0) to a mid indigo (1): dark enough to read as a heatmap, light enough for the page's dark text on it
const colour = (w) => `rgb(${PALE.map((x, i) => Math.round(x + (INDIGO[i] - x) * 0.6 * Math.min(1, w))).join(",")})`;

export function headsTable(view, l) {
  const keys = view.keys;
  return el(
    "table",
    { class: "lllm-inside__table lllm-inside__attention", "data-layer": l },
    el(
      "caption",
      {},
      `Layer ${l}: each head's attention from ${JSON.stringify(view.char)} (position ${view.position}) to the characters before it`,
    ),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "head"),
        keys.map((ch, j) => el("th", { scope: "col", title: `position ${view.firstKey + j}` }, shown(ch))),
      ),
    ),
    el(
      "tbody",
      {},
      view.layers[l].map((row, h) =>
        el(
          "tr",
          {},
          el("th", { scope: "row" }, String(h)),
          row.map((w) => {
            const cell = el("td", { "data-value": w }, w.toFixed(2));
            cell.style.background = colour(w);
            cell.style.color = "#000";
            return cell;
          }),
        ),
      ),
    ),
  );
}

/** Scroll a heads table's box sideways to the weights that matter: of every window of columns the box
 * can show, the one holding the most attention (summed over the heads), the most recent on a tie. A
 * long context is wider than a phone, and its oldest characters, on the left, are mostly 0.00. */
export function openOnWeights(wrap) {
  const table = wrap.querySelector("table");
  const heads = table ? [...table.tBodies[0].rows].map((tr) => [...tr.cells].slice(1)) : [];
  if (!heads.length || wrap.scrollWidth <= wrap.clientWidth) return;
  const columns = heads[0].map((cell, j) => ({
    left: cell.offsetLeft,
    right: cell.offsetLeft + cell.offsetWidth,
    weight: heads.reduce((sum, row) => sum + Number(row[j].dataset.value), 0),
  }));
  const first = columns[0].left,
    room = wrap.clientWidth - first; // the head column stays in the window's room
  let best = 0,
    bestWeight = -1;
  for (const [j, c] of columns.entries()) {
    const weight = columns.reduce((sum, d) => sum + (d.left >= c.left && d.right <= c.left + room ? d.weight : 0), 0);
    if (weight >= bestWeight - 1e-9) {
      best = j;
      bestWeight = weight;
    }
    if (c.left + room >= columns[columns.length - 1].right) break; // later windows show less
  }
  wrap.scrollLeft = columns[best].left - first;
}

function positionView(trace, p) {
  const first = trace.firstKey[p];
  return {
    position: p,
    char: trace.vocab[trace.ids[p]],
    firstKey: first,
    layers: trace.rows[p],
    keys: trace.ids.slice(first, p + 1).map((i) => trace.vocab[i]),
  };
}

// ---- the widget ----------------------------------------------------------------------------------

export function mount(root) {
  if (root.dataset.mounted) return;
  root.dataset.mounted = "1";
  const prompt = input("prompt", root.dataset.prompt ?? "Once", { type: "text", size: 16 });
  const seed = input("seed", root.dataset.seed ?? 1, { type: "number", min: 0, step: 1 });
  const length = input("length", root.dataset.length ?? 100, { type: "number", min: 1, max: 400, step: 1 });
  const go = el("button", { type: "button", class: "md-button md-button--primary" }, "Generate");
  const status = el("p", { class: "lllm-inside__status", role: "status" }, "Loading TinyGPT…");
  const saving = el("p", { class: "lllm-inside__saving" });
  const slider = input("position", 0, { type: "range", min: 0, max: 0, step: 1, disabled: true });
  slider.setAttribute("aria-label", "character of the text");
  const positionLabel = el("span", { class: "lllm-inside__pos" });
  const text = el("p", { class: "lllm-inside__text", "aria-hidden": "true" });
  const heads = el("div", { class: "lllm-inside__stages" });
  root.replaceChildren(
    el("div", { class: "lllm-inside__controls" }, field("prompt", prompt), field("seed", seed), field("length", length), go),
    status,
    saving,
    text,
    el("div", { class: "lllm-inside__scrub" }, field("character", slider), positionLabel),
    heads,
  );
  let trace = null;
  const show = () => {
    let p = Number(slider.value);
    while (trace.rows[p] === null) p++; // a long prompt's first characters were never read
    const view = positionView(trace, p);
    root.lllmView = view;
    text.replaceChildren(
      ...trace.ids.map((id, q) =>
        el(
          q === p ? "mark" : "span",
          { class: q < trace.promptLength ? "lllm-inside__prompt" : null, "data-position": q },
          shown(trace.vocab[id]),
        ),
      ),
    );
    positionLabel.textContent = `${characterOf(p, trace.ids.length)}: ${JSON.stringify(view.char)} attends over ${view.keys.length} characters`;
    slider.setAttribute("aria-valuetext", `${characterOf(p, trace.ids.length)}: ${JSON.stringify(view.char)}`);
    heads.replaceChildren(
      el(
        "p",
        { class: "lllm-inside__legend" },
        "One row per head, one column per character it can see (itself and " +
          "those before it); pale is 0, indigo 1, and each row sums to 1. A table wider than the screen opens " +
          "scrolled to the characters with the most attention; scroll left for the older ones.",
      ),
      ...view.layers.map((_, l) =>
        el(
          "div",
          { class: "lllm-inside__tablewrap", tabindex: "0", role: "region", "aria-label": `layer ${l} attention` },
          headsTable(view, l),
        ),
      ),
    );
    heads.querySelectorAll(".lllm-inside__tablewrap").forEach(openOnWeights);
  };
  slider.addEventListener("input", show);
  text.addEventListener("click", (e) => {
    const q = e.target.closest("[data-position]")?.dataset.position;
    if (q !== undefined) {
      slider.value = q;
      show();
    }
  });
  const model = loadModel();
  const generate = async () => {
    go.disabled = true;
    root.dataset.state = "running";
    try {
      const m = await model;
      trace = await runTrace(m, {
        prompt: prompt.value,
        length: Math.max(1, Math.floor(Number(length.value) || 100)),
        seed: Math.max(0, Math.floor(Number(seed.value) || 0)),
        temperature: 0.8,
      });
      root.lllmTrace = trace;
      const without = await withoutCache(m, trace);
      root.lllmSaving = { withCache: trace.fed, withCacheMs: trace.ms, withoutCache: without.computed, withoutCacheMs: without.ms };
      saving.textContent =
        `The key/value cache, measured in this page just now: with it, the model computed ${trace.fed} positions ` +
        `in ${trace.ms.toFixed(0)} ms; re-reading up to ${m.card.config.block} characters for every new one instead, it computes ` +
        `${without.computed} positions in ${without.ms.toFixed(0)} ms (${(without.ms / Math.max(trace.ms, 0.001)).toFixed(1)}× the time).`;
      slider.max = String(trace.ids.length - 1);
      slider.disabled = false;
      slider.value = String(trace.ids.length - 1);
      status.textContent = `${trace.ids.length} characters; temperature 0.8, the seed's random numbers.`;
      show();
      root.dataset.state = "ready";
    } catch (error) {
      status.textContent = `TinyGPT could not run: ${error.message ?? error}`;
      root.dataset.state = "error";
    } finally {
      go.disabled = false;
    }
  };
  go.addEventListener("click", generate);
  root.dataset.state = "loading";
  generate();
}
