// The agent pages' live demos (site/agents/*.md). A page places one with an empty element:
//
//   <div class="lllm-demo" data-demo="react" data-goal="What is 17 * 23?"></div>
//
// data-demo is one of react | lab | evaluate | memory | playground | retrieve | versus | judge |
// before-after. The widget draws the controls (a goal, a brain: the rule stand-in, TinyLLM in the page, the agent-tuned
// TinyLLM, a script, your model on a server, or a model trained in this browser's tab: tabmodel.mjs), runs the same Python as `python -m lllm ...` through window.lllm.run —
// lllm/web/demos.py returns JSON — and renders it: the trajectory step by step, the lab's table,
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
import { el, field as domField, input, pct, select, svgCanvas, table } from "../runtime/dom.mjs";
import { playRecorded } from "../runtime/recorded.mjs";
import * as yourModel from "./yourmodel.mjs";     // "your model": a server on the learner's computer
import { TAB_MODEL, offerTabModel, samples } from "./tabmodel.mjs";   // a model trained in the tab
import { offerLookInside } from "./demo-inside.mjs";

const field = (label, control) => domField(label, control, "lllm-demo__field");

const NAMESPACE = "lllm-agent-demos";  // the widgets' own Python namespace, apart from the page's cells
const DEFAULT_SCRIPT = [                // shows the failures a model can cause, each a visible step
  "Thought: I should search the web\nAction: search[17 * 23]",
  "I think the answer is probably a big number",
  "Thought: use the calculator\nAction: calc[17 * 23]",
  "Thought: the tool answered\nFinal Answer: 391",
].join("\n---\n");
const CATEGORIES = ["direct", "arithmetic", "arithmetic-words", "lookup", "word-problem"];
const BRAIN_LABELS = { rule: "rule stand-in", tinyllm: "TinyLLM (in this page)", "tinyllm-agent": "agent-tuned TinyLLM (greedy)", scripted: "scripted replies", echo: "echo (the old bug)", yourmodel: "your model (a server on this computer)", "tinyllm-yours": "your model trained in this tab" };
const VERSUS_TITLES = { tinyllm: "the story model (tinyllm, temperature 0)", "tinyllm-agent": "the agent-tuned TinyLLM (tinyllm-agent, greedy)", yourmodel: "your model (greedy)" };
const CRITERIA = ["format", "tool", "args", "answer", "efficiency", "total"];

// ---- the demos' own DOM pieces (the shared helpers are in ../runtime/dom.mjs) ---------------------

function bar(fraction, label) {
  const track = el("span", { class: "lllm-demo__bar" });
  const fill = el("span", { class: "lllm-demo__bar-fill" });
  fill.style.width = pct(Math.max(0, Math.min(1, fraction)));
  track.append(fill);
  const wrap = el("span", { class: "lllm-demo__barwrap" });
  wrap.append(track, el("span", { class: "lllm-demo__bar-label" }, label));
  return wrap;
}

// A step that failed, by its typed outcome (lllm/agents/react.py: Outcome), never by its text.
const FAILED = new Set(["repair", "unknown tool", "tool error", "predictor error"]);
const UNGROUNDED = "not grounded in any observation";   // grounding.py: LABEL

// ---- the controls each demo needs -----------------------------------------------------------------

