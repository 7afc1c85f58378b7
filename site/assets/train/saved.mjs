// "Your saved model" on /tinyllm/train/ (widget.mjs): the model this browser keeps (yours.mjs), shown
// whenever the page opens, after a reload too, with its settings, its losses and when it was trained,
// its two files to download, and a button that discards it. State for tests: box.dataset.saved is
// "yes", "no" or "discarded".
//
//   const saved = savedPanel({ onChange: (card) => ... })   // card, or null once discarded
//   root.append(saved.box); await saved.load()              // reads the stored card, shows it

import { el } from "../runtime/dom.mjs";
import { YOURS, discardYours, readYours } from "./yours.mjs";

/** When the model was trained, in the reader's own words for dates (the card's metrics.trained_at). */
function when(metrics) {
  if (!metrics.trained_at) return "on a day this page did not record";
  return new Date(metrics.trained_at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** The card's story in two sentences: how it was trained, and its losses. */
export function describe(card) {
  const { config: c, metrics: m } = card;
  const best =
    m.trained_steps && m.trained_steps !== m.steps
      ? `${m.trained_steps} steps, saved from step ${m.steps} where validation loss was lowest`
      : `${m.steps} steps`;
  return [
    `Trained ${when(m)}: ${c.hidden} hidden units, learning rate ${c.lr}, seed ${c.seed}, ${best}; ${card.parameters.toLocaleString("en")} parameters.`,
    `Training loss ${m.final_loss?.toFixed(3) ?? "not measured"}, validation loss ${m.validation_loss.toFixed(3)} (on text it never trained on).`,
  ];
}

/** The model's two files as download links (and a space between them), as the terminal reads them. */
export function downloadLinks(bytes, card) {
  const link = (data, name, type) =>
    el("a", { href: URL.createObjectURL(new Blob([data], { type })), download: name, class: "md-button" }, `Download ${name}`);
  return [
    link(bytes, `${YOURS}.onnx`, "application/octet-stream"),
    " ",
    link(JSON.stringify(card, null, 1), `${YOURS}.json`, "application/json"),
  ];
}

export function savedPanel({ onChange = () => {} } = {}) {
  const heading = el("h2", { class: "lllm-train__h", id: "your-saved-model", tabindex: "-1" }, "Your saved model");
  const about = el("p", { class: "lllm-train__saved-about" });
  const losses = el("p", { class: "lllm-train__saved-losses" });
  const files = el("p", { class: "lllm-train__downloads" });
  const discard = el("button", { type: "button", class: "md-button" }, "Discard your saved model");
  const note = el("p", { class: "lllm-train__saved-note", role: "status" });
  const box = el(
    "section",
    { class: "lllm-train__saved", "aria-labelledby": "your-saved-model", hidden: true },
    heading,
    about,
    losses,
    el("p", {}, "The playground, the ReAct demo and time travel use it until you discard it or train another."),
    files,
    discard,
    note,
  );
  box.dataset.saved = "no";
  let urls = [];

  function show(stored) {
    urls.forEach((u) => URL.revokeObjectURL(u));
    urls = [];
    if (!stored) {
      box.hidden = true;
      return;
    }
    const { bytes, card } = stored;
    const [a, b] = describe(card);
    about.textContent = a;
    losses.textContent = b;
    const links = downloadLinks(bytes, card);
    urls = links.filter((a) => a.href).map((a) => a.href);
    files.replaceChildren(...links);
    note.textContent = "";
    box.hidden = false;
    box.dataset.saved = "yes";
  }

  discard.addEventListener("click", async () => {
    await discardYours();
    show(null);
    box.hidden = false; // keep the sentence that says what happened
    about.textContent = losses.textContent = "";
    files.replaceChildren();
    discard.hidden = true;
    note.textContent = "Discarded: no model is kept in this browser now, and the playground and the ReAct demo no longer offer one.";
    box.dataset.saved = "discarded";
    heading.focus();
    onChange(null);
  });

  return {
    box,
    /** Read the stored model (if any) and show it. */
    async load() {
      const stored = await readYours().catch(() => null);
      discard.hidden = false;
      show(stored);
      if (!stored && box.dataset.saved !== "discarded") box.dataset.saved = "no";
      onChange(stored?.card ?? null);
      return stored;
    },
  };
}
