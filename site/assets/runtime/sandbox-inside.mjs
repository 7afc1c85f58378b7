// What runs inside run_python's isolated interpreter: the opaque-origin frame's script and its
// worker's. Read sandbox.mjs first (the page side, which starts them). Each function here is
// self-contained: sandbox.mjs sends it as source text (the frame's inline script, the worker's
// Blob), so it can use nothing from this module or the page, only its arguments.

/** The frame (`<iframe sandbox="allow-scripts">`, origin "null"): starts the worker, relays its
 *  messages to the page's port, and wakes it with the page's answer to a CALL_API. */
export function frameMain() {
  let started = false;
  addEventListener("message", async (event) => {
    if (started || event.source !== parent) return; // the page's one message: the port and the files
    started = true;
    const { port, source, files, snapshot } = event.data;
    if (!globalThis.crossOriginIsolated) {
      port.postMessage({ failed: "run_python's isolated interpreter needs a cross-origin-isolated page (COOP and COEP headers)" });
      return;
    }
    const HEADER = 8,
      SIZE = 1 << 22;
    const shared = new SharedArrayBuffer(HEADER + SIZE);
    const wake = (text) => {
      // as answer.mjs's writeAnswer: the worker waits in Atomics.wait
      let bytes = new TextEncoder().encode(text);
      if (bytes.length > SIZE)
        bytes = new TextEncoder().encode(JSON.stringify({ error: ["ValueError", "the CALL_API result is over 4 MiB"] }));
      const flag = new Int32Array(shared, 0, 2);
      new Uint8Array(shared, HEADER, bytes.length).set(bytes);
      flag[1] = bytes.length;
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    };
    // A worker from a Blob; WebKit refuses one in an opaque-origin frame but takes a data: URL.
    const hello = (worker) =>
      new Promise((resolve) => {
        worker.onmessage = ({ data }) => resolve(data?.hello === true);
        worker.onerror = () => resolve(false);
      });
    let worker = null;
    for (const url of [
      URL.createObjectURL(new Blob([source], { type: "text/javascript" })),
      await new Promise((resolve) => {
        const r = new FileReader();
        r.onload = () => resolve(r.result);
        r.readAsDataURL(new Blob([source], { type: "text/javascript" }));
      }),
    ]) {
      const candidate = new Worker(url);
      if (await hello(candidate)) {
        worker = candidate;
        break;
      }
      candidate.terminate();
    }
    if (!worker) {
      port.postMessage({ failed: "this browser would not start a worker in run_python's isolated frame" });
      return;
    }
    // the page checks every message; a new snapshot's bytes are passed on, not copied
    worker.onmessage = ({ data }) => port.postMessage(data, data?.snapshot instanceof Uint8Array ? [data.snapshot.buffer] : []);
    worker.onerror = (e) => port.postMessage({ failed: `run_python's isolated interpreter failed: ${e.message}` });
    worker.onmessageerror = () => port.postMessage({ failed: "run_python's isolated interpreter could not read a message" });
    port.onmessage = ({ data }) => {
      if (data.stop) worker.terminate();
      else if (typeof data.answer === "string")
        wake(data.answer); // CALL_API's result, as JSON text
      else worker.postMessage(data);
    };
    worker.postMessage({ files, snapshot, shared }, [...Object.values(files), ...(snapshot ? [snapshot.buffer] : [])]);
  });
}

/** The frame's worker: Pyodide from the bytes the page handed over (nothing is fetched), restored
 *  from the snapshot among them if it can be, then worker.py's run_code for each
 *  {session, run, budget, source?}; CALL_API blocks on `shared`. Its first message says how Python
 *  started: {started: "snapshot"}, or {started: "cold", snapshot} with a snapshot of the Python it
 *  has just started, taken before any code it is given has run. */
