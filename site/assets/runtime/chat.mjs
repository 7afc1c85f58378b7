// "Your model": the page's calls to an OpenAI-compatible server on the learner's own computer
// (Ollama, llama.cpp's llama-server, LM Studio, vLLM, `python -m lllm serve-model`). Read
// lllm/web/yourmodel.py first: its predictor asks here, through worker.mjs, once per step.
//
// Why the page makes the call, not Python: Python is blocked while it waits for a reply (Atomics.wait
// in worker.mjs, or JSPI's run_sync), so it cannot show text as it arrives. The page fetches with
// `stream: true`, reads the server-sent events as they come, tells the widgets every piece (a
// "lllm:your-model" event on window: {call, kind: "start" | "text" | "end" | "error", ...}) and
// answers Python once the reply is complete, exactly as model.mjs answers for TinyLLM.
//
// What the browser lets a page see: it may reach only http://127.0.0.1:* and http://localhost:*
// beyond its own origin (connect-src in site/_headers), and only a server that allows the page's
// origin (CORS: the page is cross-origin isolated, so nothing else can be read). A server that is not
// running and one that refuses the origin fail the same way, on purpose (a page must not learn which
// ports of your computer are open), so the sentence names both fixes until the server has answered
// this page once; after that, a failure means it stopped. Every failure is one sentence with its fix.
//
//   await listModels("http://127.0.0.1:11434")     // -> ["qwen2.5:0.5b", ...] or throws ChatError
//   await checkModel({url, model})                 // -> the model's name (the server's first if "")
//   loadSettings() / saveSettings({url, model})    // remembered in localStorage (yourmodel.mjs's fields)
//   answerChat(port, message)                      // worker.mjs's question: {id, args: [json], reply};
//                                                  // {"saved": true} asks for the remembered endpoint
//   stopChats()                                    // Stop: every call in flight ends now

import { writeAnswer } from "./answer.mjs";

export const DEFAULT_URL = "http://127.0.0.1:11434";
export const CHECK_MS = 5000; // listing models: a loopback server answers in milliseconds
export const FIRST_TEXT_MS = 120_000; // a server may load the model from disk before its first word
export const QUIET_MS = 60_000; // then a pause this long means it is stuck
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?(\/[^\s]*)?$/;
const answered = new Set(); // origins that have answered this page (CORS allowed it)
const inFlight = new Set(); // AbortControllers of the calls running now

export class ChatError extends Error {
  constructor(message) {
    super(message);
    this.name = "ChatError";
  }
}

/** The base URL ("http://127.0.0.1:11434", no /v1): what the learner typed, checked. */
export function baseUrl(url) {
  const text = String(url ?? "")
    .trim()
    .replace(/\/+$/, "")
    .replace(/\/v1(\/chat\/completions|\/models)?$/, "");
  if (!LOOPBACK.test(text))
    throw new ChatError(
      `The address ${JSON.stringify(String(url ?? ""))} is not a server on this computer: write http://127.0.0.1:PORT or http://localhost:PORT (this page may reach nothing else).`,
    );
  return text;
}

function unreachable(base) {
  const origin = new URL(base).origin,
    page = location.origin;
  if (answered.has(origin)) return `Nothing answers at ${origin} any more: your model's server stopped, start it again (and press Run).`;
  return (
    `Nothing at ${origin} answered this page: start your model's server there (Ollama: \`OLLAMA_ORIGINS=${page} ollama serve\`; ` +
    `llama.cpp: \`llama-server -m MODEL.gguf --host 127.0.0.1 --port PORT\`), or, if it is running, let it accept the origin ${page} ` +
    `(for Ollama that is OLLAMA_ORIGINS; a browser cannot tell a stopped server from a refusing one).`
  );
}

