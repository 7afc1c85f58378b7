// "Your model" as a brain in the agent demos (demos.mjs, imported by brainlist.mjs only when a reader
// picks it): a model server on the learner's computer
// (Ollama, llama.cpp's llama-server, LM Studio, vLLM, `python -m lllm serve-model`). Read
// ../runtime/chat.mjs (the HTTP calls, streamed) and lllm/web/yourmodel.py (the predictor) first.
//
// This module draws the two fields the brain needs (the server's address and the model's name, kept
// in localStorage under STORAGE_KEY and checked when read, by chat.mjs: the native runtime's cells read
// the same settings; unreadable settings fall back to the defaults with a sentence saying so), checks the server before Python starts (so a server that is
// not running, refuses the page or lacks the model is one sentence within CHECK_MS, whatever
// Python's state), and shows each reply in the trace as it streams in (`liveTrace`). After a run it
// adds the prompt your model saw first, so the versus demo can set it beside TinyLLM's. A widget that
// always runs on your model is marked `lllm-demo--yours`: the build records no run for it
// (hooks/recorded.py matches class="lllm-demo" alone), as there is no server to record.
//
//   const get = yourModelFields(brainSelect, controls)   // -> () => ({endpoint}) when chosen
//   params = await prepare(params)                             // the model's name resolved, or ChatError
//   const end = liveTrace(output)                              // streams into output; end() stops

import { el, field, input } from "../runtime/dom.mjs";
import { ChatError, STORAGE_KEY, baseUrl, checkModel, loadSettings, saveSettings } from "../runtime/chat.mjs";
import { YOUR_MODEL, usesYourModel } from "./brainlist.mjs";

/** The address and model fields, shown while `brain` (a select, or null: always) is YOUR_MODEL. */
export function yourModelFields(brain, controls) {
  const saved = loadSettings();
  const url = input("your_model_url", saved.url, { type: "text", size: 24, spellcheck: false });
  const model = input("your_model_name", saved.model, { type: "text", size: 16, spellcheck: false, placeholder: "the server's first" });
  const check = el("button", { type: "button", class: "md-button lllm-demo__check" }, "Check server");
  const said = el("p", { class: "lllm-demo__note lllm-your-model__said", role: "status" }, saved.notice ?? "");
  const box = el(
    "fieldset",
    { class: "lllm-your-model" },
    el("legend", {}, "your model: an OpenAI-compatible server"),
    field("address", url, "lllm-demo__field"),
    field("model", model, "lllm-demo__field"),
    check,
    said,
  );
  const remember = () => {
    try {
      saveSettings({ url: baseUrl(url.value), model: model.value.trim() });
    } catch {
      /* said on Run */
    }
  };
  url.addEventListener("change", remember);
  model.addEventListener("change", remember);
  check.addEventListener("click", async () => {
    said.textContent = "Asking the server for its models…";
    try {
      const name = await checkModel({ url: url.value, model: model.value.trim() });
      said.textContent = `The server answered; the demos will use ${JSON.stringify(name)}.`;
      remember();
    } catch (e) {
      said.textContent = e.message;
    }
  });
  const sync = () => {
    box.hidden = brain !== null && brain.value !== YOUR_MODEL;
  };
  brain?.addEventListener("change", sync);
  sync();
  controls.append(box);
  return () => (box.hidden ? {} : { endpoint: { url: url.value.trim(), model: model.value.trim() } });
}

/** `params` with the endpoint checked against the server (model name resolved); throws ChatError. */
export async function prepare(params) {
  const endpoint = { url: baseUrl(params.endpoint?.url), model: params.endpoint?.model ?? "" };
  endpoint.model = await checkModel(endpoint);
  return { ...params, endpoint };
}

// ---- the reply as it arrives ------------------------------------------------------------------

/** Draw each call to your model in `output` while it streams; returns end(), which stops listening
 *  and hands back the first prompt your model saw (or null). */
export function liveTrace(output) {
  const list = el("ol", { class: "lllm-demo__steps lllm-your-model__live", "aria-label": "your model's replies as they arrive" });
  let current = null,
    firstPrompt = null;
  const listen = ({ detail }) => {
    if (detail.kind === "start") {
      firstPrompt ??= detail.prompt;
      current = el("pre", { class: "lllm-demo__raw lllm-your-model__stream", "aria-busy": "true" });
      list.append(
        el(
          "li",
          { class: "lllm-demo__step" },
          el("div", { class: "lllm-demo__step-title" }, `your model (${detail.model}) is writing…`),
          current,
        ),
      );
      if (!list.isConnected) output.append(list);
    } else if (detail.kind === "text" && current) {
      current.append(detail.text);
    } else if (current) {
      current.setAttribute("aria-busy", "false");
      if (detail.kind === "error") current.after(el("p", { class: "lllm-demo__error" }, detail.message));
    }
  };
  window.addEventListener("lllm:your-model", listen);
  return () => {
    window.removeEventListener("lllm:your-model", listen);
    return firstPrompt;
  };
}

/** After the run: the prompt your model saw first, below the trace (versus: both models saw it). */
export function promptBlock(prompt, both) {
  const box = el("details", { class: "lllm-demo__terminal lllm-your-model__prompt" });
  box.append(
    el(
      "summary",
      {},
      both ? "the prompt both models saw at their first step (your model reads all of it)" : "the prompt your model saw at its first step",
    ),
    el("pre", {}, prompt),
  );
  return box;
}

export { ChatError, STORAGE_KEY, YOUR_MODEL, loadSettings, saveSettings, usesYourModel };
