// The model worker: onnxruntime-web sessions on TinyLLM and the token loop, in a module Web Worker
// of their own. Read lllm.mjs (the page side) first, then worker.mjs (Python), which asks this
// worker for every predictor call.
//
// Why a worker of its own: Python blocks while the model writes its reply. With JSPI it blocks on
// a Promise and its own event loop could run the model; without JSPI (Safari, every iOS browser)
// it blocks on Atomics.wait, its event loop stops, and the model must run somewhere else. One
// model worker serves both paths, so the predictor's contract is the same in every browser.
//
// At start it loads onnxruntime-web and compiles its wasm (in parallel with Pyodide in the other
// worker), but no model: each model, named as in runtime.json (hooks/runtime.py: the story model
// "tinyllm", the agent-tuned "tinyllm-agent", the transformer "tinygpt"), loads the first time
// something asks for it, so a page downloads only the model its first answer uses. "tinyllm-yours"
// is the reader's own, trained on /tinyllm/train/ and kept in this browser's Cache Storage
// (../train/yours.mjs).
//
// From the page:          {id, type: "generate" | "window" | "load", params, stream}
//                         {type: "port", port}  a MessagePort to the (new) Python worker
// To the page:            {type: "progress", part: "model", stage, loaded, total} | {type: "model-ready"}
//                         {type: "model-error", error} | {id, type: "step", char, top}
//                         {id, type: "result", value} | {id, type: "error", error}
// From Python (the port): {id, type: "card" | "generate" | "forward", args, reply}
//                         reply is a SharedArrayBuffer to write the answer into (answer.mjs), or
//                         absent: then the answer goes back as a message {id, value | error}.

import { Mulberry32, checkSampling, sample, topPredictions } from "./sampler.mjs";
import { countingFetch, fetchBytes, loadManifest } from "./fetching.mjs";
import { writeAnswer } from "./answer.mjs";
import { mark, timeline } from "./timeline.mjs";
import { gptForward, isGpt } from "./gpt.mjs";

mark("model: worker running");

const HERE = new URL("./", import.meta.url);
const EMPTY_PROMPT = "\n"; // as lllm/model/generate.py: the model needs at least one character

let manifest = null;
const models = new Map(); // model name -> Promise of {name, card, session}, created on first use
let ort = null;
let ortLoaded = null; // Promise: onnxruntime-web is imported once, by the first model that needs it

const fetchCounted = countingFetch((loaded, stage) =>
  postMessage({ type: "progress", part: "model", stage, loaded, total: manifest?.bytes.model ?? 0 }),
);

// ---- the models: onnxruntime-web, one thread, plain wasm -----------------------------------------

async function loadOrt() {
  const ortBase = new URL(manifest.ort, HERE);
  globalThis.fetch = fetchCounted; // ORT fetches its wasm with fetch(): count those bytes too
  // ORT imports its wasm's JavaScript half only when the first session is made: import it now
  const glue = import(new URL("ort-wasm-simd-threaded.mjs", ortBase).href);
  glue.catch(() => {}); // ORT imports it again and reports a failure
  ort = await import(new URL("ort.wasm.min.mjs", ortBase).href);
  ort.env.wasm.numThreads = 1; // ORT's own threads would need a wasm build we do not ship
  ort.env.wasm.proxy = false; // we are already off the main thread
  ort.env.wasm.wasmPaths = ortBase.href;
  ort.env.logLevel = "error";
  // onnxruntime-web fetches and compiles its wasm when the first session is made. A session on an
  // empty graph makes it do that now (and then fails, as it should): the engine is ready before a
  // model is named, and the model's own session opens in ~0.2 s.
  await ort.InferenceSession.create(new Uint8Array(0), { executionProviders: ["wasm"] }).catch(() => {});
  mark("model: onnxruntime ready");
}

/** The model called `name` (loaded once, on first use): {name, card, session}. */
function model(name = manifest.story) {
  if (name === YOURS) return yours();
  if (!models.has(name)) models.set(name, loadModel(name));
  return models.get(name);
}

/** The reader's own model (../train/yours.mjs, imported only when asked for), reopened whenever a
 *  new one has been stored. */
const YOURS = "tinyllm-yours";
let yoursOpen = null; // {sha, promise}
async function yours() {
  const { readYours } = await import("../train/yours.mjs");
  const stored = await readYours();
  if (!stored) throw new Error("No model has been trained in this browser yet: train one on the page Train it yourself");
  if (yoursOpen?.sha !== stored.card.onnx_sha256) {
    const opened = (ortLoaded ??= loadOrt()).then(() => openSession(YOURS, stored.bytes, stored.card, "Your trained model"));
    yoursOpen = { sha: stored.card.onnx_sha256, promise: opened };
  }
  return yoursOpen.promise;
}

