// Time travel for the agent demos: one widget, a small description per demo. The ReAct page places it with
//
//   <div class="lllm-timetravel" data-goal="What is 17 * 23?" data-brain="tinyllm-agent"></div>
//
// and another page names its demo: data-demo="memory" (data-goals="first|second|..."), "workflow" (the
// typed workflow, data-goal), "oversight" (human-in-the-loop, data-goal, data-decisions="approve|edit ...")
// or "debate" (data-question); the native runtime's pages name "native-agent" (site/native/agent.md: the
// steps are the messages of an Agent's dialog, a branch forks it; data-goal) or "native-tactic"
// (site/native/tactic.md: the steps are the model calls of a Tactic's agents; data-task). DEMOS below
// says, per demo, which controls a run starts from and which run-file version it writes; the steps
// describe themselves (lllm/timetravel/steps.py: a title, named fields an edit may change, read-only
// context), so the timeline, the edit form, the tree and the comparison are the same code for every
// demo. ReAct and memory steps (lllm/timetravel/react.py) are read through `viewOf` (branches.mjs, with the tree and the comparison) into the same
// shape; a native run's steps are drawn and edited by their description in ../native/timetravel-native.mjs
// (a row's `native`), which the widget asks at the same places.
//
// Run computes branch 1 in the page's Python (lllm/web/timetravel.py; the table of demos is
// lllm/timetravel/demos.py). A timeline (Previous / Next and one button per step; ← → move along
// it) shows one step: what it saw, what it said, what it caused. Edit one of its fields (or the ReAct
// goal) and press "Run from here": the edit is appended to the run spec and Python computes the new
// branch (earlier branches come back as they were). The branches are drawn as an ARIA tree (↑ ↓ move,
// Enter or Space opens one); any two are compared side by side, the first differing step marked.
// Export / Import move a run file (schema "lllm-run"); the link carries the run spec in the URL fragment
// (#run=base64url(JSON)) and reproduces the same branches in a fresh profile. The trace box holds the
// demo's trace text, exactly what `python -m lllm replay FILE` prints.
//
// For tests: `element.lllmRecord` (the record), `element.lllmSpec`, `element.lllmExportText()`, `element.lllmTimeline`,
// `element.dataset.state` idle | running | done | error, and `element.lllmLink`. A computed run sends
// a bubbling "lllm:ran" event, as the demos do (the course counts it).

import { lllm } from "../runtime/lllm.mjs";
import { el, field, input, select } from "../runtime/dom.mjs";
import { NATIVE_DEMOS } from "../native/timetravel-native.mjs";
import { fromFragment, toLink } from "./runlink.mjs";
import { BRAINS, controlsFor, fillControls, readInputs, timelineTable } from "./timetravel-controls.mjs"; // the controls per demo
import { comparison, row, treeNodes, viewOf } from "./branches.mjs";
import { chatPanel, isChatLog } from "./chatimport.mjs"; // a chat log from elsewhere   // a step's view, the tree, the comparison

const NAMESPACE = "lllm-timetravel";
const MAX_FILE_BYTES = 8 * 2 ** 20; // as lllm/timetravel/runfile.py: checked before the file is read

// ---- the demos: the controls a run starts from, and the run-file version it writes ----------------
// `preload`: Python run first (the debate's and the native runs' name the native runtime, so the worker
// loads pydantic). A control is [name, label, kind, default]; kind "text" | "lines" (a list, one per line;
// data-NAME separates them with |) | "number" [min, max] | "model" (brain, temperature and seed for
// TinyLLM, max steps — none when the default is null —, the scripted replies: the ReAct inputs; its last
// item may change the default brain, the replies and the most steps). A data-NAME attribute on the page
// sets the default. `native`: the description of a native run's steps (../native/timetravel-native.mjs).
// timetravel-controls.mjs draws a demo's controls, reads them and fills them in again.

