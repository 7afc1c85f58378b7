// The loss curves of /tinyllm/train/ (widget.mjs): training and validation loss against the step, as
// an SVG, with the turn of the validation curve marked (early.mjs's turnPoint: the checkpoint with the
// lowest validation loss, once a later one is higher), and a sentence saying it in words.

import { el, svgCanvas } from "../runtime/dom.mjs";
import { turnPoint } from "./early.mjs";

/** Draw `points` ({step, train, validation}) into `box`; return the turn point or null. */
export function drawCurves(box, points) {
  const W = 600,
    H = 220,
    pad = 36;
  const { svg, add } = svgCanvas({
    viewBox: `0 0 ${W} ${H}`,
    class: "lllm-train__svg",
    role: "img",
    "aria-label": "Training and validation loss against the step; the table below has the same numbers",
  });
  const all = points.flatMap((p) => [p.train, p.validation]).filter((v) => v !== null);
  const top = Math.max(...all, 1),
    maxStep = Math.max(...points.map((p) => p.step), 1);
  const x = (s) => pad + ((W - 2 * pad) * s) / maxStep,
    y = (v) => H - pad - ((H - 2 * pad) * v) / top;
  add("line", { x1: pad, y1: H - pad, x2: W - pad, y2: H - pad, class: "lllm-train__axis" });
  add("line", { x1: pad, y1: pad, x2: pad, y2: H - pad, class: "lllm-train__axis" });
  add("text", { x: pad, y: H - 8, class: "lllm-train__label" }, "0");
  add("text", { x: W - pad, y: H - 8, "text-anchor": "end", class: "lllm-train__label" }, `step ${maxStep}`);
  add("text", { x: 4, y: pad, class: "lllm-train__label" }, top.toFixed(1));
  const turn = turnPoint(points);
  if (turn) {
    // a dotted line where validation was lowest
    add("line", { x1: x(turn.step), y1: pad, x2: x(turn.step), y2: H - pad, class: "lllm-train__turn" });
    add(
      "text",
      { x: x(turn.step), y: H - 8, "text-anchor": x(turn.step) > W / 2 ? "end" : "start", class: "lllm-train__label" },
      `best at step ${turn.step}`,
    );
  }
  for (const [key, cls] of [
    ["train", "lllm-train__line--train"],
    ["validation", "lllm-train__line--val"],
  ]) {
    const kept = points.filter((p) => p[key] !== null);
    if (kept.length) add("polyline", { points: kept.map((p) => `${x(p.step)},${y(p[key])}`).join(" "), class: `lllm-train__line ${cls}` });
  }
  add("line", { x1: W - 250, y1: 18, x2: W - 220, y2: 18, class: "lllm-train__line lllm-train__line--train" });
  add("text", { x: W - 214, y: 22, class: "lllm-train__label" }, "training");
  add("line", { x1: W - 140, y1: 18, x2: W - 110, y2: 18, class: "lllm-train__line lllm-train__line--val" });
  add("text", { x: W - 104, y: 22, class: "lllm-train__label" }, "validation");
  box.replaceChildren(svg, el("p", { class: "lllm-train__turn-note" }, turnSentence(turn, points.at(-1))));
  return turn;
}

/** The turn in words, under the chart: overfitting when training loss kept falling, else too large steps. */
export function turnSentence(turn, last) {
  if (!turn) return "Validation loss is still falling: what the model learns still carries over to text it has not seen.";
  const lead = `Validation loss was lowest at step ${turn.step} (${turn.validation.toFixed(3)}) and is ${last.validation.toFixed(3)} now`;
  if (turn.train === null || last.train < turn.train)
    return `${lead}, while training loss kept falling: since step ${turn.step} the model has been learning the training text by heart, which does not help with text it has not seen. That is overfitting.`;
  return `${lead}, and training loss rose too: the steps are too large for the weights to settle (try a lower learning rate).`;
}
