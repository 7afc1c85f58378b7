// Time travel for the native runtime: how the time-travel widget (../agents/timetravel.mjs) shows and edits
// the steps of a native Agent run (data-demo="native-agent", site/native/agent.md) and of a native Tactic
// run (data-demo="native-tactic", site/native/tactic.md). The widget keeps everything else — the run, the
// timeline, the branch tree, the comparison, export, import and the #run= link; each description here says:
//
//   controls     the run's inputs: the goal's name and label, a system prompt or not, the most tool
//                rounds (none without a label), the scripted replies (the widget's DEMOS row draws them)
//   stepLabel    a step's name on the timeline;  stepText  a step as text (the comparison's cells)
//   stepView     one step: its read-only context (the prompt the model saw, the raw text, what was
//                parsed, tool calls and results, repairs) and its editable fields (DOM nodes)
//   edit         the edit those fields make (null when nothing changed)
//   branchText   a branch's line in the tree;  firstDifference  the same rule as the Python's
//
// The Python is lllm/timetravel/native_agent.py (an Agent: steps are the dialog's messages, a branch is a
// Dialog.fork at the edited message) and tactic_timetravel.py (a Tactic: steps are its agents' model calls).

import { el, field } from "../runtime/dom.mjs";

const show = (value) => JSON.stringify(value);
// json.dumps's spacing ({"input": "17 * 23"}), so a reply reads here as in the trace and the prompt
const pyJson = (v) =>
  v && typeof v === "object" && !Array.isArray(v)
    ? `{${Object.entries(v)
        .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
        .join(", ")}}`
    : Array.isArray(v)
      ? `[${v.map(pyJson).join(", ")}]`
      : JSON.stringify(v);
const replyText = (content, calls) =>
  [content, ...calls.map((c) => `Action: ${c.name}[${pyJson(c.arguments)}]`)].filter(Boolean).join("\n");
const row = (label, node) => el("div", { class: "lllm-tt__row" }, el("span", { class: "lllm-tt__label" }, label), node);
const pre = (text, attrs = {}) => el("pre", attrs, text || "(empty)");
const area = (name, value) =>
  Object.assign(el("textarea", { rows: Math.min(6, value.split("\n").length + 1) }), { name, value, className: "lllm-tt__edit" });

function differs(keys) {
  return (a, b) => {
    for (let i = 0; i < Math.max(a.steps.length, b.steps.length); i++) {
      const x = a.steps[i],
        y = b.steps[i];
      if (!x || !y || keys.some((k) => show(x[k]) !== show(y[k]))) return i + 1;
    }
    return null;
  };
}

const shared = (demo, script, goal) => ({ demo, script, goal });

// ---- an Agent: the dialog's messages -------------------------------------------------------------

const agentText = (s) => (s.role === "assistant" ? replyText(s.content, s.calls) : s.content);

