// A run from elsewhere in the ReAct page's time-travel widget: an OpenAI-style chat log (a JSON list of
// messages with `tool_calls` and `tool` results, as the `openai` client and most agent frameworks keep a
// run), imported by file or pasted, replayed through this page's ReAct loop at the Predictor seam
// (lllm/timetravel/chatlog.py: `chat_report`), and re-run from any model call with a brain from here.
// The text is exactly what `python -m lllm replay chat.json [--from K --brain B]` prints. timetravel.mjs
// calls `chatPanel` when an imported file or a pasted text is a chat log (`isChatLog`); `run(params)`
// computes in the page's Python. For tests: the panel's `lllmChatText` and data-state idle | running | done | error.

import { el, field, input, select } from "../runtime/dom.mjs";

/** As lllm/timetravel/chatlog.py's is_chat_log: a list of messages, or {"messages": [...]} that is no run file. */
export const isChatLog = (data) =>
  Array.isArray(data) || (data !== null && typeof data === "object" && Array.isArray(data.messages) && !("schema" in data));

/** The panel: the log's replay, then "from model call K, brain B, Re-run"; `run(params) -> text` may throw a sentence. */
export function chatPanel(data, { brains, run }) {
  const text = el("pre", { class: "lllm-tt__chat-text", tabindex: "0" });
  const error = el("p", { class: "lllm-tt__error", role: "alert" });
  const from = input("chat-from", 1, { type: "number", min: 1, max: 20, step: 1 });
  const brain = select("chat-brain", brains, "tinyllm-agent");
  const rerun = el("button", { type: "button", class: "md-button md-button--primary lllm-tt__chat-rerun" }, "Re-run from that call");
  const panel = el(
    "section",
    { class: "lllm-tt__chat", "aria-label": "a chat log from elsewhere", "data-state": "idle" },
    el("h4", {}, "A chat log from elsewhere, replayed here"),
    el(
      "p",
      {},
      "Each assistant message is a model call written as ReAct text, each tool call an Action; tools that exist here run again, the others answer from the log.",
    ),
    text,
    el(
      "fieldset",
      { class: "lllm-tt__edits" },
      el("legend", {}, "Re-run it from a model call with a brain from here (every call before it kept)"),
      field("from model call", from),
      field("brain", brain),
      rerun,
    ),
    error,
  );
  const show = async (params) => {
    panel.dataset.state = "running";
    rerun.disabled = true;
    error.textContent = "";
    try {
      panel.lllmChatText = text.textContent = await run({ chat: data, ...params });
      panel.dataset.state = "done";
    } catch (e) {
      error.textContent = e.message;
      panel.dataset.state = "error";
    } finally {
      rerun.disabled = false;
    }
  };
  rerun.addEventListener("click", () => show({ from: Number(from.value), brain: brain.value }));
  show({});
  return panel;
}
