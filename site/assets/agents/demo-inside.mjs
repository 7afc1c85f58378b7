// The ReAct demo's trace, opened down to the numbers: a step the model wrote gets "Look inside", and then
// every character it drew is a button that draws the forward pass that chose it (time travel's drilldown,
// drilldown.mjs, imported on the first press). Read demos.mjs first (the demo that calls `offerLookInside`).
// The demo's Python (lllm/web/demos.py: react_demo) hands back each model call's whole prompt and the
// random state the call began from: a sampling TinyLLM carries one stream across the run's calls, and the
// glass box draws each character from where that stream stood, so it gives the run's character exactly.
// "Write another character here" hands the run to the time-travel widget on this page (an `lllm:open-run`
// event carrying the run spec, as a link would: its edit starts that step with the characters chosen). Time travel seeds each step on
// its own, so for a sampling brain its run is not this one: there the panel says so instead.

import { el } from "../runtime/dom.mjs";

const INSIDE = new Set(["tinyllm", "tinyllm-agent"]); // the demo's brains with a model to look inside
const GREEDY = new Set(["tinyllm-agent"]);

/** The demo's run as a time-travel record of one branch: what `drill` reads. */
function asRecord(out, params) {
  let call = 0;
  const steps = out.trajectory.steps.map((s) => ({ ...s, prompt: s.forced ? null : (out.calls[call++]?.prompt ?? null) }));
  return {
    inputs: { goal: params.goal, brain: params.brain, seed: params.seed ?? 0, temperature: params.temperature ?? 0.8 },
    edits: [],
    branches: [{ id: 1, edit: null, steps }],
  };
}

/** The run to the time-travel widget on this page (its module set up, if the reader has not come near it yet). */
async function handOver(spec) {
  await import("./timetravel.mjs");
  window.dispatchEvent(new CustomEvent("lllm:open-run", { detail: spec }));
}

/** Open step `index` (1-based) of the demo's run `out` (made with `params`) in `slot`. */
async function lookInside(slot, out, params, index) {
  const { drill } = await import("./drilldown.mjs");
  const before = out.trajectory.steps.slice(0, index - 1).filter((s) => !s.forced).length;
  const seed = out.calls[before]?.seed ?? undefined,
    greedy = GREEDY.has(params.brain);
  const spec = (prefix) => ({
    schema: "lllm-run",
    version: 1,
    edits: [{ parent: 1, step: index, prefix }],
    inputs: {
      goal: params.goal,
      brain: params.brain,
      seed: params.seed ?? 0,
      temperature: params.temperature ?? 0.8,
      max_steps: params.max_steps ?? 5,
      script: "",
    },
  });
  drill(slot, {
    record: asRecord(out, params),
    branchId: 1,
    stepIndex: index,
    seed,
    command: greedy
      ? null
      : (view) =>
          `python -m lllm inside --prompt "(step ${index}'s prompt)" --seed ${seed} --temperature ${view.temperature} --position ${view.position} --json`,
    onPrefix: greedy ? (prefix) => handOver(spec(prefix)) : null,
    noPrefix:
      "To write another character here, run this goal in time travel below: it seeds each step on its own, so a branch can start from any character.",
  });
}

/** A "Look inside" button on each step of `list` (the demo's drawn steps) that the model wrote. */
export function offerLookInside(list, out, params) {
  if (!INSIDE.has(params.brain) || !out.calls) return;
  [...list.children].forEach((item, i) => {
    const step = out.trajectory.steps[i];
    if (step.forced || !step.raw) return;
    const open = el("button", { type: "button", class: "md-button lllm-demo__inside" }, "Look inside: open a character");
    open.addEventListener("click", async () => {
      open.disabled = true;
      const slot = el("div", { class: "lllm-tt__drill lllm-demo__drill" });
      item.append(slot);
      await lookInside(slot, out, params, i + 1);
      open.remove();
    });
    item.append(open);
  });
}