export const nativeAgent = {
  ...shared("native-agent", "Action: calc[17 * 23]\n---\nIt is 391.", "goal"),
  goalLabel: "the user's message",
  maxStepsLabel: "max tool rounds",
  maxSteps: 3,
  hasSystem: true,
  stepLabel: (s, n) => `message ${n}: ${s.role}${s.name && s.name !== s.role ? ` ${s.name}` : ""} (${s.source})`,
  stepText: (s) => `${s.role}: ${agentText(s) || "(empty)"}`,
  firstDifference: differs(["role", "name", "content", "calls"]),
  branchText(b, record) {
    const node = record.tree.find((n) => n.branch === b.id);
    const split = node ? node.label.split(" | ")[1] : "";
    const end = b.answer !== null ? `answer ${b.answer.split("\n")[0]}` : `no answer (${b.stop_reason})`;
    return `branch ${b.id} (${b.dialog}): ${b.edit ? `message ${b.edit.step} edited, ` : ""}${split} → ${end}`;
  },
  stepView(s, n, branch) {
    const fields = { content: area("edit-content", agentText(s)) };
    const what =
      s.role === "assistant"
        ? "the reply, as the model writes it (Action: tool[input] lines call tools)"
        : s.role === "tool"
          ? "the tool's result"
          : s.role === "system"
            ? "the system prompt"
            : "the message";
    return {
      fields,
      nodes: [
        el(
          "h4",
          {},
          `Branch ${branch.id}, message ${n} of ${branch.steps.length}: ${s.role} (${s.source}${s.call ? `, model call ${s.call}` : ""})`,
        ),
        s.prompt
          ? el(
              "details",
              {},
              el("summary", {}, "the prompt this call saw (the messages so far, flat)"),
              el("pre", { tabindex: "0" }, s.prompt),
            )
          : "",
        s.raw !== null ? row("raw output", pre(s.raw)) : "",
        row("message", pre(agentText(s), { class: "lllm-tt__parsed" })),
        s.parsed ? row("parsed", pre(JSON.stringify(s.parsed))) : "",
        ...s.repairs.map((r) => row(`repair (call ${r.call})`, pre(`${r.raw}\n→ ${r.error}`))),
        el(
          "fieldset",
          { class: "lllm-tt__edits" },
          el("legend", {}, "Edit this message, then run from here (the dialog forks before it)"),
          field(what, fields.content, "lllm-tt__wide"),
        ),
      ],
    };
  },
  edit(branch, n, s, fields) {
    return fields.content.value === agentText(s) ? null : { parent: branch.id, step: n, content: fields.content.value };
  },
};

// ---- a Tactic: its agents' model calls ---------------------------------------------------------

const callText = (s) =>
  [
    `${s.agent}: ${replyText(s.content, s.calls) || "(empty)"}`,
    ...(s.error ? [`not valid: ${s.error}`] : []),
    ...s.calls.map((c) => `tool ${c.name} → ${c.result}`),
  ].join("\n");

export const nativeTactic = {
  ...shared("native-tactic", "Action: calc[17 * 23]\n---\nIt is 391.\n---\n17 groups of 23 make 391.", "task"),
  goalLabel: "task: the question for solve_and_explain",
  maxStepsLabel: null,
  hasSystem: false,
  stepLabel: (s, n) => `call ${n}: ${s.agent} (${s.source})`,
  stepText: callText,
  firstDifference: differs(["agent", "raw", "content", "calls", "error"]),
  branchText(b) {
    const what = !b.edit ? "the run" : b.edit.task !== undefined ? "the task edited" : `call ${b.edit.step} edited`;
    const end = b.answer ? `answer ${b.answer.answer.split("\n")[0]}` : `no result (${b.stop_reason})`;
    return `branch ${b.id}: ${what} → ${end}`;
  },
  stepView(s, n, branch) {
    const fields = {
      reply: area("edit-reply", s.raw),
      task: Object.assign(el("input", { type: "text" }), { name: "edit-task", value: branch.task, className: "lllm-tt__edit" }),
    };
    return {
      fields,
      nodes: [
        el("h4", {}, `Branch ${branch.id}, call ${n} of ${branch.steps.length}: agent ${s.agent} (${s.source})`),
        el(
          "details",
          {},
          el("summary", {}, "the prompt this call saw (the agent's messages so far, flat)"),
          el("pre", { tabindex: "0" }, s.prompt),
        ),
        row("raw output", pre(s.raw)),
        row("parsed", pre(callText(s), { class: "lllm-tt__parsed" })),
        el(
          "fieldset",
          { class: "lllm-tt__edits" },
          el("legend", {}, "Edit this call's reply (or the task), then run the rest of the tactic from here"),
          field("the reply, as the model writes it", fields.reply, "lllm-tt__wide"),
          field("task (a whole new run)", fields.task, "lllm-tt__wide"),
        ),
      ],
    };
  },
  edit(branch, n, s, fields) {
    if (fields.task.value !== branch.task) return { parent: branch.id, step: 1, task: fields.task.value };
    return fields.reply.value === s.raw ? null : { parent: branch.id, step: n, reply: fields.reply.value };
  },
};

export const NATIVE_DEMOS = { "native-agent": nativeAgent, "native-tactic": nativeTactic };
