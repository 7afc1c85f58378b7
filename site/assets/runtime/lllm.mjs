// The page side of the in-page runtime: `window.lllm`, a small documented API over the runtime
// worker (worker.mjs: Pyodide + the lllm wheel + TinyLLM on onnxruntime-web). Widgets (cells.mjs,
// playground.mjs), tests and curious readers in the console all use it:
//
//   await lllm.ready()                       // loads everything (lazily, once per tab)
//   await lllm.run("import lllm; print(lllm.__version__)")  // -> {stdout, stderr, value}
//   await lllm.generate({prompt: "Once", maxNewTokens: 80, temperature: 0.8, topK: 0, topP: 1, seed: 1})
//   await lllm.generate({model: "tinyllm-agent", prompt: "Question: Who is Pip?\n", temperature: 0})
//   lllm.stop()                              // ends a runaway cell: restarts the worker
//
// Nothing loads until something calls one of these. The story model (TinyLLM) loads with the
// runtime; another model (the agent-tuned "tinyllm-agent") loads the first time it is named. The
// worker lives as long as the tab, so it is shared across Material's instant navigations (this
// module is not re-run by them).

const JSPI = typeof WebAssembly === "object" && typeof WebAssembly.Suspending === "function"
  && typeof WebAssembly.promising === "function";
export const NO_JSPI_MESSAGE = "Running Python in this page needs JavaScript Promise Integration (JSPI), "
  + "which this browser does not have. It works in Chrome, Edge, Opera and other Chromium browsers, "
  + "version 137 or newer. (TinyLLM's text generation still works here.)";

let worker = null;
let nextId = 1;
const pending = new Map();   // id -> {resolve, reject, onStep, onStdout, onStderr}
const listeners = new Set(); // status listeners
let status = { state: "idle", stage: "", percent: 0, error: null, modelError: null };
let gates = null;            // {model, python, all}: promises for the current worker

function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  promise.catch(() => {}); // a gate nobody awaits must not become an unhandled rejection
  return { promise, resolve, reject };
}

function setStatus(change) {
  status = { ...status, ...change };
  for (const listener of listeners) listener(status);
}

// ---- the worker's life: start, message loop, stop -------------------------------------------------

function startWorker() {
  gates = { model: deferred(), python: deferred() };
  setStatus({ state: "loading", stage: "Starting", percent: 0, error: null, modelError: null });
  const url = new URL("./worker.mjs", import.meta.url);
  url.hash = new URLSearchParams({ jspi: JSPI ? "1" : "0" }).toString();
  worker = new Worker(url, { type: "module", name: "lllm-runtime" });
  worker.onmessage = ({ data }) => onMessage(data);
  worker.onerror = (event) => {
    const error = new Error(`The runtime worker failed to start: ${event.message || "could not load worker.mjs"}`);
    gates.model.reject(error);
    gates.python.reject(error);
    failAll(error);
    setStatus({ state: "error", error: error.message });
  };
}

function onMessage(msg) {
  const call = pending.get(msg.id);
  switch (msg.type) {
    case "progress":
      if (status.state === "loading") setStatus({ stage: msg.stage, percent: msg.percent });
      return;
    case "model-ready":
      gates.model.resolve(msg.vocab);
      return;
    case "model-error":
      gates.model.reject(new Error(msg.error));
      setStatus({ state: "error", modelError: msg.error, error: msg.error });
      return;
    case "python-error":
      gates.python.reject(new Error(JSPI ? msg.error : NO_JSPI_MESSAGE));
      setStatus({ state: "error", error: JSPI ? msg.error : NO_JSPI_MESSAGE });
      return;
    case "ready":
      gates.python.resolve(msg);
      setStatus({ state: "ready", stage: "Ready", percent: 100 });
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

function request(type, fields, callbacks = {}) {
  if (!worker) startWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, ...callbacks });
    worker.postMessage({ id, type, ...fields });
  });
}

// ---- the API ---------------------------------------------------------------------------------------

export const lllm = {
  /** True when this browser can run Python here (it has JSPI). */
  jspi: JSPI,

  /** Resolves when Python and the model are loaded; rejects with a readable reason if they cannot be. */
  async ready() {
    if (!worker) startWorker();
    const { model, python } = gates;
    await Promise.all([model.promise, python.promise]);
  },

  /** Resolves when the model alone is loaded (enough for generate()). */
  async modelReady() {
    if (!worker) startWorker();
    await gates.model.promise;
  },

  /**
   * Run Python code; cells of one page share a namespace (by default the page's path).
   * Resolves to {stdout, stderr, value}; rejects with an Error whose message is the traceback
   * (and whose stdout/stderr hold what was printed before it).
   */
  async run(code, { namespace = location.pathname, onStdout = null, onStderr = null } = {}) {
    if (!JSPI) throw new Error(NO_JSPI_MESSAGE);
    const result = await request("run", { code: String(code), namespace }, { onStdout, onStderr });
    if (result.error) {
      const error = new Error(result.error);
      error.name = "PythonError";
      Object.assign(error, { stdout: result.stdout, stderr: result.stderr });
      throw error;
    }
    return { stdout: result.stdout, stderr: result.stderr, value: result.value };
  },

  /**
   * TinyLLM continues `prompt` (the completion only, as `python -m lllm generate` prints it for the
   * same settings and seed). params.model picks the model by name ("tinyllm", the default, or
   * "tinyllm-agent"). onStep(char, top) streams each character with the top next-character
   * probabilities before it was drawn. Resolves to the completion string.
   */
  async generate(params = {}, { onStep = null, details = false } = {}) {
    const result = await request("generate", { params, stream: Boolean(onStep) }, { onStep });
    return details ? result : result.completion;
  },

  /** Greedy generation re-running the last `window` characters at every step (for the benchmark). */
  generateWindow(params = {}) {
    return request("window", { params });
  },

  /** End whatever is running (even `while True: pass`) by restarting the worker; Python state is lost. */
  stop() {
    if (!worker) return;
    worker.terminate();
    worker = null;
    failAll(Object.assign(new Error("Stopped: Python was restarted, so names defined by earlier cells are gone."), { name: "Stopped" }));
    startWorker();
  },

  /** The loading state: {state: idle|loading|ready|error, stage, percent, error}. */
  get status() { return status; },

  /** Call listener(status) now and on every change; returns a function that unsubscribes. */
  onStatus(listener) {
    listeners.add(listener);
    listener(status);
    return () => listeners.delete(listener);
  },
};

window.lllm = lllm;