/** fetch with a time limit; a network failure becomes the sentence above. */
async function request(base, path, init, ms, controller = new AbortController()) {
  const timer = setTimeout(
    () =>
      controller.abort(
        new ChatError(`${base}${path} did not answer within ${ms / 1000} s: check the server's own log, then press Run again.`),
      ),
    ms,
  );
  try {
    const response = await fetch(base + path, { ...init, mode: "cors", credentials: "omit", signal: controller.signal });
    answered.add(new URL(base).origin);
    return response;
  } catch {
    if (controller.signal.aborted)
      throw controller.signal.reason instanceof ChatError ? controller.signal.reason : new ChatError("Stopped.");
    throw new ChatError(unreachable(base));
  } finally {
    clearTimeout(timer);
  }
}

/** What a failed answer says: OpenAI's error.message, or the start of its text. */
async function detail(response) {
  const text = (await response.text().catch(() => "")).replace(/\s+/g, " ").trim();
  let error;
  try {
    error = JSON.parse(text)?.error;
  } catch {
    /* not JSON: its text */
  }
  return String(error?.message ?? error ?? text).slice(0, 200);
}

/** The names of the models the server offers (GET /v1/models). */
export async function listModels(url) {
  const base = baseUrl(url);
  const response = await request(base, "/v1/models", {}, CHECK_MS);
  if (!response.ok)
    throw new ChatError(
      `${base}/v1/models answered HTTP ${response.status} (${await detail(response)}): is this an OpenAI-compatible server? Ollama, llama-server, LM Studio and vLLM all are.`,
    );
  const body = await response.json().catch(() => null);
  const ids = Array.isArray(body?.data) ? body.data.map((m) => m?.id).filter((id) => typeof id === "string") : null;
  if (!ids)
    throw new ChatError(
      `${base}/v1/models did not answer with an OpenAI model list ({"data": [{"id": ...}]}): is this an OpenAI-compatible server?`,
    );
  return ids;
}

/** The model to use: `model` if the server has it, its first model if `model` is empty; else a ChatError listing them. */
export async function checkModel({ url, model }) {
  const ids = await listModels(url);
  if (!ids.length)
    throw new ChatError(
      `Your server at ${baseUrl(url)} has no model yet: add one (Ollama: \`ollama pull qwen2.5:0.5b\`; llama-server: start it with -m MODEL.gguf).`,
    );
  if (!model) return ids[0];
  if (!ids.includes(model))
    throw new ChatError(
      `Your server has no model named ${JSON.stringify(model)}: it has ${ids.map((id) => JSON.stringify(id)).join(", ")}; write one of those as the model.`,
    );
  return model;
}

// ---- the remembered settings (one for every page: the demos' fields write them, cells read them) --

export const STORAGE_KEY = "lllm.yourmodel.v1";
const DEFAULTS = { url: DEFAULT_URL, model: "" };

/** The saved {url, model}, checked; `notice` says why the defaults are used when the saved text is unreadable. */
export function loadSettings() {
  let text = null;
  try {
    text = localStorage.getItem(STORAGE_KEY);
  } catch {
    return { ...DEFAULTS, notice: "This browser blocks storage here, so your model's address is not remembered." };
  }
  if (text === null) return { ...DEFAULTS, notice: null };
  try {
    const saved = JSON.parse(text);
    if (typeof saved?.url !== "string" || typeof saved?.model !== "string" || saved.model.length > 200) throw new Error("not {url, model}");
    return { url: baseUrl(saved.url), model: saved.model.trim(), notice: null };
  } catch {
    return {
      ...DEFAULTS,
      notice: `The saved address of your model could not be read, so the defaults are back (${DEFAULT_URL}, the server's first model).`,
    };
  }
}

export function saveSettings({ url, model }) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ url, model }));
  } catch {
    /* blocked or full: loadSettings says so */
  }
}

/** A cell's your_model() (lllm/web/yourmodel.py): the remembered endpoint, its model's name resolved by the server. */
async function savedEndpoint() {
  const { url, model } = loadSettings();
  return { url, model: await checkModel({ url, model }) };
}

// ---- one chat completion, streamed ------------------------------------------------------------

function tell(detail) {
  window.dispatchEvent(new CustomEvent("lllm:your-model", { detail }));
}