const MODEL = (steps, label = "max steps", options = {}) => ["model", label, "model", steps, options];
const NATIVE = "import lllm.timetravel.native_agent   # the worker loads pydantic for the native runtime";
const nativeDemo = (native) => ({
  version: 2,
  preload: NATIVE,
  native,
  controls: [
    [native.goal, native.goalLabel, "text", "What is 17 * 23?"],
    ...(native.hasSystem ? [["system", "system prompt", "text", "You answer questions. Use a tool when it helps."]] : []),
    MODEL(native.maxStepsLabel ? native.maxSteps : null, native.maxStepsLabel, { brain: "scripted", script: native.script, max: 5 }),
  ],
});
const DEMOS = {
  react: { version: 1, controls: [["goal", "goal", "text", "What is 17 * 23?"], MODEL(5)] },
  memory: { version: 2, controls: [["goals", "goals, one per line (run in turn, with memory)", "lines", "What is 17 * 23?"], MODEL(4)] },
  workflow: { version: 2, controls: [["goal", "goal", "text", "What is 17 * 23?"], MODEL(5, "max turns")] },
  oversight: {
    version: 2,
    controls: [
      ["goal", "goal", "text", "What is 17 * 23?"],
      ["decisions", "the human's decisions, one per line: approve, edit TEXT, inject TEXT, skip, quit (then approve)", "lines", ""],
      MODEL(5),
    ],
  },
  debate: {
    version: 2,
    preload: "import lllm.labs.debate.panel  # the worker loads pydantic for the native runtime",
    controls: [
      ["question", "question", "text", "What is 48 plus 17?"],
      ["rounds", "revision rounds", "number", 1, 1, 5],
      ["seed", "seed", "number", 0, 0, 2147483647],
    ],
  },
  "native-agent": nativeDemo(NATIVE_DEMOS["native-agent"]),
  "native-tactic": nativeDemo(NATIVE_DEMOS["native-tactic"]),
};

function pythonFor(params, preload = "") {
  return [
    preload,
    "from lllm.web import timetravel as page_timetravel",
    "from lllm.web.browser import browser_models",
    `print(page_timetravel.run_json(${JSON.stringify(JSON.stringify(params))}, models=browser_models()))`,
  ].join("\n");
}

// ---- the widget -----------------------------------------------------------------------------------

