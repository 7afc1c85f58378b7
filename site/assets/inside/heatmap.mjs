// Layer 1 (browser) · a heatmap of one stage's numbers (a canvas, one cell per unit) and the table that
// says the same in text for screen readers and for anyone who wants the numbers themselves.
// Gates (0..1) run from pale to indigo; signed stages (embedding, candidate, cell, hidden state) run
// orange (negative) through pale (0) to indigo (positive), scaled to 1 or to the largest |value|.

import { el } from "../runtime/dom.mjs";

const COLUMNS = 24;
const CELL = 12; // CSS pixels per unit; a 168-unit stage is 288 px wide: it fits a 390 px phone
const PALE = [243, 244, 251],
  INDIGO = [40, 53, 147],
  ORANGE = [230, 81, 0];

const mix = (a, b, t) => a.map((x, i) => Math.round(x + (b[i] - x) * t));

function colour(v, signed, scale) {
  const t = Math.max(-1, Math.min(1, v / scale));
  const rgb = signed ? (t < 0 ? mix(PALE, ORANGE, -t) : mix(PALE, INDIGO, t)) : mix(PALE, INDIGO, Math.max(0, t));
  return `rgb(${rgb.join(",")})`;
}

/** A canvas with one coloured cell per value; its label says the range and where the numbers are. */
export function heatmap(values, { signed, label }) {
  const columns = Math.min(COLUMNS, values.length);
  const rows = Math.ceil(values.length / columns);
  const canvas = el("canvas", { class: "lllm-inside__heat", role: "img" });
  const ratio = window.devicePixelRatio || 1;
  canvas.width = columns * CELL * ratio;
  canvas.height = rows * CELL * ratio;
  canvas.style.width = `${columns * CELL}px`;
  canvas.style.aspectRatio = `${columns} / ${rows}`;
  const ctx = canvas.getContext("2d");
  ctx.scale(ratio, ratio);
  let low = Infinity,
    high = -Infinity;
  for (const v of values) {
    low = Math.min(low, v);
    high = Math.max(high, v);
  }
  const scale = signed ? Math.max(1, Math.abs(low), Math.abs(high)) : 1;
  values.forEach((v, i) => {
    ctx.fillStyle = colour(v, signed, scale);
    ctx.fillRect((i % columns) * CELL, Math.floor(i / columns) * CELL, CELL - 1, CELL - 1);
  });
  canvas.setAttribute(
    "aria-label",
    `${label}: ${values.length} numbers from ${low.toFixed(2)} to ${high.toFixed(2)}, ` +
      "one cell per unit, left to right and top to bottom; the table below lists them",
  );
  return canvas;
}

/** <details> with a table: one row per unit, one column per named stage (all of one length). */
export function stageTable(columns, label) {
  const n = columns[0][1].length;
  const rows = [];
  for (let i = 0; i < n; i++)
    rows.push(
      el(
        "tr",
        {},
        el("th", { scope: "row" }, String(i)),
        columns.map(([, values]) => el("td", { "data-value": values[i] }, values[i].toFixed(4))),
      ),
    );
  return el(
    "details",
    { class: "lllm-inside__numbers" },
    el("summary", {}, `The numbers: ${label} as a table`),
    el(
      "div",
      { class: "lllm-inside__tablewrap", tabindex: "0", role: "region", "aria-label": `${label} numbers` },
      el(
        "table",
        { class: "lllm-inside__table", "data-table": label },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "col" }, "unit"),
            columns.map(([name]) => el("th", { scope: "col" }, name)),
          ),
        ),
        el("tbody", {}, rows),
      ),
    ),
  );
}
