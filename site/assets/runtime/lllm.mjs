// The page side of the in-page runtime: `window.lllm`, a small documented API over two workers —
// model.mjs (TinyLLM on onnxruntime-web) and worker.mjs (Pyodide with the lllm wheel), which asks
// the model worker for every predictor call. Widgets (cells.mjs, playground.mjs, the agent demos),
// tests and curious readers in the console all use it:
//
//   await lllm.ready()                       // Python and onnxruntime-web (lazily, once per tab)
//   await lllm.run("import lllm; print(lllm.__version__)")  // -> {stdout, stderr, value}
//   await lllm.generate({prompt: "Once", maxNewTokens: 80, temperature: 0.8, topK: 0, topP: 1, seed: 1})
//   await lllm.generate({model: "tinyllm-agent", prompt: "Question: Who is Pip?\n", temperature: 0})
//   lllm.stop()                              // ends a runaway cell: restarts the workers
//
// Nothing loads until something calls one of these (intent.mjs calls them when a reader is about to
// use a widget), and each worker only when something needs it: generate() and modelReady() start the
// model worker alone, run() and ready() the Python worker too. A model (the story model "tinyllm", the
// agent-tuned "tinyllm-agent") loads the first time it is used or named, so a page downloads only
// what its first answer needs (the playground's Generate: no Python at all). The workers live
// as long as the tab, so they are shared across Material's instant navigations (this module is not
// re-run by them).
import { mark, timeline } from "./timeline.mjs";

const JSPI = typeof WebAssembly === "object" && typeof WebAssembly.Suspending === "function" && typeof WebAssembly.promising === "function";
const ISOLATED = globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === "function";
// How Python blocks on the model (worker.mjs explains both). Atomics whenever the page is
// cross-origin isolated: the one path every engine has, measured no slower than JSPI (the
// in-page runtime page has the numbers). A test or benchmark may ask for one: window.lllmSync.
const SYNC =
  ({ atomics: ISOLATED, jspi: JSPI }[globalThis.lllmSync] ? globalThis.lllmSync : null) ?? (ISOLATED ? "atomics" : JSPI ? "jspi" : null);

export const NO_PYTHON_MESSAGE =
  "Running Python in this page needs one of two browser features, and this " +
  "browser has neither: JavaScript Promise Integration (JSPI: Chrome, Edge, Opera and other Chromium " +
  "browsers 137 or newer, Firefox 153 or newer) or SharedArrayBuffer in a cross-origin-isolated page " +
  "(Safari 15.2 or newer and every iPhone and iPad browser, as well as current Chrome, Edge and Firefox). " +
  (typeof SharedArrayBuffer === "function" || (globalThis.crossOriginIsolated === false && globalThis.isSecureContext)
    ? "This page is not cross-origin isolated: its server did not send the Cross-Origin-Opener-Policy and " +
      "Cross-Origin-Embedder-Policy headers (see the Deploying page). "
    : "") +
  "TinyLLM's text generation still works here.";

let modelWorker = null,
  pythonWorker = null;
let sandboxModule = null; // Promise of sandbox.mjs, once run_python has been called or prepared for
let sandboxWanted = false; // this tab has a page that can call run_python: keep its interpreter ready
let chatModule = null; // Promise of chat.mjs, once "your model" has been asked
let mcpModule = null; // Promise of ../tools/mcp-client.mjs, once the page's agent has called an MCP tool
let nextId = 1;
const pending = new Map(); // id -> {resolve, reject, onStep, onStdout, onStderr}
const listeners = new Set(); // status listeners
const parts = {}; // "model" | "python" -> {stage, loaded, total} while loading
let status = { state: "idle", stage: "", percent: 0, loaded: 0, total: 0, error: null, modelError: null };
let gates = null; // {model, python}: promises for the current workers (model: onnxruntime-web;
// python: null until something asks for Python)

function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // a gate nobody awaits must not become an unhandled rejection
  return { promise, resolve, reject };
}

function setStatus(change) {
  status = { ...status, ...change };
  for (const listener of listeners) listener(status);
}

