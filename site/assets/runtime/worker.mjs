// The in-page runtime's engine room: a module Web Worker hosting Pyodide (Python 3.14 with the
// lllm wheel unpacked) and onnxruntime-web sessions on TinyLLM. Read lllm.mjs (the page side)
// first; the Design page (site/design.md) explains why a worker, why JSPI, and why only the plain wasm build of ORT.
//
// Models are named as in runtime.json (hooks/runtime.py): the story model "tinyllm" loads at
// start; another ("tinyllm-agent") loads the first time something asks for it by name.
//
// Messages in:  {id, type: "generate", params (params.model names the model), stream}
//               {id, type: "window", params}
//               {id, type: "run", code, namespace}
// Messages out: {type: "progress", stage, percent} | {type: "model-ready" | "ready", ...}
//               {type: "model-error" | "python-error", error}
//               {id, type: "step", char, top} | {id, type: "stdout" | "stderr", text}
//               {id, type: "result", value} | {id, type: "error", error}
//
// The token loop lives here, in JavaScript, carrying the LSTM state (h, c) from one character to
// the next; Python's predictor (lllm/web/browser.py) calls `generate` through run_sync, one Promise
// per predictor call.

import { Mulberry32, checkSampling, sample, topPredictions } from "./sampler.mjs";

const HERE = new URL("./", import.meta.url);
const EMPTY_PROMPT = "\n"; // as lllm/model/generate.py: the model needs at least one character

let manifest = null;   // runtime.json, written by hooks/runtime.py: file names and sizes
const models = new Map(); // model name -> Promise of {name, card, session}, created on first use
let pyodide = null;
let ort = null;
let ortLoaded = null;  // Promise: onnxruntime-web is imported once, by the first model that needs it
const namespaces = new Map(); // page key -> Python dict shared by that page's cells

// ---- progress: bytes seen by fetch, against the sizes the manifest promises ----------------------

const loaded = new Map();
let stage = "Starting";
let floor = 0;   // the percent a finished stage guarantees

// Downloads fill 0–85 %; starting Python is CPU work with no byte count, so its stage name moves
// instead ("Starting Python"), then installing lllm takes it to 95 % and "Ready" to 100 %.
function report(newStage, atLeast = 0) {
  if (newStage) stage = newStage;
  floor = Math.max(floor, atLeast);
  const total = manifest ? manifest.totalBytes : 0;
  let done = 0;
  for (const n of loaded.values()) done += n;
  const percent = Math.max(floor, total ? Math.min(85, Math.floor((85 * done) / total)) : 0);
  postMessage({ type: "progress", stage, percent });
}

const plainFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = async (input, init) => {
  const response = await plainFetch(input, init);
  const url = typeof input === "string" ? input : input.url ?? String(input);
  if (response.ok && response.body) {
    // Count a clone, return the original: wasm keeps its streaming compile and code cache.
    const reader = response.clone().body.getReader();
    let n = 0;
    (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          if (url.endsWith("pyodide.asm.wasm")) report("Starting Python");
          break;
        }
        n += value.byteLength;
        loaded.set(url, n);
        report();
      }
    })().catch(() => {});
  }
  return response;
};

async function fetchBytes(url, what) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`Could not download ${what} (${url}): ${e.message}`);
  }
  if (!response.ok) throw new Error(`Could not download ${what} (${url}): HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// ---- the models: onnxruntime-web, one thread, plain wasm -----------------------------------------

async function loadOrt() {
  const ortBase = new URL(manifest.ort, HERE);
  ort = await import(new URL("ort.wasm.min.mjs", ortBase).href);
  ort.env.wasm.numThreads = 1;       // no SharedArrayBuffer, so no COOP/COEP headers needed
  ort.env.wasm.proxy = false;        // we are already off the main thread
  ort.env.wasm.wasmPaths = ortBase.href;
  ort.env.logLevel = "error";
}

/** The model called `name` (loaded once, on first use): {name, card, session}. */
function model(name = manifest.story) {
  if (!models.has(name)) models.set(name, loadModel(name));
  return models.get(name);
}

async function loadModel(name) {
  const entry = manifest.models[name];
  if (!entry) throw new Error(`There is no model called ${JSON.stringify(name)} here; the models are: ${Object.keys(manifest.models).join(", ")}`);
  if (entry.missing) throw new Error(entry.missing.replace(/^./, (c) => c.toUpperCase()));
  const stage = name === manifest.story ? report : () => {};   // other models load after start-up
  stage("Downloading the model");
  await (ortLoaded ??= loadOrt());
  const modelUrl = new URL(entry.model, HERE).href;
  const cardUrl = new URL(entry.card, HERE).href;
  const [bytes, cardBytes] = await Promise.all([
    fetchBytes(modelUrl, `the ${name} model`),
    fetchBytes(cardUrl, `the ${name} model card`),
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
      throw new Error(`The model file ${modelUrl} does not match its card (sha256 differs): the download is damaged or stale; rebuild with \`${entry.build}\` and reload`);
  }
  stage("Opening the model");
  try {
    const session = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
    return { name, card, session };
  } catch (e) {
    throw new Error(`The model file ${modelUrl} could not be opened by onnxruntime-web: ${String(e.message ?? e).split("\n")[0]}`);
  }
}