async function loadModel(name) {
  const entry = manifest.models[name];
  if (!entry)
    throw new Error(`There is no model called ${JSON.stringify(name)} here; the models are: ${Object.keys(manifest.models).join(", ")}`);
  if (entry.missing) throw new Error(entry.missing.replace(/^./, (c) => c.toUpperCase()));
  await (ortLoaded ??= loadOrt());
  const modelUrl = new URL(entry.model, HERE).href;
  const cardUrl = new URL(entry.card, HERE).href;
  const [bytes, cardBytes] = await Promise.all([
    fetchBytes(fetchCounted, modelUrl, `the ${name} model`),
    fetchBytes(fetchCounted, cardUrl, `the ${name} model card`),
  ]);
  let card;
  try {
    card = JSON.parse(new TextDecoder().decode(cardBytes));
  } catch (e) {
    throw new Error(`The model card ${cardUrl} is not valid JSON: ${e.message}`);
  }
  if (!Array.isArray(card.vocab) || !card.config) throw new Error(`The model card ${cardUrl} has no vocab or config`);
  if (card.onnx_sha256 && globalThis.crypto?.subtle) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    if (hex !== card.onnx_sha256)
      throw new Error(
        `The model file ${modelUrl} does not match its card (sha256 differs): the download is damaged or stale; rebuild with \`${entry.build}\` and reload`,
      );
  }
  return openSession(name, bytes, card, `The model file ${modelUrl}`);
}

async function openSession(name, bytes, card, what) {
  try {
    const session = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
    return { name, card, session };
  } catch (e) {
    throw new Error(`${what} could not be opened by onnxruntime-web: ${String(e.message ?? e).split("\n")[0]}`);
  }
}

/** One forward pass of model m: ids (new characters), state (h, c) -> logits after the last id, new state. */
async function forward(m, ids, h, c) {
  const { layers, hidden } = m.card.config;
  const state = (v) => (v ? Float32Array.from(v) : new Float32Array(layers * hidden));
  const feeds = {
    input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
    h0: new ort.Tensor("float32", state(h), [layers, 1, hidden]),
    c0: new ort.Tensor("float32", state(c), [layers, 1, hidden]),
  };
  const out = await m.session.run(feeds);
  const V = m.card.vocab.length;
  const logits = out.logits.data.subarray((ids.length - 1) * V, ids.length * V);
  return { logits, h: out.hn.data, c: out.cn.data };
}

/** Read `ids` after `state` (null: nothing yet), whichever the model: TinyLLM carries (h, c), TinyGPT
 *  its key/value cache (gpt.mjs). -> {logits after the last id, state}. */
async function advance(m, ids, state) {
  if (isGpt(m.card)) return gptForward(ort, m, ids, state);
  const { logits, h, c } = await forward(m, ids, state?.h, state?.c);
  return { logits, state: { h, c } };
}

// ---- the token loop (mirrors lllm/model/generate.py, mode "carry") --------------------------------------

/** encode_lossy: the ids of known characters, and the distinct unknown ones (first appearance order). */
function encodeLossy(card, text) {
  const index = new Map(card.vocab.map((ch, i) => [ch, i]));
  const ids = [],
    dropped = [];
  for (const ch of text) {
    // for...of walks code points, as Python iterates a str
    if (index.has(ch)) ids.push(index.get(ch));
    else if (!dropped.includes(ch)) dropped.push(ch);
  }
  if (ids.length === 0) ids.push(...Array.from(EMPTY_PROMPT, (ch) => index.get(ch)));
  return { ids, dropped };
}

/**
 * Continue `ids` by up to maxNewTokens characters. rngState is Mulberry32's 32-bit state (so a
 * Python predictor can carry one stream across calls); onStep(char, top) is called per character.
 */
async function generateIds(m, { ids, maxNewTokens, temperature, topK, topP, rngState, stop = [], onStep = null, showTop = 0 }) {
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 0)
    throw new RangeError(`max-new-tokens must be an integer >= 0, got ${maxNewTokens}`);
  checkSampling(temperature, topK, topP);
  const rng = new Mulberry32(0);
  rng.state = rngState >>> 0;
  const t0 = performance.now();
  const vocab = m.card.vocab;
  let { logits, state } = await advance(m, ids, null); // the whole prompt, once
  let text = "",
    stoppedBy = null;
  for (let n = 0; n < maxNewTokens; n++) {
    const top = showTop ? topPredictions(logits, showTop).map(([i, p]) => [vocab[i], p]) : null;
    const next = sample(logits, { temperature, topK, topP, rng });
    text += vocab[next];
    if (onStep) onStep(vocab[next], top);
    stoppedBy = stop.find((s) => s && text.endsWith(s)) ?? null;
    if (stoppedBy) {
      text = text.slice(0, text.length - stoppedBy.length);
      break;
    }
    if (n + 1 < maxNewTokens) ({ logits, state } = await advance(m, [next], state)); // carry the state
  }
  return { completion: text, stoppedBy, rngState: rng.state, ms: performance.now() - t0 };
}

