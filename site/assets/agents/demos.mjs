// The agent pages' live demos (site/agents/*.md). A page places one with an empty element:
//
//   <div class="lllm-demo" data-demo="react" data-goal="What is 17 * 23?"></div>
//
// data-demo is one of react | lab | evaluate | memory | playground | retrieve | versus | judge |
// before-after. The widget draws the controls (a goal, a brain: the rule stand-in, TinyLLM in the page, the agent-tuned
// TinyLLM, a script, your model on a server, or a model trained in this browser's tab: brainlist.mjs, which
// loads those two brains' code only when the reader picks one), runs the same Python as `python -m lllm ...` through window.lllm.run —
// lllm/web/demos.py returns JSON — and renders it (demo-render.mjs): the trajectory step by step, the lab's table,
// the evaluator's chart, the memory explainer's turns, the playground's table, one goal's
// trajectories side by side (versus), a typed goal on the agent-tuned model with the page's verdict
// (judge), the held-out before/after table. Nothing loads on pages without a demo; the agent-tuned
// model loads only when a run asks for it.
//
// For tests and curious readers, the last run is on the element (`element.lllmParams`, what was
// sent; `element.lllmResult`, the JSON that came back), and
// `element.dataset.state` is idle | running | done | error | recorded. A run that ends sends a
// bubbling "lllm:ran" event (the course counts it). Where the runtime cannot start, the widget plays
// the run recorded in CPython at build time (recorded.mjs, hooks/recorded.py), labelled "recorded".

import { lllm } from "../runtime/lllm.mjs";
import { el, field as domField, input, select } from "../runtime/dom.mjs";
import { playRecorded } from "../runtime/recorded.mjs";
import { BRAIN_LABELS, YOUR_MODEL, brainControls as brainList, usesYourModel, yourModelSlot } from "./brainlist.mjs";
import { RENDER } from "./demo-render.mjs"; // what Python returned, drawn

const field = (label, control) => domField(label, control, "lllm-demo__field");

const NAMESPACE = "lllm-agent-demos"; // the widgets' own Python namespace, apart from the page's cells
const DEFAULT_SCRIPT = [
  // shows the failures a model can cause, each a visible step
  "Thought: I should search the web\nAction: search[17 * 23]",
  "I think the answer is probably a big number",
  "Thought: use the calculator\nAction: calc[17 * 23]",
  "Thought: the tool answered\nFinal Answer: 391",
].join("\n---\n");
const CATEGORIES = ["direct", "arithmetic", "arithmetic-words", "lookup", "word-problem"];

// ---- the controls each demo needs -----------------------------------------------------------------

const brainControls = (root, controls, options = {}) => brainList(root, controls, { script: DEFAULT_SCRIPT, ...options });

function goalControl(root, controls, fallback) {
  const goal = input("goal", root.dataset.goal ?? fallback, { type: "text", className: "lllm-demo__goal" });
  const goalField = field("goal", goal);
  goalField.classList.add("lllm-demo__field--wide");
  controls.append(goalField);
  goal.addEventListener("keydown", (e) => e.key === "Enter" && root.querySelector(".lllm-demo__run").click());
  return () => ({ goal: goal.value });
}

function categoryControl(root, controls) {
  const category = select("category", [["", "all categories"], ...CATEGORIES.map((c) => [c, c])], root.dataset.category ?? "");
  controls.append(field("cases", category));
  return () => (category.value ? { categories: [category.value] } : {});
}

function stepsControl(controls, value) {
  const steps = input("max_steps", value, { type: "number", min: 1, max: 10, step: 1 });
  controls.append(field("max steps", steps));
  return () => ({ max_steps: Number(steps.value) });
}