/** One forward pass of model m: ids (new characters), state (h, c) -> logits after the last id, new state. */
async function forward(m, ids, h, c) {
  const { layers, hidden } = m.card.config;
  const feeds = {
    input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
    h0: new ort.Tensor("float32", h ?? new Float32Array(layers * hidden), [layers, 1, hidden]),
    c0: new ort.Tensor("float32", c ?? new Float32Array(layers * hidden), [layers, 1, hidden]),
  };
  const out = await m.session.run(feeds);
  const V = m.card.vocab.length;
  const logits = out.logits.data.subarray((ids.length - 1) * V, ids.length * V);
  return { logits, h: out.hn.data, c: out.cn.data };
}

// ---- the token loop (mirrors lllm/model/generate.py, mode "carry") --------------------------------------

/** encode_lossy: the ids of known characters, and the distinct unknown ones (first appearance order). */
function encodeLossy(card, text) {
  const index = new Map(card.vocab.map((ch, i) => [ch, i]));
  const ids = [], dropped = [];
  for (const ch of text) {  // for...of walks code points, as Python iterates a str
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
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 0) throw new RangeError(`max-new-tokens must be an integer >= 0, got ${maxNewTokens}`);
  checkSampling(temperature, topK, topP);
  const rng = new Mulberry32(0);
  rng.state = rngState >>> 0;
  const t0 = performance.now();
  const vocab = m.card.vocab;
  let { logits, h, c } = await forward(m, ids, null, null);           // the whole prompt, once
  let text = "", stoppedBy = null;
  for (let n = 0; n < maxNewTokens; n++) {
    const top = showTop ? topPredictions(logits, showTop).map(([i, p]) => [vocab[i], p]) : null;
    const next = sample(logits, { temperature, topK, topP, rng });
    text += vocab[next];
    if (onStep) onStep(vocab[next], top);
    stoppedBy = stop.find((s) => s && text.endsWith(s)) ?? null;
    if (stoppedBy) { text = text.slice(0, text.length - stoppedBy.length); break; }
    if (n + 1 < maxNewTokens) ({ logits, h, c } = await forward(m, [next], h, c)); // carry (h, c)
  }
  return { completion: text, stoppedBy, rngState: rng.state, ms: performance.now() - t0 };
}

/** The window-re-run loop (mode "window"), for the benchmark's comparison only. */
async function generateWindow(m, { ids, maxNewTokens, window = 64 }) {
  const t0 = performance.now();
  ids = ids.slice();
  let { logits } = await forward(m, ids.slice(-window), null, null);
  let text = "";
  for (let n = 0; n < maxNewTokens; n++) {
    const next = sample(logits, { temperature: 0 });
    text += m.card.vocab[next];
    ids.push(next);
    if (n + 1 < maxNewTokens) ({ logits } = await forward(m, ids.slice(-window), null, null));
  }
  return { completion: text, ms: performance.now() - t0 };
}

// ---- Python: Pyodide from our own origin, lllm unpacked from its wheel ----------------------------

async function loadPython() {
  // Without JSPI, run_sync cannot work: skip Python (20 MB) and let the page say which browsers work.
  if (options.get("jspi") === "0" || typeof WebAssembly.Suspending !== "function") throw new Error("no JSPI");
  report("Downloading Python");
  const pyBase = new URL(manifest.pyodide, HERE).href;
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyBase).href);
  pyodide = await loadPyodide({ indexURL: pyBase, stdout: () => {}, stderr: () => {} });
  report("Installing lllm", 95);
  const wheel = await fetchBytes(new URL(manifest.wheel, HERE).href, "the lllm wheel");
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
}

/**
 * What lllm/web/browser.py sees as the module `_lllm_page`: each model's card and the JS token loop.
 * Every function names its model and returns a Promise (the model loads on first use); Python
 * blocks on it with pyodide.ffi.run_sync — one Promise per predictor call.
 */
function pageModule() {
  return {
    card_json: (name) => model(name).then((m) => JSON.stringify(m.card)),
    generate: (name, ids, maxNewTokens, temperature, topK, topP, rngState, stop) =>
      model(name).then((m) => generateIds(m, {
        ids: Array.from(ids), maxNewTokens, temperature, topK, topP, rngState, stop: Array.from(stop ?? []),
      })),
    forward: (name, ids, h, c) => model(name).then((m) => forward(m, Array.from(ids), h ?? null, c ?? null)),
  };
}

