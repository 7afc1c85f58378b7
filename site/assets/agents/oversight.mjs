// The human-in-the-loop page's buttons (site/agents/human-in-loop.md). The page places one with
//
//   <div class="lllm-oversight" data-goal="What is 6 times 7?"></div>
//
// Start builds an OversightSession over the rule brain in the page's Python (lllm/web/oversight.py)
// and keeps it there; each button — approve, edit, inject, skip, quit, help — is one small
// window.lllm.run call on that session, which returns its state as JSON: the pending proposal
// (paused *before* the tool runs), the trajectory so far and the intervention log.
//
// For tests: `element.lllmResult` is the last JSON that came back and `element.dataset.state`
// is idle | running | waiting (a proposal needs a decision) | done | error.

import { lllm } from "../runtime/lllm.mjs";
import { el, field as labelled, input, select, table } from "../runtime/dom.mjs";

const field = (label, control) => labelled(label, control, "lllm-oversight__field");

const NAMESPACE = "lllm-oversight"; // the widget's own Python namespace: the session lives here
const ACTIONS = ["approve", "edit", "inject", "skip", "quit", "help"];

// Strings travel as JSON string literals, which are valid Python string literals too.
const py = (value) => JSON.stringify(String(value));

function startCode(goal, mode) {
  return [
    "import json",
    "from lllm.web import oversight as page_oversight",
    "try:",
    `    _oversight = page_oversight.start(${py(goal)}, mode=${py(mode)})`,
    "    print(page_oversight.state_json(_oversight))",
    "except ValueError as error:",
    "    _oversight = None",
    "    print(json.dumps({'ok': False, 'error': str(error)}))",
  ].join("\n");
}

function decideCode(action, text, reason) {
  return `print(page_oversight.decide_json(_oversight, ${py(action)}, ${py(text)}, ${py(reason)}))`;
}

// ---- drawing the session's state ---------------------------------------------------------------

function render(parts, out) {
  const { proposal, steps, log, summary, help } = parts;
  proposal.replaceChildren();
  if (out.pending) {
    const p = out.pending;
    proposal.append(
      el("strong", {}, `step ${p.step}: the model proposes `),
      el("code", { class: "lllm-oversight__proposal" }, p.describe),
      el("span", {}, ` (${p.kind}; thought: ${p.thought ?? "none"}; confidence ${p.confidence.toFixed(2)})`),
    );
  } else {
    proposal.append(el("strong", {}, "The run has ended."));
  }
  steps.replaceChildren(...out.steps.map((s) => el("pre", { class: "lllm-oversight__step" }, s)));
  const rows = out.interventions.map((i) =>
    el(
      "tr",
      {},
      [i.step, i.action, i.reason, i.before, i.after].map((c) => el("td", {}, String(c))),
    ),
  );
  log.tBodies[0].replaceChildren(...rows);
  summary.textContent = out.summary;
  help.hidden = !out.help;
  help.textContent = out.help ?? "";
}

async function send(root, parts, code) {
  const { buttons, status } = parts;
  root.dataset.state = "running";
  buttons.forEach((b) => {
    b.disabled = true;
  });
  status.textContent = "running…";
  try {
    const result = await lllm.run(code, { namespace: NAMESPACE });
    const out = JSON.parse(result.stdout.trim().split("\n").pop());
    root.lllmResult = out;
    status.textContent = out.ok ? "" : out.error;
    if (out.goal !== undefined) render(parts, out);
    parts.panel.hidden = out.goal === undefined;
    root.dataset.state = !out.ok && out.goal === undefined ? "error" : out.pending ? "waiting" : "done";
  } catch (error) {
    status.textContent = `The session could not run: ${error.message}`;
    root.dataset.state = "error";
  } finally {
    parts.start.disabled = false;
    const waiting = root.dataset.state === "waiting";
    buttons.forEach((b) => {
      if (b !== parts.start) b.disabled = !waiting;
    });
  }
}

function setUp(root) {
  if (root.dataset.lllmOversight) return; // document$ fires again on instant navigation: stay idempotent
  root.dataset.lllmOversight = "1";
  root.dataset.state = "idle";
  const goal = input("goal", root.dataset.goal ?? "What is 6 times 7?");
  const mode = select("mode", ["approve", "low-confidence"]);
  const start = el("button", { class: "md-button md-button--primary" }, "Start");
  const controls = el("div", { class: "lllm-oversight__controls" });
  controls.append(field("goal", goal), field("mode", mode), start);

  const text = input("text", "", { placeholder: "calc[6 * 8] for edit, 99 for inject" });
  const reason = input("reason", "", { placeholder: "why (kept in the log)" });
  const actionButtons = ACTIONS.map((a) => el("button", { class: "md-button lllm-oversight__action" }, a));
  const decisions = el("div", { class: "lllm-oversight__decisions" });
  decisions.append(field("text", text), field("reason", reason), ...actionButtons);

  const proposal = el("p", { class: "lllm-oversight__pending" });
  const help = el("pre", { class: "lllm-oversight__help" });
  const steps = el("div", { class: "lllm-oversight__steps" });
  const log = table(["step", "action", "reason", "before", "after"], [], "lllm-oversight__log"); // rows: render()
  const summary = el("pre", { class: "lllm-oversight__summary" });
  const panel = el("div", { class: "lllm-oversight__panel" });
  panel.hidden = true;
  panel.append(proposal, decisions, help, el("h4", {}, "Trajectory"), steps, el("h4", {}, "Interventions"), log, summary);
  const status = el("p", { class: "lllm-oversight__status" });
  root.replaceChildren(controls, status, panel);

  [start, ...actionButtons].forEach((b) => {
    b.type = "button";
  });
  actionButtons.forEach((b) => {
    b.disabled = true;
  });
  const parts = { start, buttons: [start, ...actionButtons], status, panel, proposal, steps, log, summary, help };
  start.addEventListener("click", () => send(root, parts, startCode(goal.value, mode.value)));
  actionButtons.forEach((b, i) =>
    b.addEventListener("click", () => {
      send(root, parts, decideCode(ACTIONS[i], text.value, reason.value));
    }),
  );
}

function setUpPage() {
  const widgets = document.querySelectorAll(".lllm-oversight");
  widgets.forEach(setUp);
}

if (window.document$) window.document$.subscribe(setUpPage);
else setUpPage();
