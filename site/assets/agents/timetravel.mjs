// Time travel for a ReAct run (site/agents/react.md). The page places it with
//
//   <div class="lllm-timetravel" data-goal="What is 17 * 23?" data-brain="tinyllm-agent"></div>
//
// Run computes branch 1 in the page's Python (lllm/web/timetravel.py over lllm/agents/timetravel.py).
// A timeline (Previous / Next and one button per step; ← → move along it) shows one step: the prompt
// it saw, the raw output, what was parsed, the observation. Edit its thought, action or observation
// (or the goal) and press "Run from here": the edit is appended to the run spec and Python computes
// the new branch (earlier branches come back as they were). The branches are drawn as an ARIA tree
// (↑ ↓ move, Enter or Space opens one); any two are compared side by side, the first differing step
// marked. Export / Import move a run file (schema "lllm-run", version 1; 2 for a memory session); the link carries the run
// spec in the URL fragment (#run=base64url(JSON)) and reproduces the same branches in a fresh
// profile. The trace box holds trace_text(record), exactly what `python -m lllm replay FILE` prints.
//
// The memory page places it with data-demo="memory" data-goals="first goal|second goal|...": then a
// run is the memory explainer's session (lllm/labs/memory_timetravel.py, run file version 2 with
// "demo": "memory"), the steps are counted across the goals, and each step shows the memory injected
// before its goal — so an edit in goal 1 can be followed, through memory, into goal 2.
//
// The native runtime's pages place it with data-demo="native-agent" (site/native/agent.md: the steps are
// the messages of an Agent's dialog, a branch forks it) or "native-tactic" (site/native/tactic.md: the steps
// are the model calls of a Tactic's agents); ../native/timetravel-native.mjs describes those steps.
//
// For tests: `element.lllmRecord` (the record), `element.lllmSpec`, `element.lllmExportText()`,
// `element.dataset.state` idle | running | done | error, and `element.lllmLink`. A computed run sends
// a bubbling "lllm:ran" event, as the demos do (the course counts it).

import { lllm } from "../runtime/lllm.mjs";
import { el, field, input, select } from "../runtime/dom.mjs";
import { NATIVE_DEMOS } from "../native/timetravel-native.mjs";

const NAMESPACE = "lllm-timetravel";
const BRAINS = [["rule", "rule stand-in"], ["tinyllm", "TinyLLM (samples)"], ["tinyllm-agent", "agent-tuned TinyLLM (greedy)"], ["scripted", "scripted replies"]];
const SCRIPT = "Thought: I should search the web\nAction: search[17 * 23]\n---\nThought: use the calculator\nAction: calc[17 * 23]\n---\nThought: the tool answered\nFinal Answer: 391";
const EDITS = ["thought", "action", "observation"];

// ---- the link: the run spec, base64url JSON in the fragment -----------------------------------------

const toLink = (spec) => {
  const bytes = new TextEncoder().encode(JSON.stringify(spec));
  const b64 = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `${location.origin}${location.pathname}#run=${b64}`;
};

function fromFragment(hash) {
  const b64 = hash.slice("#run=".length).replace(/-/g, "+").replace(/_/g, "/");
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new Error("The link's run could not be read: after #run= it must be base64url-encoded JSON.");
  }
}

function pythonFor(params) {
  const native = String(params.spec?.demo).startsWith("native-") ? ["import lllm.runtimes.native.timetravel   # Pydantic first"] : [];
  return [...native, "from lllm.web import timetravel as page_timetravel",
    "from lllm.web.browser import browser_models",
    `print(page_timetravel.run_json(${JSON.stringify(JSON.stringify(params))}, models=browser_models()))`].join("\n");
}

// ---- drawing a step, the tree, the comparison ---------------------------------------------------

const stepText = (s) => [s.thought && `Thought: ${s.thought}`, s.action && `Action: ${s.action[0]}[${s.action[1]}]`,
  s.final !== null && `Final Answer: ${s.final}`, s.observation !== null && `Observation: ${s.observation}`].filter(Boolean).join("\n") || "(nothing)";

function row(label, node) {
  return el("div", { class: "lllm-tt__row" }, el("span", { class: "lllm-tt__label" }, label), node);
}