// Downloads fill 0–85 %; starting Python is CPU work with no byte count, so its stage name moves
// instead ("Starting Python"), installing lllm takes it to 95 % and "Ready" to 100 %.
function showProgress(msg) {
  parts[msg.part] = msg;
  const all = Object.values(parts);
  const loaded = all.reduce((n, p) => n + p.loaded, 0),
    total = all.reduce((n, p) => n + p.total, 0);
  const python = parts.python;
  let stage = python && !status.pythonReady ? python.stage : msg.stage;
  if (stage === "Downloading Python" && python.total && python.loaded >= python.total) stage = "Starting Python";
  const percent = stage === "Installing lllm" ? 95 : total ? Math.min(85, Math.floor((85 * loaded) / total)) : 0;
  if (status.state === "loading") setStatus({ stage, percent: Math.max(status.percent, percent), loaded, total });
}

/** "Downloading Python · 12.3 of 28.9 MB (36%)": what a widget shows while the runtime loads. */
export function describe(s) {
  const mb = (n) => (n / 1e6).toFixed(1);
  return s.total ? `${s.stage} · ${mb(Math.min(s.loaded, s.total))} of ${mb(s.total)} MB (${s.percent}%)` : `${s.stage}…`;
}

// ---- the workers' lives: start, message loop, stop ------------------------------------------------

function spawn(file, name) {
  const worker = new Worker(new URL(file, import.meta.url), { type: "module", name });
  worker.onmessage = ({ data }) => onMessage(data);
  worker.onerror = (event) => {
    const error = new Error(`The runtime worker ${file} failed to start: ${event.message || "could not load it"}`);
    gates.model.reject(error);
    gates.python?.reject(error);
    failAll(error);
    setStatus({ state: "error", error: error.message });
  };
  return worker;
}

/** A Python worker joined to the model worker by a MessageChannel of its own (a new one after Stop). */
function startPython() {
  gates.python = deferred();
  delete parts.python;
  if (!SYNC) {
    // nothing to download: say at once what is missing
    gates.python.reject(new Error(NO_PYTHON_MESSAGE));
    setStatus({ state: "error", error: NO_PYTHON_MESSAGE });
    return;
  }
  setStatus({ state: "loading", stage: "Starting Python", percent: 0, error: null, pythonReady: false });
  pythonWorker = spawn("./worker.mjs", "lllm-python");
  mark("page: Python worker spawned");
  const channel = new MessageChannel(),
    sandbox = new MessageChannel();
  modelWorker.postMessage({ type: "port", port: channel.port1 }, [channel.port1]);
  // run_python's interpreter (sandbox.mjs): its frame started when first called, unless prestarted
  // ... and "your model" (chat.mjs): the page calls the learner's server and streams the reply
  // ... and an MCP server's tools (../tools/mcp-client.mjs): the page sends each tools/call
  sandbox.port1.onmessage = ({ data }) => {
    if (data.type === "chat") return (chatModule ??= import("./chat.mjs")).then((m) => m.answerChat(sandbox.port1, data));
    if (data.type === "mcp") return (mcpModule ??= import("../tools/mcp-client.mjs")).then((m) => m.answerMcp(sandbox.port1, data));
    sandboxWanted = true; // after a Stop it comes back ready
    return (sandboxModule ??= import("./sandbox.mjs")).then((m) => m.answerSandbox(sandbox.port1, data));
  };
  pythonWorker.postMessage({ type: "port", port: channel.port2, sync: SYNC, sandbox: sandbox.port2 }, [channel.port2, sandbox.port2]);
}

/** The model worker (onnxruntime-web) alone; startPython() adds Python when something asks for it. */
function startModel() {
  gates = { model: deferred(), python: null };
  setStatus({ state: "loading", stage: "Starting", percent: 0, error: null, modelError: null, pythonReady: false });
  modelWorker = spawn("./model.mjs", "lllm-model");
  mark("page: model worker spawned");
}

// On a first visit the service worker (sw.js) is still taking over the page when a reader asks for
// the runtime. Workers started before it controls the page would download past it, and saving the
// runtime for offline use afterwards would download every file a second time; so wait for it (it
// only caches this page and the shell, usually well under a second), never longer than SW_WAIT_MS.
const SW_WAIT_MS = 4000;
let settled = null;
function serviceWorkerSettled() {
  const sw = navigator.serviceWorker;
  settled ??= (async () => {
    if (!sw || sw.controller) return;
    const registration = await sw.getRegistration().catch(() => null);
    if (!registration || !(registration.installing || registration.waiting || registration.active)) return;
    await new Promise((resolve) => {
      sw.addEventListener("controllerchange", resolve, { once: true });
      setTimeout(resolve, SW_WAIT_MS);
    });
  })();
  return settled;
}

