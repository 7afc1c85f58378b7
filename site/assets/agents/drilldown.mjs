// Time travel's drilldown: from a character a model wrote in a ReAct step to the forward pass that drew it.
// Read timetravel.mjs first (the widget that calls `drill` for the step it shows), then
// lllm/timetravel/drilldown.py (the same rules in Python: `python -m lllm replay RUN.json --inside B:S:C`).
//
// `writer(record, branch, step)` says who wrote a step's raw text, by the run's rules: before an edit the
// parent's brain, an edited step keeps its parent's raw text, from the edit on the branch's brain (a
// `prefix` edit: the reader wrote the first characters). `drill(slot, ...)` lists the characters the
// model drew in the step as buttons (the agent-tuned TinyLLM's as it drew them, numbers as slots);
// opening one replays the call that drew it in that brain's model (drill-brains.mjs: onnxruntime-web on
// this page's thread, no Python; each model loads the first time one of its characters is opened) and
// draws its glass box: TinyLLM's embedding, gates and states (the agent-tuned ensemble's with each
// member's vote) or TinyGPT's attention, then the logits, the cut, and the step's seed's draw.
// "Write another character here" hands a prefix edit (in the run's own text: numbers put back) to the
// widget, which computes it as a new branch; `data-settled` on the buttons' group once they show the model's count (the ReAct demo's trace calls `drill` too, with the random
// state each call began from as `seed`, and hands a prefix to the time-travel widget: demo-inside.mjs). For tests: `slot.lllmView` is the shown view (the keys
// `replay --inside --json` prints) and `slot.dataset.state` running | done | error.

import { el } from "../runtime/dom.mjs";

const SAMPLING = new Set(["tinyllm", "tinygpt", "tinyllm-yours"]);
const stepSeed = (seed, i) => (seed * 1000 + i) % 2 ** 32;
const INSPECTABLE = new Set(["tinyllm", "tinyllm-agent", "tinygpt"]); // drill-brains.mjs replays each
const glyph = (ch) => (ch === "\n" ? "↵" : ch === " " ? "·" : ch);
const said = (ch) => (ch === "\n" ? "newline" : ch === " " ? "space" : JSON.stringify(ch));

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
  const brain = brains[branch - 1],
    sampled = SAMPLING.has(brain);
  return {
    brain,
    branch,
    brains,
    seed: sampled ? stepSeed(inputs.seed, step) : null,
    temperature: sampled ? inputs.temperature : 0,
    prefix,
  };
}