function treeNodes(record, selected, choose, label = null) {
  const children = (id) => record.branches.filter((b) => b.parent === id);
  const item = (b) => {
    const what = b.edit ? (b.edit.goal !== undefined ? `goal edited` : `step ${b.edit.step}: ${EDITS.filter((k) => k in b.edit).join(", ")} edited`) : "the run";
    const end = b.answer !== null ? `answer ${b.answer}` : `no answer (${b.stop_reason})`;
    const li = el("li", { role: "treeitem", "aria-selected": String(b.id === selected), tabindex: b.id === selected ? "0" : "-1",
      "data-branch": b.id, class: "lllm-tt__node" }, el("span", {}, label ? label(b) : `branch ${b.id}: ${what} → ${end}`));
    li.addEventListener("click", (e) => { e.stopPropagation(); choose(b.id, true); });
    const kids = children(b.id);
    if (kids.length) {
      li.setAttribute("aria-expanded", "true");
      li.append(el("ul", { role: "group" }, kids.map(item)));
    }
    return li;
  };
  const tree = el("ul", { role: "tree", class: "lllm-tt__tree", "aria-label": "branches of the run" }, children(null).map(item));
  tree.addEventListener("keydown", (e) => {
    const items = [...tree.querySelectorAll("[role=treeitem]")];
    const at = items.indexOf(document.activeElement);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
    if (to !== undefined && items[to]) {
      e.preventDefault();
      items.forEach((i) => (i.tabIndex = -1));
      items[to].tabIndex = 0;
      items[to].focus();
    } else if ((e.key === "Enter" || e.key === " ") && at >= 0) {
      e.preventDefault();
      choose(Number(items[at].dataset.branch), true);
    }
  });
  return tree;
}

function firstDifference(a, b) {
  const keys = ["raw", "thought", "action", "final", "observation", "forced", "outcome"];
  for (let i = 0; i < Math.max(a.steps.length, b.steps.length); i++) {
    const x = a.steps[i], y = b.steps[i];
    if (!x || !y || keys.some((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k])) || (i === 0 && a.goal !== b.goal)) return i + 1;
  }
  return null;
}

function comparison(a, b, native = null) {
  const first = (native?.firstDifference ?? firstDifference)(a, b), text = native?.stepText ?? stepText;
  const rows = [];
  for (let i = 0; i < Math.max(a.steps.length, b.steps.length); i++) {
    const marked = i + 1 === first;
    rows.push(el("tr", { class: marked ? "lllm-tt__first-diff" : null },
      el("th", { scope: "row" }, `step ${i + 1}`, (a.steps[i] ?? b.steps[i]).turn ? ` (goal ${(a.steps[i] ?? b.steps[i]).turn})` : "", marked ? el("strong", {}, " (first difference)") : ""),
      el("td", {}, el("pre", {}, a.steps[i] ? text(a.steps[i]) : "(no step)")),
      el("td", {}, el("pre", {}, b.steps[i] ? text(b.steps[i]) : "(no step)"))));
  }
  const summary = first === null ? "The two branches are the same." : `First difference: step ${first}.`;
  return [el("p", { class: "lllm-tt__diff-summary", "data-first": first ?? "" }, summary),
    el("div", { class: "lllm-tt__scroll", tabindex: "0", role: "region", "aria-label": `branch ${a.id} and branch ${b.id} side by side` },
      el("table", { class: "lllm-tt__compare" }, el("caption", {}, `branch ${a.id} (left) and branch ${b.id} (right)`),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "step"), el("th", { scope: "col" }, `branch ${a.id}`), el("th", { scope: "col" }, `branch ${b.id}`))),
        el("tbody", {}, rows)))];
}

// ---- the widget -----------------------------------------------------------------------------------