function brainControls(root, controls, { brains = ["rule", "tinyllm", "tinyllm-agent", "scripted", yourModel.YOUR_MODEL, TAB_MODEL], oneSeed = true } = {}) {
  const brain = select("brain", brains.map((b) => [b, BRAIN_LABELS[b]]), root.dataset.brain ?? "rule");
  const temperature = input("temperature", root.dataset.temperature ?? 0.8, { type: "number", min: 0, max: 5, step: 0.1 });
  const seed = input("seed", root.dataset.seed ?? 0, { type: "number", min: 0, step: 1 });
  const sampling = el("span", { class: "lllm-demo__sampling" });
  sampling.append(field("temperature", temperature));
  if (oneSeed) sampling.append(field("seed", seed));   // the evaluator asks for a list of seeds instead
  const script = Object.assign(el("textarea", { class: "lllm-demo__script" }), { name: "script", rows: 7, value: DEFAULT_SCRIPT });
  const scriptField = field("replies, one per block between --- lines", script);
  scriptField.classList.add("lllm-demo__field--wide");
  const sync = () => {
    sampling.hidden = !samples(brain.value);       // the story models sample; tinyllm-agent is greedy
    scriptField.hidden = brain.value !== "scripted";
  };
  brain.addEventListener("change", sync);
  sync();
  controls.append(field("brain", brain), ...(brains.includes(TAB_MODEL) ? [offerTabModel(brain)] : []), sampling, scriptField);
  const getYourModel = brains.includes(yourModel.YOUR_MODEL) ? yourModel.yourModelFields(brain, controls) : () => ({});
  return () => ({ brain: brain.value, temperature: Number(temperature.value), seed: Number(seed.value), script: script.value, ...getYourModel() });
}

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
  versus(root, controls) {          // no brain to pick: the story model and the agent-tuned one (or data-brains), greedy
    const getGoal = goalControl(root, controls, "What is 48 plus 17?");
    const brains = root.dataset.brains?.split(" ") ?? ["tinyllm", "tinyllm-agent"];
    const getYourModel = brains.includes(yourModel.YOUR_MODEL) ? yourModel.yourModelFields(null, controls) : () => ({});
    return () => ({ ...getGoal(), brains, ...getYourModel() });
  },
  judge(root, controls) {            // the agent-tuned model alone, greedy; Python says whether it was right
    const getGoal = goalControl(root, controls, "Quick one: 48 plus 7?");
    return () => ({ ...getGoal() });
  },
  "before-after"(root, controls) {  // no brain to pick: the story model, then the agent-tuned one, greedy
    const perGroup = input("per_group", root.dataset.perGroup ?? 2, { type: "number", min: 1, max: 10, step: 1 });
    controls.append(field("goals per group", perGroup));
    return () => ({ per_group: Number(perGroup.value) });
  },
  lab(root, controls) {
    const parts = [brainControls(root, controls, { brains: ["rule", "tinyllm", "tinyllm-agent", "scripted", "echo"] }), categoryControl(root, controls)];
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
      name: "goals", rows: 4,
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
  return text.split(",").filter((s) => s.trim()).map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : s.trim()));
}

// ---- rendering what Python returned ---------------------------------------------------------------

function renderSteps(trajectory, { tail = true } = {}) {
  const list = el("ol", { class: "lllm-demo__steps" });
  trajectory.steps.forEach((step) => {
    const item = el("li", { class: "lllm-demo__step" });
    item.append(el("div", { class: "lllm-demo__step-title" }, step.forced ? "forced: the goal is a tool call, run before the model" : "the model's step"));
    if (!step.forced && tail) item.append(labelled("prompt tail", el("pre", { class: "lllm-demo__tail" }, step.prompt_tail ? "…" + step.prompt_tail : "(none)")));
    if (!step.forced) item.append(labelled("raw output", el("pre", { class: "lllm-demo__raw" }, step.raw || "(nothing)")));
    if (step.thought) item.append(labelled("thought", el("span", {}, step.thought)));
    if (step.action) item.append(labelled("action", el("code", { class: "lllm-demo__action" }, `${step.action[0]}[${step.action[1]}]`)));
    if (step.final !== null) item.append(labelled("final answer", el("strong", { class: "lllm-demo__final" }, step.final)));
    if (step.observation !== null) {
      const obs = labelled("observation", el("code", { class: "lllm-demo__obs" }, step.observation));
      if (FAILED.has(step.outcome)) obs.classList.add("lllm-demo__row--error");
      item.append(obs);
    }
    list.append(item);
  });
  const end = trajectory.answer !== null
    ? el("p", { class: "lllm-demo__answer" }, `Final answer: ${trajectory.answer}`)
    : el("p", { class: "lllm-demo__answer lllm-demo__answer--none" }, `Stopped without an answer (${trajectory.stop_reason}).`);
  // Python's typed verdict (lllm/agents/grounding.py), never this page's reading of the text.
  if (trajectory.ungrounded?.length) {
    end.classList.add("lllm-demo__answer--ungrounded");
    end.append(el("span", { class: "lllm-demo__ungrounded" }, ` — ${UNGROUNDED}: ${trajectory.ungrounded.join("; ")}`));
  }
  return [list, end];
}

function labelled(label, node) {
  const row = el("div", { class: "lllm-demo__row" });
  row.append(el("span", { class: "lllm-demo__label" }, label), node);
  return row;
}

function terminal(title, text) {
  const box = el("details", { class: "lllm-demo__terminal" });
  box.append(el("summary", {}, title), el("pre", {}, text));
  return box;
}