const CONTROLS = {
  react(root, controls) {
    const getGoal = goalControl(root, controls, "What is 17 * 23?");
    const parts = [brainControls(root, controls), stepsControl(controls, 5)];
    return () => Object.assign(getGoal(), ...parts.map((f) => f()));
  },
  versus(root, controls) {
    // no brain to pick: the story model and the agent-tuned one (or data-brains), greedy
    const getGoal = goalControl(root, controls, "What is 48 plus 17?");
    const brains = root.dataset.brains?.split(" ") ?? ["tinyllm", "tinyllm-agent"];
    const getYourModel = brains.includes(YOUR_MODEL) ? yourModelSlot(null, controls) : () => ({});
    return () => ({ ...getGoal(), brains, ...getYourModel() });
  },
  judge(root, controls) {
    // the agent-tuned model alone, greedy; Python says whether it was right
    const getGoal = goalControl(root, controls, "Quick one: 48 plus 7?");
    return () => ({ ...getGoal() });
  },
  "before-after"(root, controls) {
    // no brain to pick: the story model, then the agent-tuned one, greedy
    const perGroup = input("per_group", root.dataset.perGroup ?? 2, { type: "number", min: 1, max: 10, step: 1 });
    controls.append(field("goals per group", perGroup));
    return () => ({ per_group: Number(perGroup.value) });
  },
  lab(root, controls) {
    const parts = [
      brainControls(root, controls, { brains: ["rule", "tinyllm", "tinyllm-agent", "scripted", "echo"] }),
      categoryControl(root, controls),
    ];
    return () => Object.assign({}, ...parts.map((f) => f()));
  },
  evaluate(root, controls) {
    const seeds = input("seeds", root.dataset.seeds ?? "0,1,2", { type: "text", size: 8 });
    const parts = [brainControls(root, controls, { oneSeed: false }), categoryControl(root, controls)];
    controls.append(field("seeds", seeds));
    return () => Object.assign({ seeds: parseSeeds(seeds.value) }, ...parts.map((f) => f()));
  },
  memory(root, controls) {
    const goals = Object.assign(el("textarea", { class: "lllm-demo__goals" }), {
      name: "goals",
      rows: 4,
      value: root.dataset.goals ?? "What is 17 * 23?\nWhat is that plus 9?\nWho is Pip?\nWhere does Lina live?",
    });
    const goalsField = field("goals, one per line", goals);
    goalsField.classList.add("lllm-demo__field--wide");
    controls.append(goalsField);
    const getBrain = brainControls(root, controls);
    return () => ({ goals: goals.value.replace(/\s+$/, "").split("\n"), ...getBrain() });
  },
  playground(root, controls) {
    const boxes = ["rule", "tinyllm", "tinyllm-agent", "echo", "scripted"].map((b) => {
      const box = input("brains", b, { type: "checkbox", checked: b === "rule" || b === "tinyllm" });
      controls.append(field(BRAIN_LABELS[b], box));
      return box;
    });
    const getCategory = categoryControl(root, controls);
    return () => ({ brains: boxes.filter((b) => b.checked).map((b) => b.value), script: DEFAULT_SCRIPT, ...getCategory() });
  },
  retrieve(root, controls) {
    const context = input("context", root.dataset.context ?? "Who is Pip?", { type: "text" });
    const recent = Object.assign(el("textarea"), { name: "recent", rows: 2, value: "user: What is 17 * 23? | agent: 391" });
    const k = input("k", 2, { type: "number", min: 0, max: 15, step: 1 });
    const wide = [field("the next goal", context), field("recent turns, one per line", recent)];
    wide.forEach((f) => f.classList.add("lllm-demo__field--wide"));
    controls.append(...wide, field("k", k));
    return () => ({ context: context.value, recent: recent.value.split("\n"), k: Number(k.value) });
  },
};

function parseSeeds(text) {
  return text
    .split(",")
    .filter((s) => s.trim())
    .map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : s.trim()));
}

// ---- running: params -> Python -> JSON -> DOM -------------------------------------------------------

function pythonFor(params) {
  // The params travel as a JSON string inside a Python string literal: JSON string syntax is valid Python.
  return [
    "import sys",
    "from lllm.web import demos as page_demos",
    `print(page_demos.run_json(${JSON.stringify(JSON.stringify(params))}, models=page_demos.browser_models(),`,
    "                          progress=lambda text: print(text, file=sys.stderr)))",
  ].join("\n");
}

/** The address and model your model's fields show before the reader changes them. */
function savedEndpoint(yourModel) {
  const { url, model } = yourModel.loadSettings();
  return { url, model };
}

