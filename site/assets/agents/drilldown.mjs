// Time travel's drilldown: from a character a model wrote in a ReAct step to the forward pass that drew it.
// Read timetravel.mjs first (the widget that calls `drill` for the step it shows), then
// lllm/timetravel/drilldown.py (the same rules in Python: `python -m lllm replay RUN.json --inside B:S:C`).
//
// `writer(record, branch, step)` says who wrote a step's raw text, by the run's rules: before an edit the
// parent's brain, an edited step keeps its parent's raw text, from the edit on the branch's brain (a
// `prefix` edit: the reader wrote the first characters). `drill(slot, ...)` lists the step's characters as
// buttons; opening one reads the step's prompt and the characters before it into that brain's inspection
// model (onnxruntime-web on this page's thread, no Python) and draws the glass box of ../inside/widget.mjs
// for that position: embedding, gates and states, logits, the cut, and the random number of the step's
// seed that drew it. "Write another character here" hands a prefix edit to the widget, which computes
// it as a new branch. For tests: `slot.lllmView` is the shown view (the keys `replay --inside --json` prints).

import { el } from "../runtime/dom.mjs";

const MODELS = { tinyllm: (m) => m.inside };    // brain -> its inspection model's runtime.json entry
const SAMPLING = new Set(["tinyllm", "tinygpt", "tinyllm-yours"]);
const stepSeed = (seed, i) => (seed * 1000 + i) % 2 ** 32;
const opened = new Map();          // brain -> its inspection model, opened once per page

/** {brain, branch (the one whose brain it is), seed, temperature, prefix} of step `step` of branch `branch`. */
export function writer(record, branch, step) {
  const { inputs, edits = [] } = record;
  const brains = [inputs.brain];
  for (const e of edits) brains.push(e.brain ?? brains[e.parent - 1]);
  let prefix = "";
  for (;;) {
    const edit = record.branches[branch - 1].edit;
    const onlyBrain = edit && Object.keys(edit).sort().join() === "brain,parent,step";
    if (!edit || edit.goal !== undefined || step > edit.step || (step === edit.step && (onlyBrain || edit.prefix !== undefined))) {
      prefix = edit && step === edit.step && edit.prefix !== undefined ? edit.prefix : "";
      break;
    }
    branch = edit.parent;
  }
  const brain = brains[branch - 1], sampled = SAMPLING.has(brain);
  return { brain, branch, brains, seed: sampled ? stepSeed(inputs.seed, step) : null,
    temperature: sampled ? inputs.temperature : 0, prefix };
}

async function inspector(brain) {
  if (!opened.has(brain)) {
    const widget = await import("../inside/widget.mjs");
    opened.set(brain, { widget, model: widget.loadInside(MODELS[brain]) });
    opened.get(brain).model.catch(() => opened.delete(brain));     // tried again next time
  }
  const { widget, model } = opened.get(brain);
  return { widget, m: await model };
}

/** The step's characters as buttons in `slot`, and the glass box of the one opened. */
export function drill(slot, { record, branchId, stepIndex, onPrefix }) {
  const step = record.branches[branchId - 1].steps[stepIndex - 1];
  if (step.forced || !step.prompt || !step.raw) return;
  const who = writer(record, branchId, stepIndex);
  if (!MODELS[who.brain]) {
    const terminal = ["tinygpt", "tinyllm-agent"].includes(who.brain);   // in the page: TinyLLM's glass box for now
    slot.append(el("p", { class: "lllm-tt__inside-note" }, `This step was written by ${who.brain}: `, terminal
      ? ["export the run and open any of its characters with ", el("code", {}, `python -m lllm replay RUN.json --inside ${branchId}:${stepIndex}:1`), "."]
      : "it has no model to look inside. Run with TinyLLM to open a character here."));
    return;
  }
  const raw = step.raw, before = who.prefix.length;      // an edit's prefix is the reader's: not drawn, not counted
  const chars = el("p", { class: "lllm-tt__chars", role: "group", "aria-label": `the ${raw.length - before} characters ${who.brain} drew in this step: open one` },
    [...raw].map((ch, i) => el("button", { type: "button", class: "lllm-tt__char", ...(i < before ? { disabled: true, title: "written by the edit" }
      : { "data-char": i + 1 - before, title: `character ${i + 1 - before}` }) }, ch === "\n" ? "↵" : ch === " " ? "·" : ch)));
  const panel = el("div", { class: "lllm-tt__inside", "aria-live": "polite" });
  slot.append(el("h5", {}, `Look inside: open any character ${who.brain} wrote`), chars, panel);
  chars.addEventListener("click", (e) => {
    const button = e.target.closest("[data-char]");
    if (button && !button.disabled) open(Number(button.dataset.char));
  });

  async function open(c) {
    chars.querySelectorAll("[aria-pressed]").forEach((b) => b.removeAttribute("aria-pressed"));
    chars.querySelector(`[data-char="${c}"]`).setAttribute("aria-pressed", "true");
    slot.dataset.state = "running";
    panel.replaceChildren(el("p", {}, "Reading the prompt into the model, one character at a time…"));
    try {
      const { widget, m } = await inspector(who.brain);
      const knobs = { temperature: who.temperature, topK: 0, topP: 1 };
      const trace = await widget.runTrace(m, slot, { prompt: step.prompt + who.prefix, given: raw.slice(before, before + c),
        seed: who.seed ?? 0, ...knobs });
      const { positionView } = await import("../inside/draw.mjs");
      const view = positionView(trace, trace.ids.length - 2, knobs);
      const ran = raw[before + c - 1];
      if (view.draw.char !== ran)
        throw new Error(`here the model draws ${widget.spoken(view.draw.char)} where the run has ${widget.spoken(ran)}: the run was made with another model file`);
      slot.lllmView = { ...view, branch: branchId, step: stepIndex, character: c, brain: who.brain, written_in: who.branch };
      const others = view.top.map(([ch]) => ch).filter((ch) => ch !== ran);
      const another = el("p", { class: "lllm-tt__another" }, "Write another character here, and let the model go on from it: ",
        ...others.map((ch) => el("button", { type: "button", class: "md-button lllm-tt__write", "data-write": ch,
          onclick: () => onPrefix(raw.slice(0, before + c - 1) + ch, who) }, widget.spoken(ch))));
      panel.replaceChildren(
        el("p", { class: "lllm-tt__inside-head" }, `Step ${stepIndex}, character ${c} of the ${raw.length - before} ${who.brain} drew`,
          who.branch !== branchId ? ` (in branch ${who.branch})` : "", `: the prompt (${step.prompt.length} characters)`,
          before ? " and the edit's prefix" : "", c > 1 ? ` and the ${c - 1} characters drawn before it` : "",
          ` went in, one model run each (${trace.ids.length - 1} runs). Python prints the same numbers: `,
          el("code", {}, `python -m lllm replay RUN.json --inside ${branchId}:${stepIndex}:${c}`)),
        ...widget.stagesOf(view, trace.vocab), another);
      slot.dataset.state = "done";
    } catch (e) {
      panel.replaceChildren(el("p", { class: "lllm-tt__error", role: "alert" }, `This character could not be opened: ${e.message ?? e}`));
      slot.dataset.state = "error";
    }
  }
}