function setUp(root) {
  if (root.dataset.lllmTimetravel) return;
  root.dataset.lllmTimetravel = "1";
  root.dataset.state = "idle";
  const memory = root.dataset.demo === "memory";
  const native = NATIVE_DEMOS[root.dataset.demo] ?? null;      // a native Agent's or Tactic's run
  const goal = memory ? Object.assign(el("textarea", { rows: 4 }), { name: "goals", value: (root.dataset.goals ?? "What is 17 * 23?").split("|").join("\n") })
    : input("goal", root.dataset.goal ?? "What is 17 * 23?", { type: "text" });
  const brain = select("brain", BRAINS, root.dataset.brain ?? (native ? "scripted" : "rule"));
  const temperature = input("temperature", 0.8, { type: "number", min: 0, max: 5, step: 0.1 });
  const seed = input("seed", 0, { type: "number", min: 0, step: 1 });
  const maxSteps = input("max_steps", memory ? 4 : native?.maxSteps ?? 5, { type: "number", min: 1, max: native ? 5 : 10, step: 1 });
  const script = Object.assign(el("textarea", { rows: 5 }), { name: "script", value: native?.script ?? SCRIPT });
  const system = input("system", "You answer questions. Use a tool when it helps.", { type: "text" });
  const sampling = el("span", { class: "lllm-tt__inline" }, field("temperature", temperature), field("seed", seed));
  const scriptField = field("replies, blocks between --- lines", script, "lllm-tt__wide");
  const sync = () => { sampling.hidden = brain.value !== "tinyllm"; scriptField.hidden = brain.value !== "scripted"; };
  brain.addEventListener("change", sync);
  sync();
  const button = (text, cls = "") => el("button", { type: "button", class: `md-button ${cls}` }, text);
  const runButton = button("Run", "md-button--primary lllm-tt__run");
  const exportButton = button("Export run (JSON)", "lllm-tt__export");
  const importInput = el("input", { type: "file", accept: ".json,application/json", class: "lllm-tt__import" });
  const status = el("span", { class: "lllm-tt__status", role: "status" });
  const error = el("p", { class: "lllm-tt__error", role: "alert" });
  const link = input("link", "", { type: "text", readOnly: true, className: "lllm-tt__link" });
  const view = el("div", { class: "lllm-tt__view" });
  const trace = el("pre", { class: "lllm-tt__trace", tabindex: "0" });
  root.replaceChildren(
    el("div", { class: "lllm-tt__controls" }, field(memory ? "goals, one per line (run in turn, with memory)" : native?.goalLabel ?? "goal", goal, "lllm-tt__wide"),
      native?.hasSystem ? field("system prompt", system, "lllm-tt__wide") : "", field("brain", brain), sampling,
      native && !native.maxStepsLabel ? "" : field(native?.maxStepsLabel ?? "max steps", maxSteps), scriptField),
    el("div", { class: "lllm-tt__buttons" }, runButton, exportButton, field("Import run", importInput), status),
    error, view, field("link to these runs", link, "lllm-tt__wide"),
    el("details", { class: "lllm-tt__terminal" }, el("summary", {}, "the trace (python -m lllm replay prints the same text)"), trace));

  let spec = null, record = null, branchId = 1, stepIndex = 1, compareWith = null;
  root.lllmExportText = () => JSON.stringify(record, null, 2) + "\n";

  async function compute(newSpec, { known = null, recorded = null, onFail = () => {} } = {}) {
    root.dataset.state = "running";
    runButton.disabled = true;
    status.textContent = "running…";
    error.textContent = "";
    try {
      const result = await lllm.run(pythonFor({ spec: newSpec, known, recorded }), { namespace: NAMESPACE,
        onStderr: (text) => { status.textContent = text.trim().split("\n").pop() || status.textContent; } });
      const out = JSON.parse(result.stdout.trim().split("\n").pop());
      if (!out.ok) throw Object.assign(new Error(out.error), { name: "BadInput" });
      const demo = out.record.demo ?? "react", here = native?.demo ?? (memory ? "memory" : "react");
      if (demo !== here) throw Object.assign(new Error(`This run is for another page's widget (demo "${demo}"); open it there.`), { name: "BadInput" });
      spec = { schema: "lllm-run", version: out.record.version, ...(out.record.demo ? { demo: out.record.demo } : {}),
        inputs: out.record.inputs, edits: out.record.edits };
      record = out.record;
      Object.assign(root, { lllmSpec: spec, lllmRecord: record, lllmLink: toLink(spec) });
      link.value = root.lllmLink;
      trace.textContent = out.trace;
      status.textContent = out.differs ? `Branch ${out.differs} of the file differs from this replay (shown here).` : "";
      root.dataset.state = "done";
      root.dispatchEvent(new CustomEvent("lllm:ran", { bubbles: true, detail: { widget: "timetravel" } }));   // the course counts it
      return true;
    } catch (e) {
      onFail();
      status.textContent = "";
      error.textContent = e.name === "BadInput" ? e.message : `The run could not be computed: ${e.message}`;
      root.dataset.state = record ? "done" : "error";
      return false;
    } finally {
      runButton.disabled = false;
    }
  }

  function fillControls(inputs) {
    Object.assign(goal, { value: memory ? (inputs.goals ?? []).join("\n") : inputs[native?.goal ?? "goal"] ?? "" });
    system.value = inputs.system ?? system.value;
    brain.value = inputs.brain ?? "rule";
    temperature.value = inputs.temperature ?? 0.8;
    seed.value = inputs.seed ?? 0;
    maxSteps.value = inputs.max_steps ?? maxSteps.value;
    script.value = inputs.script ?? "";
    sync();
  }

  function draw(focus = null) {
    const current = record.branches[branchId - 1];
    stepIndex = Math.min(Math.max(1, stepIndex), current.steps.length);
    const step = current.steps[stepIndex - 1];
    // the timeline: Previous, one button per step, Next; ← → move along it
    const stepButtons = current.steps.map((s, i) => {
      const b = button(String(i + 1), "lllm-tt__step");
      b.setAttribute("aria-label", native ? native.stepLabel(s, i + 1) : `step ${i + 1}${s.turn ? ` (goal ${s.turn})` : ""}: ${s.outcome}`);
      if (i + 1 === stepIndex) b.setAttribute("aria-current", "step");
      b.addEventListener("click", () => { stepIndex = i + 1; draw("step"); });
      return b;
    });
    const prev = button("◀ Previous step", "lllm-tt__prev"), next = button("Next step ▶", "lllm-tt__next");
    prev.disabled = stepIndex === 1;
    next.disabled = stepIndex === current.steps.length;
    prev.addEventListener("click", () => { stepIndex -= 1; draw("prev"); });
    next.addEventListener("click", () => { stepIndex += 1; draw("next"); });
    const timeline = el("div", { role: "toolbar", class: "lllm-tt__timeline", "aria-label": `steps of branch ${branchId} (← → move)` }, prev, ...stepButtons, next);
    timeline.addEventListener("keydown", (e) => {
      const move = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
      if (!move || !current.steps[stepIndex - 1 + move]) return;
      e.preventDefault();
      stepIndex += move;
      draw("step");
    });
    // the step itself, and its edit form
    const edits = Object.fromEntries(EDITS.map((k) => {
      const value = k === "action" ? (step.action ? `${step.action[0]}[${step.action[1]}]` : step.final !== null ? `Final Answer: ${step.final}` : "") : step[k] ?? "";
      return [k, input(`edit-${k}`, value, { type: "text", className: "lllm-tt__edit" })];
    }));
    const goalEdit = input("edit-goal", current.goal, { type: "text", className: "lllm-tt__edit" });
    const rerun = button("Run from here", "md-button--primary lllm-tt__rerun");
    const described = native?.stepView(step, stepIndex, current);      // a native step: its own view and fields
    rerun.addEventListener("click", () => runFromHere(current, step, described?.fields ?? edits, goalEdit));
    described?.nodes.at(-1).append(rerun);
    const detail = described ? el("section", { class: "lllm-tt__step-view", "aria-label": `branch ${branchId}, step ${stepIndex}` }, ...described.nodes) : el("section", { class: "lllm-tt__step-view", "aria-label": `branch ${branchId}, step ${stepIndex}` },
      el("h4", {}, `Branch ${branchId}, step ${stepIndex} of ${current.steps.length} (${step.forced ? "forced" : step.outcome})`),
      step.turn ? row(`goal ${step.turn}`, el("pre", {}, current.turns[step.turn - 1].goal)) : "",
      step.turn ? row("memory injected", el("pre", { class: "lllm-tt__memory" }, current.turns[step.turn - 1].memory || "(empty)")) : "",
      step.prompt ? el("details", {}, el("summary", {}, "the prompt this step saw"), el("pre", { tabindex: "0" }, step.prompt)) : "",
      row("raw output", el("pre", {}, step.raw || "(nothing)")),
      row("parsed", el("pre", { class: "lllm-tt__parsed" }, stepText(step))),
      el("fieldset", { class: "lllm-tt__edits" }, el("legend", {}, memory ? "Edit this step (one or more fields), then run from here" : "Edit this step (one or more fields), or the goal, then run from here"),
        ...EDITS.map((k) => field(k, edits[k], "lllm-tt__wide")), memory ? "" : field("goal (a whole new run)", goalEdit, "lllm-tt__wide"), rerun));
    // the tree and the comparison
    const tree = treeNodes(record, branchId, (id, byKey) => { branchId = id; stepIndex = 1; draw(byKey ? "tree" : null); },
      native && ((b) => native.branchText(b, record)));
    const others = record.branches.filter((b) => b.id !== branchId);
    const nodes = [el("h4", {}, "Branches"), tree, timeline, detail];
    if (others.length) {
      compareWith = others.some((b) => b.id === compareWith) ? compareWith : (current.parent ?? others[0].id);
      const pick = select("compare", others.map((b) => [String(b.id), `branch ${b.id}`]), String(compareWith));
      pick.addEventListener("change", () => { compareWith = Number(pick.value); draw("compare"); });
      const [a, b] = [record.branches[compareWith - 1], current].sort((x, y) => x.id - y.id);
      nodes.push(el("h4", {}, "Compare"), field(`compare branch ${branchId} with`, pick), ...comparison(a, b, native));
    }
    view.replaceChildren(...nodes);
    const target = { step: timeline.querySelector("[aria-current=step]"), prev: prev.disabled ? timeline.querySelector("[aria-current=step]") : prev,
      next: next.disabled ? timeline.querySelector("[aria-current=step]") : next, tree: tree.querySelector("[tabindex='0']"),
      compare: view.querySelector("select[name=compare]") }[focus];
    target?.focus();
  }

  async function runFromHere(current, step, edits, goalEdit) {
    let edit;
    if (native) edit = native.edit(current, stepIndex, step, edits) ?? { parent: current.id, step: stepIndex };
    else if (!memory && goalEdit.value !== current.goal) edit = { parent: current.id, step: 1, goal: goalEdit.value };
    else {
      edit = { parent: current.id, step: stepIndex };
      const before = { thought: step.thought ?? "", observation: step.observation ?? "",
        action: step.action ? `${step.action[0]}[${step.action[1]}]` : step.final !== null ? `Final Answer: ${step.final}` : "" };
      EDITS.forEach((k) => { if (edits[k].value !== before[k]) edit[k] = edits[k].value; });
    }
    if (Object.keys(edit).length === 2) {
      error.textContent = native ? "Change the text first: this edit changes nothing."
        : "Change the thought, the action, the observation or the goal first: this edit changes nothing.";
      return;
    }
    if (await compute({ ...spec, edits: [...spec.edits, edit] }, { known: record })) {
      branchId = record.branches.length;
      stepIndex = edit.step;
      draw("tree");
      status.textContent = `Branch ${branchId} computed from step ${edit.step} of branch ${edit.parent}.`;   // read out (role=status)
    }
  }

  async function start(newSpec, options = {}) {
    if (await compute(newSpec, options)) {
      fillControls(record.inputs);
      branchId = record.branches.length > 1 ? record.branches.length : 1;
      stepIndex = 1;
      draw();
    }
  }

  runButton.addEventListener("click", () => start(native ? native.spec({ goal: goal.value, system: system.value, brain: brain.value, seed: Number(seed.value),
    temperature: Number(temperature.value), maxSteps: Number(maxSteps.value), script: script.value }) : { schema: "lllm-run", edits: [], ...(memory ? { version: 2, demo: "memory" } : { version: 1 }), inputs: {
    ...(memory ? { goals: goal.value.split("\n").map((g) => g.trim()).filter(Boolean) } : { goal: goal.value }), brain: brain.value, seed: Number(seed.value), temperature: Number(temperature.value),
    max_steps: Number(maxSteps.value), script: brain.value === "scripted" ? script.value : "" } }));
  if (!memory) goal.addEventListener("keydown", (e) => e.key === "Enter" && runButton.click());
  exportButton.addEventListener("click", () => {
    if (!record) { error.textContent = "Run first: there is no run to export yet."; return; }
    const a = el("a", { href: URL.createObjectURL(new Blob([root.lllmExportText()], { type: "application/json" })), download: "lllm-run.json" });
    a.click();
    URL.revokeObjectURL(a.href);
  });
  importInput.addEventListener("change", async () => {
    const file = importInput.files[0];
    if (file) await root.lllmImport(await file.text());
    importInput.value = "";
  });
  root.lllmImport = async (text) => {
    let data;
    try { data = JSON.parse(text); } catch (e) { error.textContent = `The file is not valid JSON: ${e.message}.`; return false; }
    return start(data, { recorded: Array.isArray(data?.branches) && data.branches.length ? data.branches : null });
  };
  const fromLink = () => {
    if (!root.isConnected || !location.hash.startsWith("#run=")) return;
    try { start(fromFragment(location.hash)); } catch (e) { error.textContent = e.message; root.dataset.state = record ? "done" : "error"; }
  };
  window.addEventListener("hashchange", fromLink);     // a link pasted into this very tab
  fromLink();
}

function setUpPage() {
  document.querySelectorAll(".lllm-timetravel").forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