async function run(root, params, parts) {
  const { go, stop, status, output } = parts;
  root.dataset.state = "running";
  root.lllmParams = params;
  root.lllmResult = null;
  go.disabled = true;
  stop.hidden = false;
  output.replaceChildren();
  const unsubscribe = lllm.onStatus((s) => {
    if (s.state === "loading") status.textContent = lllm.describe(s);
    else if (s.state === "ready") status.textContent = "running…";
  });
  let endLive = null,
    yourModel = null;
  try {
    if (usesYourModel(params)) {
      // its code, the first time a run asks for it
      yourModel = await import("./yourmodel.mjs");
      root.lllmParams = params = { endpoint: savedEndpoint(yourModel), ...params }; // its fields not drawn yet: what they would show
    }
    if (yourModel && lllm.sync) {
      // checked before Python: a dead server is one sentence at once
      status.textContent = "asking your model's server…";
      root.lllmParams = params = await yourModel.prepare(params);
      endLive = yourModel.liveTrace(output);
    }
    const result = await lllm.run(pythonFor(params), {
      namespace: NAMESPACE,
      onStderr: (text) => {
        status.textContent = text.trim().split("\n").pop() || status.textContent;
      },
    });
    const out = JSON.parse(result.stdout.trim().split("\n").pop());
    root.lllmResult = out;
    if (!out.ok) throw Object.assign(new Error(out.error), { name: "BadInput" });
    output.replaceChildren(...RENDER[root.dataset.demo](out, params));
    const firstPrompt = endLive?.();
    if (firstPrompt) output.append(yourModel.promptBlock(firstPrompt, params.brains?.length > 1));
    status.textContent = "";
    root.dataset.state = "done";
    root.dispatchEvent(new CustomEvent("lllm:ran", { bubbles: true, detail: { widget: "demo", demo: root.dataset.demo } }));
  } catch (error) {
    status.textContent = "";
    endLive?.();
    if (
      error.name !== "ChatError" &&
      (await playRecorded(root, params, error, output, (out, recorded) => RENDER[root.dataset.demo](out, recorded)))
    )
      return;
    const message =
      error.name === "BadInput" || error.name === "ChatError"
        ? error.message
        : error.name === "Stopped"
          ? "Stopped. (Python was restarted.)"
          : `The demo could not run: ${error.message}`;
    output.replaceChildren(el("p", { class: "lllm-demo__error" }, message));
    root.dataset.state = "error";
  } finally {
    unsubscribe();
    go.disabled = false;
    stop.hidden = true;
  }
}

function setUp(root) {
  if (root.dataset.lllmDemo) return; // document$ fires again on instant navigation: stay idempotent
  const kind = root.dataset.demo;
  if (!CONTROLS[kind]) {
    root.replaceChildren(el("p", { class: "lllm-demo__error" }, `Unknown demo ${JSON.stringify(kind)}.`));
    return;
  }
  root.dataset.lllmDemo = "1";
  root.dataset.state = "idle";
  const controls = el("div", { class: "lllm-demo__controls" });
  const getParams = CONTROLS[kind](root, controls);
  const go = el("button", { class: "md-button md-button--primary lllm-demo__run" }, "Run");
  const stop = el("button", { class: "md-button lllm-demo__stop" }, "Stop");
  go.type = stop.type = "button";
  stop.hidden = true;
  const buttons = el("div", { class: "lllm-demo__buttons" });
  const status = el("span", { class: "lllm-demo__status" });
  buttons.append(go, stop, status);
  const output = el("div", { class: "lllm-demo__output" });
  root.replaceChildren(controls, buttons, output);
  go.addEventListener("click", () => run(root, { demo: kind, ...getParams() }, { go, stop, status, output }));
  stop.addEventListener("click", () => lllm.stop());
}

// A gallery (`<div class="lllm-gallery" markdown>` around a table whose second column is a goal)
// gets a "Try it" button per row: it puts the goal into the page's versus demo and runs it there.
function setUpGallery(gallery) {
  if (gallery.dataset.lllmGallery) return;
  const demo = document.querySelector(".lllm-demo[data-demo='versus']");
  if (!demo) return;
  gallery.dataset.lllmGallery = "1";
  for (const row of gallery.querySelectorAll("tbody tr")) {
    const cell = row.cells[1];
    const goal = cell.textContent.trim();
    const tryIt = el("button", { class: "md-button lllm-gallery__try" }, "Try it");
    tryIt.type = "button";
    tryIt.setAttribute("aria-label", `try it in the demo below: ${goal}`);
    tryIt.addEventListener("click", () => {
      const box = demo.querySelector("[name='goal']");
      box.value = goal;
      demo.scrollIntoView({ block: "start" });
      box.focus({ preventScroll: true });
      demo.querySelector(".lllm-demo__run").click();
    });
    cell.append(" ", tryIt);
  }
}

function setUpPage() {
  const demos = document.querySelectorAll(".lllm-demo");
  demos.forEach(setUp);
  document.querySelectorAll(".lllm-gallery").forEach(setUpGallery);
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
