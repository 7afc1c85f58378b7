// The reasoning lab (site/reasoning/index.md). The page places it with an empty element:
//
//   <div class="lllm-reasoning-lab"></div>
//
// "Run" sends {kind: "run", task, puzzle, framework, error_rate, value_noise, seed, model} to
// lllm.labs.reasoning_bench.benchmark.lab_json in the page's Python and replays the run's tree node by node
// as an accessible tree you open with the keyboard (../runtime/tree.mjs), each line the label
// lllm/reasoning/search_tree.py gives it (`python -m lllm reason --tree` prints the same lines);
// Graph of Thoughts is also drawn as a graph (merged thoughts have several parents) and RAP as a
// tree whose circles grow with visits. "Benchmark" draws success (with its 95% interval) against
// model calls, with the tokens each framework spent; "Sweep" shows success as the stand-in's value
// judgments get noisier. The Python is the same code `python -m lllm reason` runs. For tests, the
// last result is on the element (`element.lllmResult`); `element.dataset.state` is
// idle | running | done | error | recorded (where Python cannot start, Run's recording plays: recorded.mjs).
// The model "your model" is a server on the learner's computer, with the ReAct demo's fields, remembered
// settings and one-sentence failures (../agents/yourmodel.mjs, ../runtime/chat.mjs): the page checks the
// server before Python starts, and Python asks it through lllm.web.yourmodel.PageChatPredictor.

import { lllm } from "../runtime/lllm.mjs";
import { el, field, input, select } from "../runtime/dom.mjs";
import { chart, growTree, searchPicture, separateLabels, summaryTable, sweepTable } from "./lab-draw.mjs";
import { playRecorded } from "../runtime/recorded.mjs";
import * as yourModel from "../agents/yourmodel.mjs";

const NAMESPACE = "lllm-reasoning-lab";
const FRAMEWORKS = ["io", "cot", "cot-sc", "react", "reflexion", "tot-bfs", "tot-dfs", "got", "rap", "foa"];
// The menu's words; the values (and the table's and chart's short names) are the CLI's `--framework` names.
const FRAMEWORK_NAMES = {
  io: "Input–output, one call",
  cot: "Chain of thought",
  "cot-sc": "Chain of thought, self-consistency",
  react: "ReAct: think, act, observe",
  reflexion: "Reflexion: retry after a self-critique",
  "tot-bfs": "Tree of thoughts, breadth-first",
  "tot-dfs": "Tree of thoughts, depth-first",
  got: "Graph of thoughts",
  rap: "RAP: Monte-Carlo tree search",
  foa: "Fleet of agents",
};
const TASK_FRAMEWORKS = { game24: FRAMEWORKS, brookfield: ["io", "cot", "react", "reflexion", "tot-bfs"] };
const STYLE = `
.lllm-reasoning-lab { margin: 1em 0 1.5em; padding: 0.8em 1em; border-left: 3px solid var(--md-accent-fg-color); background: var(--md-code-bg-color); font-size: 0.75rem; }
.lllm-reasoning-lab__controls { display: flex; flex-wrap: wrap; gap: 0.5em 1em; align-items: center; }
.lllm-reasoning-lab input[type="number"] { width: 5em; }
.lllm-reasoning-lab__buttons { display: flex; gap: 0.5em; align-items: center; margin: 0.6em 0; }
.lllm-reasoning-lab__buttons .md-button { padding: 0.2em 1em; font-size: 0.75rem; }
.md-typeset .lllm-reasoning-lab__tree { font-family: var(--md-code-font-family, monospace); }
.lllm-reasoning-lab svg { max-width: 640px; display: block; }
.lllm-reasoning-lab__node--pruned > span { font-style: italic; }
.lllm-reasoning-lab__node--invalid > span { text-decoration: underline wavy #c62828; }
.lllm-reasoning-lab__node--solved > span { text-decoration: underline #2e7d32; }
.lllm-reasoning-lab__node--path > span { font-weight: 700; box-shadow: inset 3px 0 0 var(--md-accent-fg-color); }
.lllm-reasoning-lab__verdict { font-weight: 600; margin-top: 0.5em; }
.lllm-reasoning-lab__error { color: #c62828; font-weight: 600; }
.lllm-reasoning-lab__note { font-style: italic; }
.lllm-reasoning-lab svg text { font-size: 10px; fill: currentColor; }
.lllm-reasoning-lab select { max-width: 100%; }
.md-typeset .lllm-reasoning-lab__output table:not([class]) { font-size: 0.64rem; }
.md-typeset .lllm-reasoning-lab__output table:not([class]) :is(th, td) { min-width: 0; padding: 0.4em 0.5em; }`;

