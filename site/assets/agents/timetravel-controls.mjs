// Time travel's controls (read timetravel.mjs first): a demo's inputs drawn from its description in
// timetravel.mjs's DEMOS (a control is [name, label, kind, default, ...]), read back into a run's inputs, and
// filled in again from a run file or link; and a ReAct branch's timeline table.

import { el, field, input, select } from "../runtime/dom.mjs";
import { TAB_MODEL, offerTabModel, samples } from "./tabmodel.mjs"; // a brain trained in the tab, if any

export const BRAINS = [
  ["rule", "rule stand-in"],
  ["tinyllm", "TinyLLM (samples)"],
  ["tinyllm-agent", "agent-tuned TinyLLM (greedy)"],
  ["tinygpt", "TinyGPT (attention, samples)"],
  ["scripted", "scripted replies"],
  [TAB_MODEL, "your model trained in this tab"],
];
const SCRIPT =
  "Thought: I should search the web\nAction: search[17 * 23]\n---\nThought: use the calculator\nAction: calc[17 * 23]\n---\nThought: the tool answered\nFinal Answer: 391";

export function controlsFor(root, controls) {
  const made = {},
    nodes = [];
  for (const [name, label, kind, fallback, ...more] of controls) {
    const given = root.dataset[name];
    if (kind === "model") {
      const [options] = more;
      const brain = select("brain", BRAINS, root.dataset.brain ?? options.brain ?? "rule");
      const temperature = input("temperature", 0.8, { type: "number", min: 0, max: 5, step: 0.1 });
      const seed = input("seed", 0, { type: "number", min: 0, step: 1 });
      const maxSteps = input("max_steps", fallback ?? 1, { type: "number", min: 1, max: options.max ?? 10, step: 1 });
      const script = Object.assign(el("textarea", { rows: 5 }), { name: "script", value: options.script ?? SCRIPT });
      const sampling = el("span", { class: "lllm-tt__inline" }, field("temperature", temperature), field("seed", seed));
      const scriptField = field("replies, blocks between --- lines", script, "lllm-tt__wide");
      const sync = () => {
        sampling.hidden = !samples(brain.value);
        scriptField.hidden = brain.value !== "scripted";
      };
      brain.addEventListener("change", sync);
      sync();
      Object.assign(made, { brain, temperature, seed, max_steps: maxSteps, script, sync });
      nodes.push(field("brain", brain), offerTabModel(brain), sampling, fallback === null ? "" : field(label, maxSteps), scriptField);
    } else if (kind === "lines") {
      made[name] = Object.assign(el("textarea", { rows: 3 }), { name, value: (given ?? fallback).split("|").join("\n") });
      nodes.push(field(label, made[name], "lllm-tt__wide"));
    } else {
      const [min, max] = more;
      made[name] = input(name, given ?? fallback, kind === "number" ? { type: "number", min, max, step: 1 } : { type: "text" });
      nodes.push(field(label, made[name], kind === "text" ? "lllm-tt__wide" : ""));
    }
  }
  return { made, nodes };
}

export function readInputs(controls, made) {
  const inputs = {};
  for (const [name, , kind, fallback] of controls) {
    if (kind === "model") {
      Object.assign(inputs, {
        brain: made.brain.value,
        seed: Number(made.seed.value),
        temperature: Number(made.temperature.value),
        ...(fallback === null ? {} : { max_steps: Number(made.max_steps.value) }),
        script: made.brain.value === "scripted" ? made.script.value : "",
      });
    } else if (kind === "lines")
      inputs[name] = made[name].value
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
    else inputs[name] = kind === "number" ? Number(made[name].value) : made[name].value;
  }
  return inputs;
}

export function fillControls(controls, made, inputs) {
  for (const [name, , kind, fallback, options] of controls) {
    if (kind === "model") {
      made.brain.value = inputs.brain ?? options.brain ?? "rule";
      made.temperature.value = inputs.temperature ?? 0.8;
      made.seed.value = inputs.seed ?? 0;
      made.max_steps.value = inputs.max_steps ?? fallback ?? 1;
      made.script.value = inputs.script ?? "";
      made.sync();
    } else made[name].value = kind === "lines" ? (inputs[name] ?? []).join("\n") : (inputs[name] ?? "");
  }
}

// A ReAct branch's timeline: who wrote each step, how many characters it drew, how long the call took.
export function timelineTable(id, rows) {
  if (!rows?.length) return "";
  const ms = (r) => (r.ms !== null ? `${r.ms.toFixed(1)} ms` : r.kept_from ? `branch ${r.kept_from}'s step` : "—");
  return el(
    "div",
    { class: "lllm-tt__scroll", tabindex: "0", role: "region", "aria-label": `timeline of branch ${id}` },
    el(
      "table",
      { class: "lllm-tt__times" },
      el("caption", {}, `Timeline of branch ${id}: who wrote each step, and how long it took here`),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ["step", "brain", "characters drawn", "time"].map((h) => el("th", { scope: "col" }, h)),
        ),
      ),
      el(
        "tbody",
        {},
        rows.map((r) =>
          el(
            "tr",
            { "data-step": r.step },
            el("th", { scope: "row" }, String(r.step)),
            el("td", {}, r.brain),
            el("td", {}, String(r.chars)),
            el("td", {}, ms(r)),
          ),
        ),
      ),
    ),
  );
}
