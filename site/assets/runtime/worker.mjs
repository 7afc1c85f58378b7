// The Python worker: Pyodide (Python 3.14 with the lllm wheel unpacked) in a module Web Worker.
// Read lllm.mjs (the page side) first; model.mjs runs TinyLLM in a worker of its own.
//
// The agent code is synchronous, exactly as in a terminal, so a predictor call must block until
// the model worker has answered. Two ways, chosen by the page (lllm.mjs) and sent with the port
// (not in the worker's URL: a worker served by the service worker loses its URL's hash):
//   "atomics"  the page is cross-origin isolated: post the question with a SharedArrayBuffer and
//              block on Atomics.wait until model.mjs writes the answer into it (answer.mjs).
//              Works in every browser with SharedArrayBuffer, Safari included.
//   "jspi"     JavaScript Promise Integration: lllm/web/browser.py blocks on the Promise of the answer
//              with pyodide.ffi.run_sync (Python entered through callPromising).
// Either way lllm/web/browser.py sees the same `_lllm_page` functions and the same answers.
//
// Messages in:  {type: "port", port, sync, sandbox}  the MessagePort to the model worker (sent first),
//               and one to the page's run_python interpreter (sandbox.mjs)
//               {id, type: "run", code, namespace}
// Messages out: {type: "progress", part: "python", stage, loaded, total} | {type: "ready", python, warm}
//               {type: "python-error", error} | {id, type: "stdout" | "stderr", text}
//               {id, type: "result", value} | {id, type: "error", error}

import { countingFetch, fetchBytes, loadManifest } from "./fetching.mjs";
import { answerBuffer, askAndWait } from "./answer.mjs";
import { cachedSnapshot, dropSnapshot, saveSnapshot, snapshotKey } from "./snapshot.mjs";
import { mark, timeline } from "./timeline.mjs";

mark("python: worker running");

const HERE = new URL("./", import.meta.url);
let SYNC = null; // "atomics" | "jspi" | null, from the page's first message

let pyodide = null;
let manifest = null; // runtime.json (hooks/runtime.py)
const namespaces = new Map(); // page key -> Python dict shared by that page's cells
let toModel = null; // Promise of the MessagePort to model.mjs
let sandboxPort = null; // the MessagePort to the page's run_python interpreter (sandbox.mjs)

// Pyodide fetches its wasm and stdlib with fetch(): globalThis.fetch counts them (see below)
const fetchCounted = countingFetch((loaded, stage) =>
  postMessage({ type: "progress", part: "python", stage, loaded, total: manifest?.bytes.python ?? 0 }),
);

// ---- asking the model worker -------------------------------------------------------------------

let answers = null; // atomics: the SharedArrayBuffer the model worker answers into
const awaited = new Map(); // jspi: question id -> {resolve, reject}
let lastQuestion = 0;

/** One question to model.mjs: a value (atomics: this thread blocked until it came) or a Promise (jspi). */
function ask(port, type, args) {
  if (SYNC === "atomics") {
    answers ??= answerBuffer();
    return askAndWait(answers, (reply) => port.postMessage({ type, args, reply }));
  }
  const id = ++lastQuestion;
  return new Promise((resolve, reject) => {
    awaited.set(id, { resolve, reject });
    port.postMessage({ id, type, args });
  });
}

function listen(port) {
  port.onmessage = ({ data }) => {
    const { resolve, reject } = awaited.get(data.id);
    awaited.delete(data.id);
    if ("error" in data) reject(new Error(data.error));
    else resolve(data.value);
  };
  return port;
}

/** Float32Arrays again (they travelled as JSON arrays): lllm/web/browser.py reads them as memoryviews. */
function asForward(out) {
  return { logits: Float32Array.from(out.logits), h: Float32Array.from(out.h), c: Float32Array.from(out.c) };
}

/**
 * What lllm/web/browser.py sees as the module `_lllm_page`: each model's card and the token loop,
 * every function naming its model. One question to the model worker per predictor call.
 */
