// The agent demos' brain list (demos.mjs): which model writes the agent's replies, and the fields that
// brain needs. Two brains have code of their own, loaded only when the reader reaches for them:
//   - "your model", a server on the reader's computer (yourmodel.mjs: its address fields, the server
//     check, the streamed trace), imported when the reader picks it (or at once, for a demo that
//     always runs on it);
//   - the model trained in this tab (tabmodel.mjs: its note, read from the model's card), imported
//     when the reader picks it. Whether this browser holds one is a cheap probe of its own cache
//     (`tabModelStored`), so the option is offered or disabled, with the reason, without that code.
// On the ReAct page a reader who runs the demo on another brain fetches neither
// (tests/browser/test_byte_budget_browser.py).
//
//   const get = brainControls(root, controls, {script})   // draws the list and its fields; -> () => params
//   samples(brain)                              // does this brain take a temperature and a seed?

import { el, field as domField, input, select } from "../runtime/dom.mjs";

export const TAB_MODEL = "tinyllm-yours"; // ../train/yours.mjs: YOURS
export const YOUR_MODEL = "yourmodel";
const TAB_CACHE = "tinyllm-yours"; // ../train/yours.mjs keeps the model and its card there

export const BRAIN_LABELS = {
  rule: "rule stand-in",
  tinyllm: "TinyLLM (in this page)",
  "tinyllm-agent": "agent-tuned TinyLLM (greedy)",
  scripted: "scripted replies",
  echo: "echo (the old bug)",
  [YOUR_MODEL]: "your model (a server on this computer)",
  [TAB_MODEL]: "your model trained in this tab",
};

const field = (label, control) => domField(label, control, "lllm-demo__field");

/** Does `brain` sample (a temperature and a seed apply)? The story model and a model trained in the tab. */
export const samples = (brain) => brain === "tinyllm" || brain === "tinygpt" || brain === TAB_MODEL;

/** Does this run call your model? */
export const usesYourModel = (params) => params.brain === YOUR_MODEL || (params.brains ?? []).includes(YOUR_MODEL);

/** Does this browser hold a model trained in the tab? A look at its cache's keys, never its bytes. */
export async function tabModelStored() {
  if (!globalThis.caches || !(await caches.has(TAB_CACHE))) return false; // has(): open() would create it
  return (await (await caches.open(TAB_CACHE)).keys()).some((request) => request.url.endsWith(".json"));
}

/** Keep `brain`'s TAB_MODEL option in step with this browser's stored model (checked now and whenever
 *  the list gets focus, so a model trained in another tab appears without a reload); returns the note
 *  that says, while that option is chosen, what the model is or how to get one (tabmodel.mjs writes it). */
export function offerTabModel(brain) {
  const option = [...brain.options].find((o) => o.value === TAB_MODEL);
  const label = option.textContent;
  const note = el("p", { class: "lllm-tab-model", role: "status" });
  const show = async () => {
    note.hidden = brain.value !== TAB_MODEL;
    if (!note.hidden) (await import("./tabmodel.mjs")).describeTabModel(note);
  };
  const refresh = async () => {
    const stored = await tabModelStored().catch(() => false);
    option.disabled = !stored;
    option.textContent = stored ? label : `${label} (train one first)`;
    brain.dataset.tabModel = stored ? "ready" : "none"; // for tests: the check has answered
    await show();
  };
  brain.addEventListener("change", show);
  brain.addEventListener("focus", refresh);
  refresh();
  return note;
}

/** Your model's address fields, drawn into a slot placed now: at once when `brain` is null (the demo
 *  always runs on your model) or already says so, else the first time the reader picks it.
 *  -> () => ({endpoint}) while they are shown (demos.mjs fills in the saved one before they are drawn). */
export function yourModelSlot(brain, controls) {
  const slot = el("div", { class: "lllm-your-model-slot" });
  slot.style.display = "contents"; // the fields sit in the controls' row as if placed there
  controls.append(slot);
  let get = () => ({}),
    drawing = null;
  const draw = () => {
    if (drawing === null)
      drawing = import("./yourmodel.mjs").then((yourModel) => {
        get = yourModel.yourModelFields(brain, slot);
      });
  };
  if (brain === null || brain.value === YOUR_MODEL) draw();
  else brain.addEventListener("change", () => brain.value === YOUR_MODEL && draw());
  return () => get();
}

/** The brain list and the fields each brain needs (temperature and seed, scripted replies: `script` at
 *  first, your model's address), appended to `controls`; returns () => the params they say. */
export function brainControls(
  root,
  controls,
  { script: replies, brains = ["rule", "tinyllm", "tinyllm-agent", "scripted", YOUR_MODEL, TAB_MODEL], oneSeed = true },
) {
  const brain = select(
    "brain",
    brains.map((b) => [b, BRAIN_LABELS[b]]),
    root.dataset.brain ?? "rule",
  );
  const temperature = input("temperature", root.dataset.temperature ?? 0.8, { type: "number", min: 0, max: 5, step: 0.1 });
  const seed = input("seed", root.dataset.seed ?? 0, { type: "number", min: 0, step: 1 });
  const sampling = el("span", { class: "lllm-demo__sampling" });
  sampling.append(field("temperature", temperature));
  if (oneSeed) sampling.append(field("seed", seed)); // the evaluator asks for a list of seeds instead
  const script = Object.assign(el("textarea", { class: "lllm-demo__script" }), { name: "script", rows: 7, value: replies });
  const scriptField = field("replies, one per block between --- lines", script);
  scriptField.classList.add("lllm-demo__field--wide");
  const sync = () => {
    sampling.hidden = !samples(brain.value); // the story models sample; tinyllm-agent is greedy
    scriptField.hidden = brain.value !== "scripted";
  };
  brain.addEventListener("change", sync);
  sync();
  controls.append(field("brain", brain), ...(brains.includes(TAB_MODEL) ? [offerTabModel(brain)] : []), sampling, scriptField);
  const getYourModel = brains.includes(YOUR_MODEL) ? yourModelSlot(brain, controls) : () => ({});
  return () => ({
    brain: brain.value,
    temperature: Number(temperature.value),
    seed: Number(seed.value),
    script: script.value,
    ...getYourModel(),
  });
}