export function workerMain(loadPyodide, createPyodideModule, indexURL) {
  postMessage({ hello: true });
  self.onmessageerror = () => postMessage({ failed: "run_python's isolated interpreter could not read its files" });
  const FRAME = `
import builtins, json
from _lllm_sandbox import run_code
EXCEPTIONS = {n: v for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, Exception)}
namespaces = {}
def run(session, code, budget, bridge):
    if session not in namespaces:
        def CALL_API(api_path, params=None):
            reply = json.loads(bridge(json.dumps({"session": session, "call_api": [api_path, params or {}]}, default=repr)))
            if "error" in reply:
                kind, message = reply["error"]
                raise EXCEPTIONS.get(kind, RuntimeError)(message)
            return reply["result"]
        namespaces[session] = {"CALL_API": CALL_API}
    return run_code(code, namespaces[session], json.loads(budget))
def close(session):
    namespaces.pop(session, None)
`;
  // Once Python has started, nothing in the frame needs the network: the model's code gets a clear
  // error instead of a request (the opaque origin and the CSP stay the boundary; this is the early,
  // readable refusal, as the import allow-list is for modules). WebKit otherwise leaves a fetch from
  // this worker pending for ever. Removed along the prototype chain, so no original stays reachable.
  function withoutNetwork() {
    const refused = (what) =>
      function () {
        throw new TypeError(`the isolated interpreter has no network: ${what} is refused`);
      };
    for (const name of ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "importScripts"]) {
      for (let o = globalThis; o; o = Object.getPrototypeOf(o)) {
        if (Object.hasOwn(o, name)) delete o[name];
      }
      globalThis[name] = name === "fetch" ? async () => refused("fetch")() : refused(name);
    }
  }
  let started = null,
    shared = null,
    frame = null;
  const bridge = (text) => {
    const flag = new Int32Array(shared, 0, 2);
    Atomics.store(flag, 0, 0);
    postMessage({ session: JSON.parse(text).session, request: text }); // text: JSON's floats stay floats
    Atomics.wait(flag, 0, 0);
    return new TextDecoder().decode(new Uint8Array(shared, 8, flag[1]).slice());
  };
  // A snapshot that does not restore (or restores a Python that cannot run a line) is passed over:
  // the start is cold, as if there had been none, and its new snapshot replaces the old one.
  async function restore(options, snapshot) {
    try {
      const pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
      pyodide.runPython("0");
      return pyodide;
    } catch {
      return null;
    }
  }
  async function start(files, snapshot) {
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input) => {
      // Pyodide's own downloads only, while it starts
      const name = String(input?.url ?? input)
        .split("?")[0]
        .slice(indexURL.length);
      if (!(name in files)) throw new TypeError(`the isolated interpreter has no file ${name}`);
      return new Response(files[name], {
        headers: { "Content-Type": name.endsWith(".wasm") ? "application/wasm" : "application/octet-stream" },
      });
    };
    const options = { indexURL, createPyodideModule, stdout: () => {}, stderr: () => {} };
    try {
      const restored = snapshot && (await restore(options, snapshot));
      if (restored) {
        postMessage({ started: "snapshot" });
        return restored;
      }
      const pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
      let made = null;
      try {
        made = pyodide.makeMemorySnapshot(); // now, while no code it was given has run
      } catch {
        /* this engine cannot: every start is cold */
      }
      postMessage({ started: "cold", snapshot: made }, made ? [made.buffer] : []);
      return pyodide;
    } finally {
      globalThis.fetch = realFetch;
      withoutNetwork();
    }
  }
  self.onmessage = async ({ data }) => {
    if (data.files) {
      shared = data.shared;
      started = start(data.files, data.snapshot);
      started.catch((e) => postMessage({ failed: `run_python's isolated interpreter could not start: ${e.message ?? e}` }));
      return;
    }
    const pyodide = await started;
    if (data.source && !frame) {
      pyodide.FS.writeFile("/home/pyodide/_lllm_sandbox.py", data.source);
      pyodide.FS.writeFile("/home/pyodide/_lllm_frame.py", FRAME);
      frame = pyodide.pyimport("_lllm_frame");
    }
    if (data.close) return frame?.close(data.session);
    if (!frame) return postMessage({ session: data.session, failed: "run_python's isolated interpreter was not given its code" });
    postMessage({ session: data.session, done: frame.run(data.session, data.run, JSON.stringify(data.budget), bridge) });
  };
}