function pageModule(port, sandbox) {
  const then = (answer, f) => (answer instanceof Promise ? answer.then(f) : f(answer));
  return {
    sandbox: (message) => ask(sandbox, "sandbox", [message]), // lllm/web/sandbox.py: run_python's interpreter
    chat: (question) => ask(sandbox, "chat", [question]), // lllm/web/yourmodel.py: the page streams it (chat.mjs)
    mcp: (call) => ask(sandbox, "mcp", [call]), // lllm/web/page_tools.py: the page sends tools/call (../tools/mcp-client.mjs)
    card_json: (name) => ask(port, "card", [name]),
    generate: (name, ids, maxNewTokens, temperature, topK, topP, rngState, stop) =>
      ask(port, "generate", [name, Array.from(ids), maxNewTokens, temperature, topK, topP, rngState, Array.from(stop ?? [])]),
    forward: (name, ids, h, c) =>
      then(ask(port, "forward", [name, Array.from(ids), h ? Array.from(h) : null, c ? Array.from(c) : null]), asForward),
  };
}

// ---- Python: Pyodide from our own origin, lllm unpacked from its wheel ----------------------------
// A warm start restores a memory snapshot instead of starting Python: the first start in a browser
// (Pyodide started, lllm unpacked and its page modules imported) is saved as a snapshot of the wasm
// memory (snapshot.mjs); the next start loads it and skips the interpreter's start-up and those
// imports. An engine that refuses it, or a snapshot that does not restore, falls back to a cold
// start (and the snapshot is dropped).
const WARM_IMPORTS = "import lllm.web.browser, lllm.web.demos"; // what every widget runs first

// loadPyodide sizes the wasm memory from the snapshot, so it starts compiling its wasm only once it
// holds the whole snapshot. So this worker fetches and compiles pyodide.asm.wasm itself, from the
// moment the manifest names it (beside the snapshot's lookup and read), and answers Pyodide's own
// fetch and instantiateStreaming of that file with that compiled module (Pyodide takes no compiled
// module as an option). Measured with snapshot.mjs's smaller snapshot, warm lllm.ready() in Firefox
// went from 1.3-2.0 s to 0.8-0.9 s.
let compiled = null; // {url, module: Promise of the WebAssembly.Module, placeholder: Response}
globalThis.fetch = (input, init) =>
  compiled && String(input) === compiled.url ? Promise.resolve(compiled.placeholder) : fetchCounted(input, init);
const instantiateStreaming = WebAssembly.instantiateStreaming;
WebAssembly.instantiateStreaming = async (source, imports) => {
  const response = await source;
  if (!compiled || response !== compiled.placeholder) return instantiateStreaming(response, imports);
  const module = await compiled.module.catch(() => null);
  if (!module) return instantiateStreaming(fetchCounted(compiled.url), imports); // as if we had not tried
  const instance = await WebAssembly.instantiate(module, imports);
  mark("python: wasm instantiated");
  return { module, instance };
};

function compileEarly(url) {
  compiled = { url, module: WebAssembly.compileStreaming(fetchCounted(url)), placeholder: new Response(null) };
  compiled.module.then(
    () => mark("python: wasm compiled"),
    () => {},
  ); // a failure: instantiateStreaming falls back
}

