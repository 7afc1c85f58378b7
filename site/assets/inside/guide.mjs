// Layer 1 (browser) · "Start here" on /tinyllm/inside/: a short guided path through the widget
// (widget.mjs) for a first visit. Four steps, in the order a reader needs them: the character, the
// probabilities of the next one, the draw, then the gates and the state that led there. Each step's
// button scrolls to its part, outlines it and moves the keyboard focus there; a "next" button at
// the end of the part leads on. The parts are the elements widget.mjs marks with data-part.
// State for tests: root.dataset.guide is the step shown ("" before any).
//
//   const guide = startHere(root, { focusFirst: slider })   // -> {box, refresh}
//   root.prepend(guide.box); ... after each redraw: guide.refresh()

import { el } from "../runtime/dom.mjs";

export const STEPS = [
  ["char", "The character", "Pick a character of the text with the slider: the model has just read it."],
  ["probs", "The probabilities", "What the model expects next: its likeliest characters, each with its probability."],
  ["draw", "The draw", "One random number picks the next character from those probabilities."],
  ["state", "The gates and the state", "How the LSTM's memory led there: its gates, cell state and hidden state, one cell per unit."],
];
const LIT = "lllm-inside__lit";

export function startHere(root, { focusFirst }) {
  const buttons = STEPS.map(([key, title], k) =>
    el("button", { type: "button", class: "md-button", "data-step": key, onclick: () => go(key) }, `${k + 1} · ${title}`),
  );
  const box = el(
    "nav",
    { class: "lllm-inside__guide", "aria-labelledby": "lllm-inside-start" },
    el(
      "p",
      { class: "lllm-inside__guide-title", id: "lllm-inside-start" },
      el("strong", {}, "Start here."),
      " The widget shows a lot at once; look at these four parts first, in this order.",
    ),
    el(
      "ol",
      {},
      STEPS.map(([, , says], k) => el("li", {}, buttons[k], el("span", {}, says))),
    ),
  );
  root.dataset.guide = "";

  /** Outline the current step's parts and put its "next" button after the last of them. */
  function refresh() {
    root.querySelectorAll(`.${LIT}`).forEach((e) => e.classList.remove(LIT));
    root.querySelectorAll(".lllm-inside__trail").forEach((e) => e.remove());
    buttons.forEach((b) => b.removeAttribute("aria-current"));
    const key = root.dataset.guide;
    if (!key) return [];
    const k = STEPS.findIndex(([s]) => s === key);
    buttons[k].setAttribute("aria-current", "step");
    const parts = [...root.querySelectorAll(`[data-part="${key}"]`)];
    parts.forEach((e) => e.classList.add(LIT));
    const following = STEPS[k + 1];
    const trail = el(
      "p",
      { class: "lllm-inside__trail" },
      `Step ${k + 1} of ${STEPS.length}. `,
      following
        ? el("button", { type: "button", class: "md-button", onclick: () => go(following[0]) }, `Next: ${following[1].toLowerCase()} ▶`)
        : "",
      " ",
      el("button", { type: "button", class: "md-button", onclick: back }, "Back to the start"),
    );
    parts.at(-1)?.after(trail);
    return parts;
  }

  function go(key) {
    root.dataset.guide = key;
    const parts = refresh();
    const target = key === "char" ? focusFirst : (parts.find((e) => /^H[2-6]$/.test(e.tagName)) ?? parts[0]);
    if (!target) return;
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    parts[0].scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
    if (/^H[2-6]$/.test(target.tagName)) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
  }

  function back() {
    root.dataset.guide = "";
    refresh();
    box.scrollIntoView({ block: "start" });
    buttons[0].focus({ preventScroll: true });
  }

  return { box, refresh };
}