const RENDER = {
  react(out, params) {
    const model = params.brain === TAB_MODEL ? "tinyllm:tinyllm-yours.onnx" : params.brain;   // the train page's download
    const flag = samples(params.brain) ? ` --predictor ${model} --temperature ${params.temperature} --seed ${params.seed}`
      : ` --predictor ${params.brain === "scripted" ? "scripted:FILE" : params.brain === yourModel.YOUR_MODEL ? `http:${params.endpoint.url}` : params.brain}`;
    const [steps, end] = renderSteps(out.trajectory);
    offerLookInside(steps, out, params);          // a step the model wrote opens down to the numbers
    return [steps, end, terminal(`the same run in a terminal: python -m lllm react ${JSON.stringify(params.goal)}${flag} --verbose`, out.trace)];
  },
  lab(out) {
    const r = out.report;
    const rows = Object.entries(r.by_category).map(([name, c]) => [name, c.tool, c.args, c.answer, c.ungrounded, `${c.passed}/${c.total}`, bar(c.passed / c.total, pct(c.passed / c.total))]);
    rows.push(["overall", "", "", "", "", `${r.passed}/${r.total}`, bar(r.success_rate, pct(r.success_rate))]);
    const nodes = [el("p", { class: "lllm-demo__summary" }, `overall: ${r.passed}/${r.total} passed (${pct(r.success_rate)}), predictor ${r.predictor}`),
      table(["category", "tool", "args", "answer", "ungrounded", "passed", "success"], rows, "lllm-demo__table")];
    const failures = r.results.filter((x) => !x.success);
    if (failures.length) {
      const list = el("ul", { class: "lllm-demo__failures" });
      for (const f of failures) {
        const calls = f.tool_calls.map(([n, a]) => `${n}[${a}]`).join(", ") || "no tool";
        list.append(el("li", {}, `[${f.case.category}] ${f.case.goal} — wanted ${f.case.expected_tool}[..${f.case.expected_arg_contains}..] → ${f.case.expected_answer}; `
          + (f.error ?? `called ${calls}; answer ${f.answer === null ? "none" : JSON.stringify(f.answer)} (${f.stop_reason})${f.ungrounded ? `, ${UNGROUNDED}` : ""}`)));
      }
      nodes.push(el("p", { class: "lllm-demo__label" }, `failures (${failures.length})`), list);
    }
    return [...nodes, terminal("the same report in a terminal (python -m lllm lab)", out.text)];
  },
  evaluate(out) {
    const r = out.report;
    return [el("p", { class: "lllm-demo__summary" }, `${r.cases} cases × ${r.seeds.length} seed(s) [${r.seeds.join(", ")}], predictor ${r.predictor}`),
      chart(r),
      el("p", { class: "lllm-demo__note" }, `mean steps per case: ${r.mean.steps.toFixed(2)} (spread ${r.spread.steps.toFixed(3)}). `
        + `Answers ${UNGROUNDED} (ungrounded): ${pct(r.mean.ungrounded)}. `
        + `Per seed total: ${r.per_seed.map((run, i) => `seed ${r.seeds[i]}: ${run.total.toFixed(2)}`).join(", ")}.`),
      terminal("the same report in a terminal (python -m lllm evaluate)", out.text)];
  },
  memory(out) {
    const nodes = out.turns.map((turn, i) => {
      const box = el("section", { class: "lllm-demo__turn" });
      box.append(el("h4", {}, `goal ${i + 1}: ${turn.goal}`),
        labelled("injected block", el("pre", { class: "lllm-demo__block" }, turn.memory_block || "(empty: nothing remembered yet)")),
        ...renderSteps(turn.trajectory));
      const memory = el("ol", { class: "lllm-demo__memory" });
      turn.short_term_after.forEach((t) => memory.append(el("li", {}, t)));
      box.append(labelled(`short-term memory now (${turn.short_term_after.length})`, memory));
      return box;
    });
    return [...nodes, terminal("the same session in a terminal (python -m lllm explain-memory)", out.trace)];
  },
  playground(out) {
    const rows = out.rows.map((r) => [r.name, `${r.passed}/${r.cases}`, r.calls, r.ms_per_call.toFixed(2), r.chars_per_second.toFixed(0), r.chars]);
    return [table(["brain", "success", "calls", "ms/call", "chars/s", "chars"], rows, "lllm-demo__table"),
      el("p", { class: "lllm-demo__note" }, "Timed in this page (Python and TinyLLM in a Web Worker): success, calls and characters match the terminal, the times do not.")];
  },
  "before-after"(out) {
    const headers = ["group", "n", ...out.models.flatMap((m) => out.criteria.map((c) => `${m}: ${c}`))];
    const rows = out.rows.map((r) => [r.group, r.n, ...r.scores.flatMap((s) => out.criteria.map((c) => `${s[c].toFixed(1)}%`))]);
    const grid = table(headers, rows, "lllm-demo__table");
    grid.classList.add("lllm-demo__before-after");
    return [grid, terminal(`the same table in a terminal: ${out.command}`, out.text)];
  },
  versus(out) {
    const columns = el("div", { class: "lllm-demo__columns" });
    for (const run of out.runs) {
      const column = el("section", { class: "lllm-demo__column" });
      column.dataset.brain = run.brain;
      column.append(el("h4", {}, VERSUS_TITLES[run.brain] ?? BRAIN_LABELS[run.brain]),
        ...renderSteps(run.trajectory, { tail: false }),
        terminal(`the same run in a terminal: ${run.command}`, run.terminal));
      columns.append(column);
    }
    return [columns];
  },
  judge(out) {
    const judged = out.judgement;
    const verdict = el("p", { class: "lllm-demo__verdict" }, out.verdict);
    verdict.dataset.verdict = !judged.judged ? "unknown" : judged.scores.lenient && judged.scores.args ? "right" : "wrong";
    return [verdict, ...renderSteps(out.trajectory, { tail: false }),
      terminal(`the same run in a terminal: ${out.command}`, out.terminal)];
  },
  retrieve(out) {
    const facts = el("ol", { class: "lllm-demo__facts" });
    out.facts.forEach((f, i) => facts.append(el("li", {}, `${f}  (shared words: ${out.shared[i].join(", ")})`)));
    return [labelled("content words", el("code", {}, out.query_words.join(" ") || "(none)")),
      labelled("retrieved", out.facts.length ? facts : el("span", {}, "(no fact shares a word)")),
      labelled("the block injected above the question", el("pre", { class: "lllm-demo__block" }, out.block || "(empty)"))];
  },
};