// Importing pyodide.mjs compiles a wasm module of a few hundred bytes (its error marker), with the
// asynchronous WebAssembly.compile, and loadPyodide waits for it before it instantiates Python. In
// Firefox that small compile queued behind the big ones already running (Pyodide's and, in the
// other worker, onnxruntime-web's 14 MB): Python's instance came up to 0.3 s after its wasm had
// compiled. A module that small compiles synchronously in well under a millisecond, so it does so.
async function importPyodide(pyBase) {
  const compile = WebAssembly.compile;
  WebAssembly.compile = (bytes, ...rest) => {
    if (bytes.byteLength > 4096) return compile(bytes, ...rest);
    try {
      return Promise.resolve(new WebAssembly.Module(bytes));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  try {
    return await import(new URL("pyodide.mjs", pyBase).href);
  } finally {
    WebAssembly.compile = compile;
  }
}

// The lllm wheel's files, unpacked here rather than by pyodide.unpackArchive: that runs Python's
// zipfile, and right after a warm start Python runs in the engine's first, slowest wasm tier (WebKit
// took 0.3-1.5 s to unpack the wheel after a warm start; Chromium 0.04-0.08 s). The wheel is read
// and inflated (DecompressionStream) while Pyodide starts, then written into its file system:
// [[path, bytes], ...], or null where this engine cannot (unpackArchive then does it). A cold start
// keeps them with its memory snapshot (snapshot.mjs), so a warm start neither reads nor inflates the
// wheel (200 small inflates took up to 2 s in WebKit on a busy machine). They are
// written by loadPyodide's fsInit hook, before Python starts, into the site-packages it names; all
// but the .dist-info, written once Python has started: loadPyodide lists the distributions it finds
// in site-packages in pyodide.loadedPackages, which a memory snapshot refuses to hold.
const ZIP_END = 0x06054b50,
  ZIP_ENTRY = 0x02014b50,
  ZIP_LOCAL = 0x04034b50;

async function unzip(buffer) {
  if (typeof DecompressionStream !== "function") return null;
  const bytes = new Uint8Array(buffer),
    view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== ZIP_END) end--;
  if (end < 0) throw new Error("the lllm wheel is not a zip file");
  const names = new TextDecoder();
  const files = [];
  for (let at = view.getUint32(end + 16, true), n = view.getUint16(end + 10, true); n > 0; n--) {
    if (view.getUint32(at, true) !== ZIP_ENTRY) throw new Error("the lllm wheel's directory is damaged");
    const method = view.getUint16(at + 10, true),
      size = view.getUint32(at + 20, true),
      nameLength = view.getUint16(at + 28, true),
      local = view.getUint32(at + 42, true);
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (name.endsWith("/")) continue;
    if (view.getUint32(local, true) !== ZIP_LOCAL || (method !== 0 && method !== 8)) throw new Error(`cannot unpack ${name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + size);
    files.push([name, method === 0 ? Promise.resolve(data) : inflate(data)]);
  }
  return Promise.all(files.map(async ([name, data]) => [name, await data]));
}

const inflate = async (data) =>
  new Uint8Array(await new Response(new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"))).arrayBuffer());

function writeFiles(FS, dir, files) {
  for (const [name, data] of files) {
    const path = `${dir}/${name}`;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, data);
  }
}

/** loadPyodide's fsInit: the wheel's files but its .dist-info into site-packages; `written.rest`,
 *  a function that writes the .dist-info, once they are written. */
function writePackage(unpacked, written) {
  return async (FS, { sitePackages }) => {
    const files = await unpacked;
    if (!files) return;
    const meta = ([name]) => name.split("/")[0].endsWith(".dist-info");
    writeFiles(
      FS,
      sitePackages,
      files.filter((f) => !meta(f)),
    );
    written.rest = () => writeFiles(FS, sitePackages, files.filter(meta));
    mark("python: lllm unpacked");
  };
}

async function startPyodide(loadPyodide, pyBase, snapshot, fsInit) {
  const options = { indexURL: pyBase, stdout: () => {}, stderr: () => {}, fsInit };
  return loadPyodide(snapshot ? { ...options, _loadSnapshot: snapshot } : { ...options, _makeSnapshot: true });
}

async function loadPython() {
  manifest = await loadManifest(HERE);
  fetchCounted.readFrom(manifest.cache);
  fetchCounted.stage("Downloading Python");
  const pyBase = new URL(manifest.pyodide, HERE).href;
  compileEarly(new URL("pyodide.asm.wasm", pyBase).href);
  const key = snapshotKey(HERE, manifest);
  const found = cachedSnapshot(key);
  // the wheel's files: kept with the snapshot, else read from the wheel (only then fetched)
  let wheel = null;
  const wheelBytes = () => (wheel ??= fetchBytes(fetchCounted, new URL(manifest.wheel, HERE).href, "the lllm wheel"));
  const unpacked = found
    .then((snapshot) => snapshot?.files)
    .then((files) => files ?? wheelBytes().then(unzip))
    .catch(() => null); // null: unpackArchive below says what is wrong
  unpacked.then(() => mark("python: lllm's files at hand"));
  // loadPyodide imports pyodide.asm.mjs (1.2 MB) only once it has started: import it now, beside
  // pyodide.mjs, and loadPyodide's import finds it loaded.
  const asm = import(new URL("pyodide.asm.mjs", pyBase).href);
  asm.catch(() => {}); // loadPyodide imports it again and reports a failure
  const [{ loadPyodide }, snapshot] = await Promise.all([importPyodide(pyBase), found]);
  snapshot?.bytes.then(
    () => mark("python: snapshot read"),
    () => {},
  );
  let warm = false;
  const written = { rest: null };
  const fsInit = writePackage(unpacked, written);
  if (snapshot) {
    try {
      pyodide = await startPyodide(loadPyodide, pyBase, snapshot.bytes, fsInit);
      warm = true;
    } catch {
      dropSnapshot(key);
    }
  }
  if (!warm) pyodide = await startPyodide(loadPyodide, pyBase, null, fsInit);
  mark("python: started");
  fetchCounted.stage("Installing lllm");
  // The wheel's files live in the JavaScript side of the file system, which a snapshot does not
  // hold: unpack them every time (fsInit above did); modules imported before the snapshot stay imported.
  if (written.rest) written.rest();
  else {
    const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
    pyodide.unpackArchive(await wheelBytes(), "wheel", { extractDir: sitePackages });
    mark("python: lllm unpacked");
  }
  if (!warm) {
    pyodide.runPython(WARM_IMPORTS);
    try {
      saveSnapshot(key, pyodide.makeMemorySnapshot(), (await unpacked) ?? []);
    } catch {
      /* this engine or build cannot: every start is cold */
    }
  }
  const port = await toModel; // awaited only now: it reached this worker up to 0.25 s late in Chromium on a busy machine
  if (!SYNC) throw new Error("no way to block on the model (neither JSPI nor cross-origin isolation)");
  pyodide.registerJsModule("_lllm_page", pageModule(port, sandboxPort));
  mark("python: ready");
  return warm;
}

// ---- Pydantic, only for code that uses the native runtime or the protocol ---------------------------
// hooks/wheels.py serves five pinned, hash-checked wheels (pydantic, its wasm core and three pure
// helpers) and lists them in vendor/wheels/wheels.json; they load the first time a cell needs them.
const NEEDS_PYDANTIC =
  /runtimes\.native|lllm\.protocol|pydantic|labs\.debate|\b(Tactic|Prompt|Dialog|DefaultTagParser|CallContext|as_tactic)\b|from lllm import [^\n]*\b(Agent|tool|Function|Message|Runtime)\b/;
let pydanticReady = null;
function loadPydanticFor(code) {
  if (!NEEDS_PYDANTIC.test(code)) return Promise.resolve();
  pydanticReady ??= fetch(new URL("vendor/wheels/wheels.json", HERE))
    .then((r) => {
      if (!r.ok) throw new Error(`Could not download the Pydantic wheel list: HTTP ${r.status}`);
      return r.json();
    })
    .then(({ wheels }) =>
      pyodide.loadPackage(
        wheels.map((w) => new URL(`vendor/wheels/${w}`, HERE).href),
        { messageCallback: () => {} },
      ),
    );
  return pydanticReady;
}

async function runCell(msg) {
  await loadPydanticFor(msg.code);
  const key = msg.namespace ?? "default";
  if (!namespaces.has(key)) namespaces.set(key, pyodide.globals.get("dict")());
  const { run_cell } = pyodide.pyimport("lllm.web.browser");
  const emit = (type) => (text) => postMessage({ id: msg.id, type, text });
  const args = [msg.code, namespaces.get(key), emit("stdout"), emit("stderr")];
  // atomics: a plain call (this thread blocks inside it); jspi: run_sync needs a promising entry
  const result = SYNC === "atomics" ? run_cell(...args) : await run_cell.callPromising(...args);
  const value = result.toJs({ dict_converter: Object.fromEntries });
  result.destroy();
  return value;
}

// ---- start-up and the message loop ---------------------------------------------------------------

let gotPort;
toModel = new Promise((resolve) => {
  gotPort = resolve;
});
const pythonReady = loadPython();
pythonReady.then(
  (warm) => postMessage({ type: "ready", python: pyodide.version, warm, timeline }),
  (e) => postMessage({ type: "python-error", error: String(e.message ?? e) }),
);

self.onmessage = async ({ data: msg }) => {
  if (msg.type === "port") {
    SYNC = msg.sync;
    sandboxPort = listen(msg.sandbox);
    return gotPort(listen(msg.port));
  }
  try {
    await pythonReady;
    postMessage({ id: msg.id, type: "result", value: await runCell(msg) });
  } catch (e) {
    postMessage({ id: msg.id, type: "error", error: String(e.message ?? e) });
  }
};