/** The window-re-run loop (mode "window"), for the benchmark's comparison only. */
async function generateWindow(m, { ids, maxNewTokens, window = 64 }) {
  const t0 = performance.now();
  ids = ids.slice();
  let { logits } = await advance(m, ids.slice(-window), null);
  let text = "";
  for (let n = 0; n < maxNewTokens; n++) {
    const next = sample(logits, { temperature: 0 });
    text += m.card.vocab[next];
    ids.push(next);
    if (n + 1 < maxNewTokens) ({ logits } = await advance(m, ids.slice(-window), null));
  }
  return { completion: text, ms: performance.now() - t0 };
}

// ---- what Python asks for (lllm/web/browser.py through worker.mjs) ----------------------------------

const forPython = {
  card: (name) => model(name).then((m) => JSON.stringify(m.card)),
  generate: (name, ids, maxNewTokens, temperature, topK, topP, rngState, stop) =>
    model(name).then((m) => generateIds(m, { ids, maxNewTokens, temperature, topK, topP, rngState, stop })),
  forward: (name, ids, h, c) =>
    model(name)
      .then((m) => forward(m, ids, h, c))
      .then(({ logits, h, c }) => ({ logits: Array.from(logits), h: Array.from(h), c: Array.from(c) })), // plain arrays: they travel as JSON
};

function listen(port) {
  port.onmessage = async ({ data: { id, type, args, reply } }) => {
    let answer;
    try {
      answer = { value: await forPython[type](...args) };
    } catch (e) {
      answer = { error: String(e.message ?? e) };
    }
    if (reply)
      writeAnswer(reply, answer); // Python is blocked on Atomics.wait: wake it
    else port.postMessage({ id, ...answer }); // Python is suspended on a Promise (JSPI)
  };
}

// ---- start-up and the page's messages ------------------------------------------------------------

const started = loadManifest(HERE).then((m) => {
  manifest = m;
  fetchCounted.readFrom(m.cache);
});
const engineReady = started.then(() => {
  fetchCounted.stage("Downloading onnxruntime");
  return (ortLoaded ??= loadOrt());
});
engineReady.then(
  () => postMessage({ type: "model-ready", timeline }),
  (e) => postMessage({ type: "model-error", error: String(e.message ?? e) }),
);

const handlers = {
  async generate(msg) {
    await started;
    const p = msg.params;
    const m = await model(p.model ?? manifest.story);
    const { ids, dropped } = encodeLossy(m.card, p.prompt ?? "");
    const onStep = msg.stream ? (char, top) => postMessage({ id: msg.id, type: "step", char, top }) : null;
    const result = await generateIds(m, {
      ids,
      maxNewTokens: p.maxNewTokens ?? 200,
      temperature: p.temperature ?? 0.8,
      topK: p.topK ?? 0,
      topP: p.topP ?? 1.0,
      rngState: new Mulberry32(p.seed ?? 0).state,
      stop: p.stop ?? [],
      onStep,
      showTop: msg.stream ? (p.showTop ?? 10) : 0,
    });
    return { ...result, dropped };
  },
  async load(msg) {
    await started;
    const m = await model(msg.params.model ?? manifest.story);
    // how the model reads a prompt (time travel's drilldown counts the characters it drew so)
    return { name: m.name, vocab: m.card.vocab, reads_from: m.card.reads_from ?? null, number_slots: m.card.number_slots ?? null };
  },
  async window(msg) {
    await started;
    const m = await model(msg.params.model ?? manifest.story);
    const { ids } = encodeLossy(m.card, msg.params.prompt ?? "");
    return generateWindow(m, { ids, maxNewTokens: msg.params.maxNewTokens ?? 200, window: msg.params.window ?? 64 });
  },
};

self.onmessage = async ({ data: msg }) => {
  if (msg.type === "port") return listen(msg.port);
  try {
    const value = await handlers[msg.type](msg);
    postMessage({ id: msg.id, type: "result", value });
  } catch (e) {
    postMessage({ id: msg.id, type: "error", error: String(e.message ?? e) });
  }
};