/** Every `data:` payload of a server-sent event stream, as it arrives. */
async function* events(body, controller, quietMs) {
  const reader = body.getReader(),
    decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const timer = setTimeout(
      () =>
        controller.abort(
          new ChatError(`Your model stopped sending text for ${quietMs / 1000} s: press Stop, check the server's log, then Run again.`),
        ),
      quietMs,
    );
    let chunk;
    try {
      chunk = await reader.read();
    } catch {
      throw controller.signal.reason instanceof ChatError
        ? controller.signal.reason
        : new ChatError("The server closed the connection mid-reply: is it still running?");
    } finally {
      clearTimeout(timer);
    }
    if (chunk.done) return;
    buffer += decoder.decode(chunk.value, { stream: true });
    const lines = buffer.split(/\r?\n/);
    buffer = lines.pop();
    for (const line of lines) if (line.startsWith("data:")) yield line.slice(5).trim();
  }
}

function contentOf(json, base) {
  if (json?.error) throw new ChatError(`${base} reported an error: ${json.error.message ?? JSON.stringify(json.error)}.`);
  const choice = json?.choices?.[0];
  return choice?.delta?.content ?? choice?.message?.content ?? choice?.text ?? "";
}

/** {url, model, prompt, stop, max_tokens, temperature, call} -> the reply's text, streamed to the widgets. */
export async function chat(question, { quietMs = QUIET_MS, firstMs = FIRST_TEXT_MS } = {}) {
  const base = baseUrl(question.url);
  const body = {
    model: question.model,
    messages: [{ role: "user", content: question.prompt }],
    stream: true,
    temperature: question.temperature ?? 0,
    stop: question.stop ?? [],
    max_tokens: question.max_tokens ?? 256,
  };
  const controller = new AbortController();
  inFlight.add(controller);
  tell({ call: question.call, kind: "start", prompt: question.prompt, model: question.model });
  let reply = "";
  try {
    const response = await request(
      base,
      "/v1/chat/completions",
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
      firstMs,
      controller,
    );
    if (response.status === 404 && question.model) await checkModel(question); // names the models it has
    if (!response.ok) throw new ChatError(`${base}/v1/chat/completions answered HTTP ${response.status}: ${await detail(response)}.`);
    if (!(response.headers.get("Content-Type") ?? "").includes("text/event-stream")) {
      reply = contentOf(await response.json().catch(() => null), base); // a server that does not stream
      tell({ call: question.call, kind: "text", text: reply });
    } else {
      for await (const data of events(response.body, controller, quietMs)) {
        if (data === "[DONE]") break;
        let json;
        try {
          json = JSON.parse(data);
        } catch {
          throw new ChatError(`${base} sent an event that is not JSON: ${data.slice(0, 80)}`);
        }
        const text = contentOf(json, base);
        if (text) {
          reply += text;
          tell({ call: question.call, kind: "text", text });
        }
      }
    }
    tell({ call: question.call, kind: "end", reply });
    return reply;
  } catch (e) {
    const error = e instanceof ChatError ? e : new ChatError(`Your model's reply could not be read: ${e.message ?? e}`);
    tell({ call: question.call, kind: "error", message: error.message });
    throw error;
  } finally {
    inFlight.delete(controller);
  }
}

/** worker.mjs's question (Python blocked on it): answer {value: reply} or {error: sentence}. */
export async function answerChat(port, { id, args: [text], reply }) {
  const answer = (a) => (reply ? writeAnswer(reply, a) : port.postMessage({ id, ...a }));
  try {
    const question = JSON.parse(text);
    answer({ value: question.saved ? JSON.stringify(await savedEndpoint()) : await chat(question) });
  } catch (e) {
    answer({ error: e.message });
  }
}

/** Stop: every call in flight ends (Python's worker is restarted by lllm.stop itself). */
export function stopChats() {
  for (const controller of inFlight) controller.abort(new ChatError("Stopped."));
  inFlight.clear();
}
