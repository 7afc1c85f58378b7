// A code cell's error as the learner reads it (cells.mjs calls showError from its Run handler).
// A Python error arrives from lllm.run() already turned round by lllm/web/tracebacks.py: its message
// is the error type and message, then the cell's own lines (innermost first); its `traceback` is the
// whole one, which goes a click away in a <details> under it. Other errors (the runtime could not
// start, Stop) are one line.

/** Append `error` to a cell's output element: the short form, then the full traceback folded. */
export function showError(output, error) {
  const python = error.name === "PythonError" || error.name === "Stopped";
  const line = document.createElement("span");
  line.className = "lllm-out--error";
  line.textContent = (python ? "" : "Error: ") + error.message;
  output.append(line);
  if (!error.traceback || error.traceback.trim() === error.message.trim()) return;
  const details = document.createElement("details");
  details.className = "lllm-out__traceback";
  const summary = document.createElement("summary");
  summary.textContent = "Full traceback";
  const text = document.createElement("span");
  text.textContent = error.traceback;
  details.append(summary, text);
  output.append(details);
}