/** Start the model worker once (after the service worker has settled); resolves when it is spawned. */
let starting = null;
function ensureModel() {
  if (!starting) mark("page: runtime asked for");
  starting ??= serviceWorkerSettled().then(() => {
    if (!modelWorker) startModel();
  });
  return starting;
}

/** run_python's interpreter started ahead of its first call (sandbox.mjs, when the page is idle), on
 *  a page that can call it, once starting it downloads nothing: its snapshot is cached (it has run
 *  in this browser before) or the page's own Python has started (Pyodide's files are here). */
function keepSandboxReady() {
  if (!sandboxWanted || !ISOLATED) return; // without cross-origin isolation the frame cannot run
  (sandboxModule ??= import("./sandbox.mjs"))
    .then(async (sandbox) => {
      if (status.pythonReady === true || (await sandbox.snapshotAtHand())) sandbox.prestartSandbox();
    })
    .catch(() => {}); // a failure is said by the call that needs the frame
}

/** The model worker, then the Python worker beside it (Stop restarts whichever were running). */
async function ensurePython() {
  await ensureModel();
  if (!gates.python) startPython();
}

function onMessage(msg) {
  const call = pending.get(msg.id);
  switch (msg.type) {
    case "progress":
      showProgress(msg);
      return;
    case "model-ready":
      timeline.push(...(msg.timeline ?? []));
      gates.model.resolve(msg.vocab);
      if (!gates.python)
        setStatus({ state: "ready", stage: "Ready", percent: 100 }); // nothing asked for Python (yet)
      else if (!SYNC) setStatus({ state: "error", error: NO_PYTHON_MESSAGE });
      return;
    case "model-error":
      gates.model.reject(new Error(msg.error));
      setStatus({ state: "error", modelError: msg.error, error: msg.error });
      return;
    case "python-error":
      gates.python.reject(new Error(msg.error));
      setStatus({ state: "error", error: msg.error });
      return;
    case "ready":
      timeline.push(...(msg.timeline ?? []));
      gates.python.resolve(msg);
      gates.model.promise.then(
        () => {
          mark("page: ready");
          setStatus({ state: "ready", stage: "Ready", percent: 100, pythonReady: true, warm: msg.warm });
          keepSandboxReady();
        },
        () => {},
      );
      return;
    case "step":
      call?.onStep?.(msg.char, msg.top);
      return;
    case "stdout":
    case "stderr":
      call?.[msg.type === "stdout" ? "onStdout" : "onStderr"]?.(msg.text);
      return;
    case "result":
      pending.delete(msg.id);
      call?.resolve(msg.value);
      return;
    case "error":
      pending.delete(msg.id);
      call?.reject(new Error(msg.error));
      return;
  }
}

function failAll(error) {
  for (const call of pending.values()) call.reject(error);
  pending.clear();
}

async function request(to, type, fields, callbacks = {}) {
  await to.ensure();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, ...callbacks });
    to.worker().postMessage({ id, type, ...fields });
  });
}

const toModel = { ensure: ensureModel, worker: () => modelWorker };
const toPython = { ensure: ensurePython, worker: () => pythonWorker };

// ---- the API ---------------------------------------------------------------------------------------