function setUp(root) {
  if (root.dataset.lllmTimetravel) return;
  root.dataset.lllmTimetravel = "1";
  root.dataset.state = "idle";
  const demo = DEMOS[root.dataset.demo] ? root.dataset.demo : "react";
  const native = DEMOS[demo].native ?? null; // a native Agent's or Tactic's steps draw themselves
  const { made, nodes } = controlsFor(root, DEMOS[demo].controls);
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
    el("div", { class: "lllm-tt__controls" }, nodes),
    el("div", { class: "lllm-tt__buttons" }, runButton, exportButton, field("Import run", importInput), status),
    error,
    view,
    field("link to these runs", link, "lllm-tt__wide"),
    el("details", { class: "lllm-tt__terminal" }, el("summary", {}, "the trace (python -m lllm replay prints the same text)"), trace),
  );

  let spec = null,
    record = null,
    branchId = 1,
    stepIndex = 1,
    compareWith = null,
    timings = [];
  root.lllmExportText = () => JSON.stringify(record, null, 2) + "\n";

  // the page's Python (lllm/web/timetravel.py): its JSON answer, or a BadInput error holding its one sentence
  async function python(params) {
    const result = await lllm.run(pythonFor(params, DEMOS[demo].preload), {
      namespace: NAMESPACE,
      onStderr: (text) => {
        status.textContent = text.trim().split("\n").pop() || status.textContent;
      },
    });
    const out = JSON.parse(result.stdout.trim().split("\n").pop());
    if (!out.ok) throw Object.assign(new Error(out.error), { name: "BadInput" });
    return out;
  }

  async function compute(newSpec, { known = null, recorded = null, onFail = () => {} } = {}) {
    root.dataset.state = "running";
    runButton.disabled = true;
    status.textContent = "running…";
    error.textContent = "";
    try {
      const out = await python({ spec: newSpec, known, recorded });
      spec = {
        schema: "lllm-run",
        version: out.record.version,
        ...(out.record.demo ? { demo: out.record.demo } : {}),
        inputs: out.record.inputs,
        edits: out.record.edits,
      };
      record = out.record;
      Object.assign(root, { lllmSpec: spec, lllmRecord: record, lllmLink: toLink(spec) });
      link.value = root.lllmLink;
      trace.textContent = out.trace;
      // a ReAct run's timeline; a branch reused from before keeps the times it was computed with
      timings = (out.timeline ?? []).map((rows, b) => rows.map((r, s) => ({ ...r, ms: r.ms ?? timings[b]?.[s]?.ms ?? null })));
      root.lllmTimeline = timings;
      status.textContent = out.differs ? `Branch ${out.differs} of the file differs from this replay (shown here).` : "";
      root.dataset.state = "done";
      root.dispatchEvent(new CustomEvent("lllm:ran", { bubbles: true, detail: { widget: "timetravel" } })); // the course counts it
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

  // one step: its view and edit form (`detail`), the edit its fields make (`editOf()`; parent and step
  // alone when they make none) and what to say then (`unchanged`)
  function stepDetail(current, rerun) {
    const step = current.steps[stepIndex - 1],
      at = { parent: current.id, step: stepIndex };
    const section = { class: "lllm-tt__step-view", "aria-label": `branch ${branchId}, step ${stepIndex}` };
    if (native) {
      // a native message or model call: ../native/timetravel-native.mjs draws it and its fields
      const described = native.stepView(step, stepIndex, current);
      described.nodes.at(-1).append(rerun);
      return {
        detail: el("section", section, ...described.nodes),
        unchanged: "Change the text first: this edit changes nothing.",
        editOf: () => native.edit(current, stepIndex, step, described.fields) ?? at,
      };
    }
    const shown = viewOf(step, current);
    // one control per editable field (several lines: a text area)
    const edits = Object.fromEntries(
      shown.editable.map((k) => {
        const value = shown.fields[k];
        return [
          k,
          value.includes("\n")
            ? Object.assign(el("textarea", { rows: value.split("\n").length, class: "lllm-tt__edit" }), { name: `edit-${k}`, value })
            : input(`edit-${k}`, value, { type: "text", className: "lllm-tt__edit" }),
        ];
      }),
    );
    const goalEdit = demo === "react" ? input("edit-goal", current.goal, { type: "text", className: "lllm-tt__edit" }) : null;
    // a ReAct run: another brain may write from this step on, every step before it kept as it was
    const swap =
      demo === "react"
        ? select("swap-brain", [["", "(the same brain)"], ...BRAINS.filter(([b]) => b !== (current.brain ?? record.inputs.brain))], "")
        : null;
    const form =
      shown.editable.length || goalEdit
        ? el(
            "fieldset",
            { class: "lllm-tt__edits" },
            el("legend", {}, `Edit this step (one or more fields)${goalEdit ? ", or the goal," : ""} then run from here`),
            ...shown.editable.map((k) => field(k, edits[k], "lllm-tt__wide")),
            goalEdit ? field("goal (a whole new run)", goalEdit, "lllm-tt__wide") : "",
            swap
              ? field(
                  "and/or another brain from here (alone, it writes this step on; with an edit, the steps after it)",
                  swap,
                  "lllm-tt__wide",
                )
              : "",
            rerun,
          )
        : el("p", {}, "This step is read-only: it is computed from the steps before it.");
    const detail = el(
      "section",
      section,
      el("h4", {}, `Branch ${branchId}, step ${stepIndex} of ${current.steps.length}${shown.heading}`),
      shown.prompt ? el("details", {}, el("summary", {}, "the prompt this step saw"), el("pre", { tabindex: "0" }, shown.prompt)) : "",
      shown.rows.map(([label, text, cls]) => row(label, el("pre", { class: cls || null }, text))),
      drillSlot(current),
      form,
    );
    const editOf = () => {
      if (goalEdit && goalEdit.value !== current.goal) return { parent: current.id, step: 1, goal: goalEdit.value };
      const edit = { ...at };
      shown.editable.forEach((k) => {
        if (edits[k].value !== shown.fields[k]) edit[k] = edits[k].value;
      });
      if (swap?.value) edit.brain = swap.value;
      return edit;
    };
    return {
      detail,
      editOf,
      unchanged: `Change ${[...shown.editable, ...(goalEdit ? ["the goal", "the brain"] : [])].join(", ")} first: this edit changes nothing.`,
    };
  }

  // a ReAct step a model wrote: its characters, each opening the forward pass that drew it (drilldown.mjs)
  function drillSlot(current) {
    if (demo !== "react") return "";
    const slot = el("div", { class: "lllm-tt__drill" });
    import("./drilldown.mjs").then(({ drill }) =>
      drill(slot, {
        record,
        branchId: current.id,
        stepIndex,
        onPrefix: (prefix, who) =>
          runFromHere(
            { parent: current.id, step: stepIndex, prefix, ...(who.brain !== who.brains[current.id - 1] ? { brain: who.brain } : {}) },
            "",
          ),
      }),
    );
    return slot;
  }

  function draw(focus = null) {
    const current = record.branches[branchId - 1];
    stepIndex = Math.min(Math.max(1, stepIndex), current.steps.length);
    // the timeline: Previous, one button per step, Next; ← → move along it
    const stepButtons = current.steps.map((s, i) => {
      const b = button(String(i + 1), "lllm-tt__step");
      b.setAttribute("aria-label", native ? native.stepLabel(s, i + 1) : `step ${i + 1}${viewOf(s, current).label}`);
      if (i + 1 === stepIndex) b.setAttribute("aria-current", "step");
      b.addEventListener("click", () => {
        stepIndex = i + 1;
        draw("step");
      });
      return b;
    });
    const prev = button("◀ Previous step", "lllm-tt__prev"),
      next = button("Next step ▶", "lllm-tt__next");
    prev.disabled = stepIndex === 1;
    next.disabled = stepIndex === current.steps.length;
    prev.addEventListener("click", () => {
      stepIndex -= 1;
      draw("prev");
    });
    next.addEventListener("click", () => {
      stepIndex += 1;
      draw("next");
    });
    const timeline = el(
      "div",
      { role: "toolbar", class: "lllm-tt__timeline", "aria-label": `steps of branch ${branchId} (← → move)` },
      prev,
      ...stepButtons,
      next,
    );
    timeline.addEventListener("keydown", (e) => {
      const move = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
      if (!move || !current.steps[stepIndex - 1 + move]) return;
      e.preventDefault();
      stepIndex += move;
      draw("step");
    });
    // the step itself, and its edit form
    const rerun = button("Run from here", "md-button--primary lllm-tt__rerun");
    const { detail, editOf, unchanged } = stepDetail(current, rerun);
    rerun.addEventListener("click", () => runFromHere(editOf(), unchanged));
    // the tree and the comparison
    const tree = treeNodes(
      record,
      branchId,
      (id, byKey) => {
        branchId = id;
        stepIndex = 1;
        draw(byKey ? "tree" : null);
      },
      native && ((b) => native.branchText(b, record)),
    );
    const others = record.branches.filter((b) => b.id !== branchId);
    const nodes = [el("h4", {}, "Branches"), tree, timeline, timelineTable(branchId, timings[branchId - 1]), detail];
    if (others.length) {
      compareWith = others.some((b) => b.id === compareWith) ? compareWith : (current.parent ?? others[0].id);
      const pick = select(
        "compare",
        others.map((b) => [String(b.id), `branch ${b.id}`]),
        String(compareWith),
      );
      pick.addEventListener("change", () => {
        compareWith = Number(pick.value);
        draw("compare");
      });
      const [a, b] = [record.branches[compareWith - 1], current].sort((x, y) => x.id - y.id);
      nodes.push(el("h4", {}, "Compare"), field(`compare branch ${branchId} with`, pick), ...comparison(a, b, native));
    }
    view.replaceChildren(...nodes);
    const target = {
      step: timeline.querySelector("[aria-current=step]"),
      prev: prev.disabled ? timeline.querySelector("[aria-current=step]") : prev,
      next: next.disabled ? timeline.querySelector("[aria-current=step]") : next,
      tree: tree.querySelector("[tabindex='0']"),
      compare: view.querySelector("select[name=compare]"),
    }[focus];
    target?.focus();
  }

  async function runFromHere(edit, unchanged) {
    if (Object.keys(edit).length === 2) {
      error.textContent = unchanged;
      return;
    }
    if (await compute({ ...spec, edits: [...spec.edits, edit] }, { known: record })) {
      branchId = record.branches.length;
      stepIndex = edit.step;
      draw("tree");
      status.textContent = `Branch ${branchId} computed from step ${edit.step} of branch ${edit.parent}.`; // read out (role=status)
    }
  }

  async function start(newSpec, options = {}) {
    const named = newSpec?.version === 2 ? newSpec.demo : "react";
    if (named !== demo && DEMOS[named]) {
      // Python would compute it, but these controls cannot show it
      error.textContent = `This run is for another page's widget (demo "${named}"); open it there.`;
      root.dataset.state = record ? "done" : "error";
      return false;
    }
    if (await compute(newSpec, options)) {
      fillControls(DEMOS[demo].controls, made, record.inputs);
      branchId = Math.max(record.branches.length, 1);
      stepIndex = 1;
      draw();
    }
  }

  const version = DEMOS[demo].version;
  runButton.addEventListener("click", () =>
    start({ schema: "lllm-run", version, ...(version > 1 ? { demo } : {}), edits: [], inputs: readInputs(DEMOS[demo].controls, made) }),
  );
  root
    .querySelectorAll(".lllm-tt__controls input[type=text]")
    .forEach((box) => box.addEventListener("keydown", (e) => e.key === "Enter" && runButton.click()));
  exportButton.addEventListener("click", () => {
    if (!record) {
      error.textContent = "Run first: there is no run to export yet.";
      return;
    }
    const a = el("a", {
      href: URL.createObjectURL(new Blob([root.lllmExportText()], { type: "application/json" })),
      download: "lllm-run.json",
    });
    a.click();
    URL.revokeObjectURL(a.href);
  });
  importInput.addEventListener("change", async () => {
    const file = importInput.files[0];
    importInput.value = "";
    if (file && file.size > MAX_FILE_BYTES)
      error.textContent = `The file is ${file.size.toLocaleString("en")} bytes; a run file is at most ${MAX_FILE_BYTES.toLocaleString("en")}.`;
    else if (file) await root.lllmImport(await file.text());
  });
  root.lllmImport = async (text) => {
    let data;
    try {
      data = JSON.parse(text);
    } catch (e) {
      error.textContent = `The file is not valid JSON: ${e.message}.`;
      return false;
    }
    if (demo === "react" && isChatLog(data)) {
      // a run from elsewhere (chatimport.mjs)
      view.replaceChildren(chatPanel(data, { brains: BRAINS, run: async (params) => (await python(params)).text }));
      return true;
    }
    return start(data, { recorded: Array.isArray(data?.branches) && data.branches.length ? data.branches : null });
  };
  const fromLink = (event) => {
    // The link this page was opened with, kept before heading tracking could rewrite the address
    // (hooks/overrides/main.html); a link pasted into this very tab is a hashchange.
    const kept = window.lllmRunLink?.path === location.pathname ? window.lllmRunLink.hash : null;
    const hash = event ? location.hash : (kept ?? location.hash);
    if (!root.isConnected || !hash.startsWith("#run=")) return;
    window.lllmRunLink = null;
    root.scrollIntoView({ block: "start" });
    try {
      start(fromFragment(hash));
    } catch (e) {
      error.textContent = e.message;
      root.dataset.state = record ? "done" : "error";
    }
  };
  window.addEventListener("hashchange", fromLink);
  window.addEventListener("lllm:open-run", (e) => {
    // a run handed over by this page (demo-inside.mjs)
    if (!root.isConnected || e.detail?.demo !== undefined) return;
    root.scrollIntoView({ block: "start" });
    start(e.detail);
  });
  fromLink();
}

function setUpPage() {
  document.querySelectorAll(".lllm-timetravel").forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