const numberInput = (name, value, min, max, step) => input(name, value, { type: "number", min, max, step });
// ---- running ---------------------------------------------------------------------------------------

function standInNote(params) {
  if (params.model === yourModel.YOUR_MODEL)
    return `Model: your model, ${JSON.stringify(params.endpoint?.model ?? "")} at ${params.endpoint?.url} (counted in characters).`;
  return params.model === "tinyllm"
    ? "Model: TinyLLM in this page (counted in characters)."
    : "Model: the stand-in — a program that errs at the set rates, not an LLM; these numbers are the stand-in's.";
}

/** Python's last line names a YourModelError when the server failed mid-run: its sentence, or null. */
function yourModelSentence(error) {
  return /YourModelError: (.+)/.exec(`${error?.message ?? ""}\n${error?.traceback ?? ""}`)?.[1]?.trim() ?? null;
}

/** While your model runs, the status line counts its replies as they stream; returns the listener's end. */
function countReplies(status) {
  const listen = ({ detail }) => {
    if (detail.kind === "start") status.textContent = `your model is writing reply ${detail.call}…`;
  };
  window.addEventListener("lllm:your-model", listen);
  return () => window.removeEventListener("lllm:your-model", listen);
}

async function ask(root, params, status, output) {
  const ticket = (root.lllmTicket = (root.lllmTicket ?? 0) + 1);
  root.dataset.state = "running";
  root.lllmResult = null;
  output.replaceChildren();
  status.textContent = lllm.status.pythonReady ? "running…" : "loading Python…";
  let endCount = () => {};
  try {
    if (params.model === yourModel.YOUR_MODEL) {
      // checked before Python: a dead server is one sentence at once
      status.textContent = "asking your model's server…";
      params = await yourModel.prepare(params);
      root.lllmParams = params;
      endCount = countReplies(status);
    }
    // The page's TinyLLM, resolved by the same make_predictor as `--predictor tinyllm` in a terminal;
    // your model, called by the page as the ReAct demo calls it.
    const tinyllm =
      params.model === "tinyllm"
        ? ', tinyllm=lambda seed: make_predictor("tinyllm", temperature=0.8, seed=seed, models=browser_models())'
        : params.model === yourModel.YOUR_MODEL
          ? `, yourmodel=lambda seed: PageChatPredictor(json.loads(${JSON.stringify(JSON.stringify(params.endpoint))}))`
          : "";
    const code =
      "import json\nfrom lllm.labs.reasoning_bench.benchmark import lab_json\nfrom lllm.predictors import make_predictor\n" +
      "from lllm.web.demos import browser_models\nfrom lllm.web.yourmodel import PageChatPredictor\n" +
      `print(lab_json(${JSON.stringify(JSON.stringify(params))}${tinyllm}))`;
    const result = JSON.parse((await lllm.run(code, { namespace: NAMESPACE })).stdout.trim().split("\n").pop());
    endCount();
    root.lllmResult = result;
    status.textContent = "";
    if (!result.ok) throw Object.assign(new Error(result.error), { name: "BadInput" });
    output.append(el("p", { class: "lllm-reasoning-lab__note" }, standInNote(params)));
    if (params.kind === "run") {
      if (["got", "rap"].includes(result.framework)) output.append(searchPicture(result));
      await growTree(result, output, () => root.lllmTicket === ticket);
    } else if (params.kind === "sweep") output.append(sweepTable(result));
    else {
      const picture = chart(result.summary);
      output.append(summaryTable(result.summary), picture);
      separateLabels(picture);
    }
    if (root.lllmTicket === ticket) root.dataset.state = "done";
    root.dispatchEvent(new CustomEvent("lllm:ran", { bubbles: true, detail: { widget: "reasoning-lab" } })); // the course counts it
  } catch (error) {
    endCount();
    status.textContent = "";
    const sentence = error.name === "ChatError" ? error.message : yourModelSentence(error);
    if (sentence) {
      // your model's server failed: its one sentence, never a recording
      output.replaceChildren(el("p", { class: "lllm-reasoning-lab__error" }, sentence));
      root.dataset.state = "error";
      return;
    }
    if (await playRecorded(root, params, error, output, (out, recorded) => recordedRun(out, recorded, () => root.lllmTicket === ticket)))
      return;
    output.replaceChildren(
      el(
        "p",
        { class: "lllm-reasoning-lab__error" },
        error.name === "BadInput" ? error.message : `The lab could not run: ${error.message}`,
      ),
    );
    root.dataset.state = "error";
  }
}

