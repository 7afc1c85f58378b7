// Recorded demos: where the in-page runtime cannot start, an agent demo plays the run recorded in
// CPython when the site was built, labelled "recorded", after one sentence saying why.
// Read hooks/recorded.py (which writes the recordings and puts data-recording="<url>" on each
// .lllm-demo) and site/assets/agents/demos.mjs (which calls playRecorded when a run fails) first.
//
// "Cannot start" means: this browser has neither JSPI nor SharedArrayBuffer in a cross-origin
// isolated page (lllm.sync is null, lllm.mjs says so), or the runtime failed while loading (its
// status is "error" before Python was ready: a failed download, too little memory). A Python error
// inside a running demo is not that: the demo shows it as before.

import * as runtime from "./lllm.mjs"; // a namespace: a renamed export must not break the demos
import { el } from "./dom.mjs";

const firstSentence = (text) =>
  String(text || "an unknown error")
    .trim()
    .split(/(?<=[.!?])\s|\n/)[0]
    .replace(/[.!?]$/, "");

/** One sentence saying why the runtime cannot start in this browser, or null when it can. */
export function whyCannotStart() {
  const lllm = runtime.lllm;
  if (lllm.sync === null) {
    return (
      "This browser cannot run Python in a page (it has neither JavaScript Promise Integration nor " +
      "SharedArrayBuffer in a cross-origin-isolated page), so this is the run recorded when the site was built."
    );
  }
  const s = lllm.status;
  if (s.state === "error" && !s.pythonReady && !s.modelError) {
    // a model that fails to load is the demo's own message
    return `The in-page runtime could not start (${firstSentence(s.error)}), so this is the run recorded when the site was built.`;
  }
  return null;
}

function sameParams(a, b) {
  const canonical = (x) => JSON.stringify(x, Object.keys(x).sort());
  return canonical(a) === canonical(b);
}

/**
 * If the runtime cannot start and the demo has a recording, show it in `output` (render(result,
 * params) draws it as a live run would be drawn) and return true; otherwise return false.
 */
export async function playRecorded(root, params, error, output, render) {
  const why = whyCannotStart();
  if (!why || !root.dataset.recording) return false;
  let recording;
  try {
    const response = await fetch(new URL(root.dataset.recording, location.href));
    if (!response.ok) return false;
    recording = await response.json();
  } catch {
    return false;
  }
  const label = el("p", { class: "lllm-recorded" });
  label.append(el("strong", { class: "lllm-recorded__badge" }, "recorded"), " " + why);
  if (!sameParams(params, recording.params)) {
    label.append(" It uses the page's own settings, not the ones you chose.");
  }
  const note = el("p", { class: "lllm-recorded__note" }, `${recording.note} Python ${recording.python}.`);
  const body = recording.result.ok
    ? render(recording.result, recording.params)
    : [el("p", { class: "lllm-demo__error" }, recording.result.error)];
  const parts = [label, ...body, note];
  if (runtime.lllm.sync === null && runtime.NO_PYTHON_MESSAGE) {
    const browsers = el("details", { class: "lllm-recorded__browsers" });
    browsers.append(el("summary", {}, "Which browsers run it live"), el("p", {}, runtime.NO_PYTHON_MESSAGE));
    parts.push(browsers);
  }
  output.replaceChildren(...parts);
  root.lllmResult = recording.result;
  root.lllmRecording = recording;
  root.dataset.state = "recorded";
  return true;
}