export const lllm = {
  /** True when this browser has JSPI. */
  jspi: JSPI,

  /** How Python blocks on the model here: "atomics", "jspi", or null (it cannot run: NO_PYTHON_MESSAGE). */
  sync: SYNC,

  /** Resolves when Python and onnxruntime-web are loaded (models load when first used); rejects
   *  with a readable reason if they cannot be. */
  async ready() {
    await ensurePython();
    const { model, python } = gates;
    await Promise.all([model.promise, python.promise]);
  },

  /** Resolves when onnxruntime-web and the model called `name` (default: the story model) are
   *  loaded: enough for generate(). Resolves to {name, vocab, reads_from, number_slots} (its card's:
   *  how it reads a prompt). */
  async modelReady(name = undefined) {
    await ensureModel();
    await gates.model.promise;
    try {
      return await request(toModel, "load", { params: { model: name } });
    } catch (e) {
      // the model the page waits for cannot load: every widget says why
      setStatus({ state: "error", modelError: e.message, error: e.message });
      throw e;
    }
  },

  /** How many calls (run, generate) are waiting for an answer: 0 when the runtime is idle. */
  get busy() {
    return pending.size;
  },

  /**
   * Run Python code; cells of one page share a namespace (by default the page's path).
   * Resolves to {stdout, stderr, value}; rejects with an Error whose message is the error and the
   * cell's own lines (lllm/web/tracebacks.py), whose traceback is the full one, and whose
   * stdout/stderr hold what was printed before it.
   */
  async run(code, { namespace = location.pathname, onStdout = null, onStderr = null } = {}) {
    if (!SYNC) throw new Error(NO_PYTHON_MESSAGE);
    const result = await request(toPython, "run", { code: String(code), namespace }, { onStdout, onStderr });
    if (result.error) {
      const error = new Error(result.error);
      error.name = "PythonError";
      Object.assign(error, { stdout: result.stdout, stderr: result.stderr, traceback: result.traceback ?? null });
      throw error;
    }
    return { stdout: result.stdout, stderr: result.stderr, value: result.value };
  },

  /**
   * TinyLLM continues `prompt` (the completion only, as `python -m lllm generate` prints it for the
   * same settings and seed). params.model picks the model by name ("tinyllm", the default,
   * "tinyllm-agent", or "tinyllm-yours": the reader's own, trained on /tinyllm/train/). onStep(char, top) streams each character with the top next-character
   * probabilities before it was drawn. Resolves to the completion string.
   */
  async generate(params = {}, { onStep = null, details = false } = {}) {
    const result = await request(toModel, "generate", { params, stream: Boolean(onStep) }, { onStep });
    return details ? result : result.completion;
  },

  /** Greedy generation re-running the last `window` characters at every step (for the benchmark). */
  generateWindow(params = {}) {
    return request(toModel, "window", { params });
  },

  /** End whatever is running (even `while True: pass`, or a long generation) by restarting the
   *  workers that were running, and replacing run_python's frame (prestarted again); Python state is lost. */
  stop() {
    if (!modelWorker) return; // nothing started (or still waiting for the service worker)
    const hadPython = Boolean(gates.python);
    modelWorker.terminate();
    pythonWorker?.terminate();
    sandboxModule?.then((m) => m.stopSandbox());
    chatModule?.then((m) => m.stopChats());
    mcpModule?.then((m) => m.stopCalls());
    modelWorker = pythonWorker = null;
    failAll(Object.assign(new Error("Stopped: Python was restarted, so names defined by earlier cells are gone."), { name: "Stopped" }));
    startModel();
    if (hadPython) startPython();
    keepSandboxReady();
  },

  /** Start run_python's interpreter ahead of its first call, when the page is idle (intent.mjs calls
   *  this on a page whose code can call run_python; sandbox.mjs explains the prestart). */
  prepareSandbox() {
    sandboxWanted = true;
    keepSandboxReady();
  },

  /** The loading state: {state: idle|loading|ready|error, stage, percent, loaded, total (bytes),
   *  error, pythonReady, warm (Python restored from its snapshot)}: "ready" once what was asked for
   *  is (the model alone, for generation), "loading" again when Python is then asked for;
   *  describe(status) says it in words. */
  get status() {
    return status;
  },

  /** How the runtime's start went, step by step: [[step, ms since something first asked for the
   *  runtime], ...] in time order, the page's steps and both workers' (timeline.mjs). */
  get timings() {
    const t0 = timeline[0]?.[1];
    return [...timeline].sort((a, b) => a[1] - b[1]).map(([step, at]) => [step, Math.round(at - t0)]);
  },

  /** Call listener(status) now and on every change; returns a function that unsubscribes. */
  onStatus(listener) {
    listeners.add(listener);
    listener(status);
    return () => listeners.delete(listener);
  },
};

lllm.describe = describe;
window.lllm = lllm;