/** The Run recorded at build time (hooks/recorded.py), drawn as a live run is: played where Python cannot start. */
function recordedRun(result, params, alive) {
  const box = el("div");
  box.append(el("p", { class: "lllm-reasoning-lab__note" }, standInNote(params)));
  if (["got", "rap"].includes(result.framework)) box.append(searchPicture(result));
  growTree(result, box, alive);
  return [box];
}

function setUp(root) {
  if (root.dataset.lllmLab) return; // document$ fires again on instant navigation
  root.dataset.lllmLab = "1";
  root.dataset.state = "idle";
  const task = select("task", Object.keys(TASK_FRAMEWORKS), "game24");
  const model = select(
    "model",
    [
      ["stand-in", "stand-in"],
      ["tinyllm", "tinyllm"],
      [yourModel.YOUR_MODEL, "your model (a server on this computer)"],
    ],
    "stand-in",
  );
  const puzzle = numberInput("puzzle", 900, 0, 1361, 1);
  const framework = select(
    "framework",
    FRAMEWORKS.map((f) => [f, `${FRAMEWORK_NAMES[f]} (${f})`]),
    "got",
  );
  const rate = numberInput("error_rate", 0.5, 0, 1, 0.1);
  const noise = numberInput("value_noise", 0.5, 0, 1, 0.1);
  const seed = numberInput("seed", 1, 0, 1000000, 1);
  const limit = numberInput("limit", 10, 1, 100, 1);
  task.addEventListener("change", () => {
    puzzle.value = task.value === "game24" ? "900" : "1";
  });
  const controls = el("div", { class: "lllm-reasoning-lab__controls" });
  controls.append(
    field("task", task),
    field("model", model),
    field("puzzle row", puzzle),
    field("framework", framework),
    field("error rate", rate),
    field("value noise", noise),
    field("seed", seed),
    field("benchmark puzzles", limit),
  );
  const run = el("button", { class: "md-button md-button--primary lllm-reasoning-lab__run" }, "Run");
  const bench = el("button", { class: "md-button lllm-reasoning-lab__bench" }, "Benchmark");
  const sweep = el("button", { class: "md-button lllm-reasoning-lab__sweep" }, "Sweep value noise");
  run.type = bench.type = sweep.type = "button";
  const status = el("span", { class: "lllm-reasoning-lab__status" });
  const buttons = el("div", { class: "lllm-reasoning-lab__buttons" });
  buttons.append(run, bench, sweep, status);
  const output = el("div", { class: "lllm-reasoning-lab__output" });
  root.replaceChildren(controls, buttons, output);
  const getYourModel = yourModel.yourModelFields(model, controls); // the address and model, shown when chosen
  const common = () => ({
    task: task.value,
    model: model.value,
    error_rate: Number(rate.value),
    value_noise: Number(noise.value),
    ...getYourModel(),
  });
  run.addEventListener("click", () =>
    ask(
      root,
      { kind: "run", ...common(), puzzle: Number(puzzle.value), framework: framework.value, seed: Number(seed.value) },
      status,
      output,
    ),
  );
  bench.addEventListener("click", () =>
    ask(
      root,
      { kind: "benchmark", ...common(), frameworks: TASK_FRAMEWORKS[task.value], limit: Number(limit.value), seeds: 1 },
      status,
      output,
    ),
  );
  sweep.addEventListener("click", () =>
    ask(
      root,
      { kind: "sweep", ...common(), model: "stand-in", frameworks: ["io", "tot-bfs", "got", "rap"], limit: Number(limit.value) },
      status,
      output,
    ),
  );
}

function setUpPage() {
  const labs = document.querySelectorAll(".lllm-reasoning-lab");
  if (labs.length && !document.getElementById("lllm-reasoning-lab-style")) {
    document.head.append(Object.assign(el("style", {}, STYLE), { id: "lllm-reasoning-lab-style" }));
  }
  labs.forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
setUpPage();