// ---- Pydantic, only for code that needs it (hooks/wheels.py serves the pinned wheels) ------------
// The native runtime and the protocol layer import pydantic; the seed-000 layers do not, so a page
// without native code never downloads the 2 MB. Loaded once, before the first cell that needs it.
const NEEDS_PYDANTIC = /runtimes\.native|lllm\.protocol|pydantic|labs\.debate|web\.oversight|\b(Tactic|Prompt|Dialog|DefaultTagParser|CallContext|as_tactic)\b|from lllm import [^\n]*\b(Agent|tool|Function|Message|Runtime)\b/;
let pydanticReady = null;
function loadPydanticFor(code) {
  if (!NEEDS_PYDANTIC.test(code)) return Promise.resolve();
  pydanticReady ??= plainFetch(new URL("vendor/wheels/wheels.json", HERE))
    .then((r) => { if (!r.ok) throw new Error(`Could not download the Pydantic wheel list: HTTP ${r.status}`); return r.json(); })
    .then(({ wheels }) => pyodide.loadPackage(wheels.map((w) => new URL(`vendor/wheels/${w}`, HERE).href),
                                              { messageCallback: () => {} }));
  return pydanticReady;
}

async function runCell(msg) {
  await loadPydanticFor(msg.code);
  const key = msg.namespace ?? "default";
  if (!namespaces.has(key)) namespaces.set(key, pyodide.globals.get("dict")());
  const { run_cell } = pyodide.pyimport("lllm.web.browser");
  const emit = (type) => (text) => postMessage({ id: msg.id, type, text });
  const result = await run_cell.callPromising(msg.code, namespaces.get(key), emit("stdout"), emit("stderr"));
  const value = result.toJs({ dict_converter: Object.fromEntries });
  result.destroy();
  return value;
}

// ---- start-up and the message loop ---------------------------------------------------------------

let modelReady, pythonReady;

async function start() {
  const response = await plainFetch(new URL("runtime.json", HERE));
  if (!response.ok) throw new Error(`Could not download the runtime manifest (${response.url}): HTTP ${response.status}`);
  manifest = await response.json();
}

// The model (≈1 s) loads first, then Python (≈6 s): both compete for this one thread, and
// generation needs only the model, so the playground writes long before Python is up. (Loading
// both at once did not get Python ready measurably sooner here: bench/page_bench.py.) Cells need
// only Python: they still run if the model is broken.
const options = new URLSearchParams(location.hash.slice(1));   // set by lllm.mjs
const started = start();
modelReady = started.then(() => model());
pythonReady = modelReady.catch(() => {}).then(loadPython).then(() => pyodide.registerJsModule("_lllm_page", pageModule()));
modelReady.then(
  (m) => postMessage({ type: "model-ready", vocab: m.card.vocab }),
  (e) => postMessage({ type: "model-error", error: String(e.message ?? e) }));
pythonReady.catch((e) => postMessage({ type: "python-error", error: String(e.message ?? e) }));
Promise.all([modelReady, pythonReady]).then(([m]) => {
  report("Ready", 100);
  postMessage({ type: "ready", python: pyodide.version, vocab: m.card.vocab });
}, () => {});

const handlers = {
  async generate(msg) {
    await started;
    const p = msg.params;
    const m = await model(p.model ?? manifest.story);
    const { ids, dropped } = encodeLossy(m.card, p.prompt ?? "");
    const onStep = msg.stream ? (char, top) => postMessage({ id: msg.id, type: "step", char, top }) : null;
    const result = await generateIds(m, {
      ids, maxNewTokens: p.maxNewTokens ?? 200, temperature: p.temperature ?? 0.8, topK: p.topK ?? 0,
      topP: p.topP ?? 1.0, rngState: new Mulberry32(p.seed ?? 0).state, stop: p.stop ?? [], onStep,
      showTop: msg.stream ? (p.showTop ?? 10) : 0,
    });
    return { ...result, dropped };
  },
  async window(msg) {
    const m = await modelReady;
    const { ids } = encodeLossy(m.card, msg.params.prompt ?? "");
    return generateWindow(m, { ids, maxNewTokens: msg.params.maxNewTokens ?? 200, window: msg.params.window ?? 64 });
  },
  async run(msg) {
    await pythonReady;
    return runCell(msg);
  },
};

onmessage = async ({ data: msg }) => {
  try {
    const value = await handlers[msg.type](msg);
    postMessage({ id: msg.id, type: "result", value });
  } catch (e) {
    postMessage({ id: msg.id, type: "error", error: String(e.message ?? e) });
  }
};