/** The evaluator's chart: one bar per criterion (the mean) with a whisker of ± one spread. */
function chart(report) {
  const W = 460, row = 26, left = 90, width = 300;
  const { svg, add } = svgCanvas({
    viewBox: `0 0 ${W} ${row * CRITERIA.length + 24}`, class: "lllm-demo__chart", role: "img",
    "aria-label": "mean score per criterion, with the spread across seeds",
  });
  CRITERIA.forEach((c, i) => {
    const y = 8 + i * row, mean = report.mean[c], spread = report.spread[c];
    const weight = c in report.rubric ? ` ×${report.rubric[c]}` : "";
    add("text", { x: 0, y: y + 13, class: "lllm-demo__chart-label" }, c + weight);
    add("rect", { x: left, y, width, height: 16, class: "lllm-demo__chart-track" });
    add("rect", { x: left, y, width: width * Math.min(1, mean), height: 16, class: "lllm-demo__chart-bar", "data-criterion": c });
    if (spread > 0) {
      const lo = left + width * Math.max(0, mean - spread), hi = left + width * Math.min(1, mean + spread);
      add("line", { x1: lo, x2: hi, y1: y + 8, y2: y + 8, class: "lllm-demo__chart-spread" });
    }
    add("text", { x: left + width + 8, y: y + 13, class: "lllm-demo__chart-value" }, `${mean.toFixed(2)} ± ${spread.toFixed(2)}`);
  });
  return svg;
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
  let endLive = null;
  try {
    if (yourModel.usesYourModel(params) && lllm.sync) {   // checked before Python: a dead server is one sentence at once
      status.textContent = "asking your model's server…";
      root.lllmParams = params = await yourModel.prepare(params);
      endLive = yourModel.liveTrace(output);
    }
    const result = await lllm.run(pythonFor(params), {
      namespace: NAMESPACE,
      onStderr: (text) => { status.textContent = text.trim().split("\n").pop() || status.textContent; },
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
    if (error.name !== "ChatError" && await playRecorded(root, params, error, output, (out, recorded) => RENDER[root.dataset.demo](out, recorded))) return;
    const message = error.name === "BadInput" || error.name === "ChatError" ? error.message
      : error.name === "Stopped" ? "Stopped. (Python was restarted.)"
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
  if (root.dataset.lllmDemo) return;    // document$ fires again on instant navigation: stay idempotent
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