/** The step's characters as buttons in `slot`, and the glass box of the one opened. */
export function drill(slot, { record, branchId, stepIndex, onPrefix, seed, noPrefix, command }) {
  const step = record.branches[branchId - 1].steps[stepIndex - 1];
  if (step.forced || !step.prompt || !step.raw) return;
  const who = writer(record, branchId, stepIndex);
  if (seed !== undefined && who.seed !== null) who.seed = seed; // a run with one random stream: where this call began
  if (!INSPECTABLE.has(who.brain)) {
    slot.append(
      el(
        "p",
        { class: "lllm-tt__inside-note" },
        `This step was written by ${who.brain}: `,
        "it has no model to look inside. Run with TinyLLM, the agent-tuned TinyLLM or TinyGPT to open a character here.",
      ),
    );
    return;
  }
  const raw = step.raw,
    before = who.prefix.length; // an edit's prefix is the reader's: not drawn, not counted
  const prompt = step.prompt + who.prefix,
    text = raw.slice(before);
  const chars = el("p", { class: "lllm-tt__chars", role: "group" });
  const panel = el("div", { class: "lllm-tt__inside", "aria-live": "polite" });
  let shown = null,
    pressed = null; // the drawn characters the buttons show, the one open
  const buttons = (drawn) => {
    shown = drawn;
    chars.setAttribute("aria-label", `the ${drawn.length} characters ${who.brain} drew in this step: open one`);
    chars.replaceChildren(
      ...[...raw.slice(0, before)].map((ch) =>
        el("button", { type: "button", class: "lllm-tt__char", disabled: true, title: "written by the edit" }, glyph(ch)),
      ),
      ...[...drawn].map((ch, i) =>
        el(
          "button",
          {
            type: "button",
            class: "lllm-tt__char",
            "data-char": i + 1,
            title: `character ${i + 1}`,
            ...(i + 1 === pressed ? { "aria-pressed": "true" } : {}),
          },
          glyph(ch),
        ),
      ),
    );
  };
  const slotted = who.brain === "tinyllm-agent";
  slot.append(
    el("h5", {}, `Look inside: open any character ${who.brain} wrote`),
    slotted
      ? el(
          "p",
          { class: "lllm-tt__inside-note" },
          "This model reads and writes numbers as slots (#1 is the question's first number): its characters are shown as it drew them.",
        )
      : "",
    chars,
    panel,
  );
  buttons(text);
  let brains = import("./drill-brains.mjs").then((m) => m.BRAINS);
  brains
    .then((b) => b[who.brain].drawn(prompt, text)) // the model's own count (slots): then the buttons settle
    .then(
      (drawn) => {
        if (shown === text && drawn !== text) buttons(drawn);
      },
      () => {},
    )
    .finally(() => {
      chars.dataset.settled = "true";
    });
  chars.addEventListener("click", (e) => {
    const button = e.target.closest("[data-char]");
    if (button && !button.disabled) open(Number(button.dataset.char));
  });

  async function open(c) {
    pressed = c;
    chars.querySelectorAll("[aria-pressed]").forEach((b) => b.removeAttribute("aria-pressed"));
    chars.querySelector(`[data-char="${c}"]`)?.setAttribute("aria-pressed", "true");
    slot.dataset.state = "running";
    panel.replaceChildren(el("p", {}, "Reading the prompt into the model, one character at a time…"));
    try {
      const brain = (await brains)[who.brain];
      const out = await brain.look({ prompt, text, c, seed: who.seed ?? 0, temperature: who.temperature, slot });
      const drawn = out.view.drawn ?? text;
      if (drawn !== shown) buttons(drawn); // the model's own count, now it has run
      const ran = drawn[c - 1],
        view = out.view;
      if (view.draw.char !== ran)
        throw new Error(
          `here the model draws ${said(view.draw.char)} where the run has ${said(ran)}: the run was made with another ${who.brain} model file`,
        );
      slot.lllmView = {
        ...view,
        drawn,
        branch: branchId,
        step: stepIndex,
        character: c,
        brain: who.brain,
        written_in: who.branch,
        raw,
        prefix: who.prefix,
        prompt_chars: step.prompt.length,
      };
      const others = view.top.map(([ch]) => ch).filter((ch) => ch !== ran);
      const another = onPrefix
        ? el(
            "p",
            { class: "lllm-tt__another" },
            "Write another character here, and let the model go on from it: ",
            ...others.map((ch) =>
              el(
                "button",
                {
                  type: "button",
                  class: "md-button lllm-tt__write",
                  "data-write": ch,
                  onclick: () => onPrefix(raw.slice(0, before) + out.before + ch, who),
                },
                said(ch),
              ),
            ),
          )
        : el("p", { class: "lllm-tt__inside-note" }, noPrefix ?? "");
      panel.replaceChildren(
        el(
          "p",
          { class: "lllm-tt__inside-head" },
          `Step ${stepIndex}, character ${c} of the ${drawn.length} ${who.brain} drew`,
          who.branch !== branchId ? ` (in branch ${who.branch})` : "",
          `: the prompt (${step.prompt.length} characters)`,
          before ? " and the edit's prefix" : "",
          c > 1 ? ` and the ${c - 1} characters drawn before it` : "",
          slotted
            ? " went in (its whole call replayed once, greedily" + (out.runs ? `: ${out.runs} model runs` : "") + ")"
            : ` went in (${out.runs} ${out.unit ?? "model runs"})`,
          ". Python prints the same numbers: ",
          el("code", {}, command?.(view) ?? `python -m lllm replay RUN.json --inside ${branchId}:${stepIndex}:${c}`),
        ),
        ...out.nodes,
        another,
      );
      out.shown?.(panel); // laid out now: TinyGPT's attention tables open on their weights
      slot.dataset.state = "done";
    } catch (e) {
      brains = import("./drill-brains.mjs").then((m) => m.BRAINS);
      panel.replaceChildren(el("p", { class: "lllm-tt__error", role: "alert" }, `This character could not be opened: ${e.message ?? e}`));
      slot.dataset.state = "error";
    }
  }
}
