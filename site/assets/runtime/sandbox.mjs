// run_python's isolated interpreter, the page side. Read lllm/web/sandbox.py first (the Python
// side, in worker.mjs's Pyodide), then sandbox-inside.mjs (the frame's and its worker's code).
//
// Why a frame: the code run_python runs was written by a model, so it is treated as hostile. In the
// page's own Python it could `import js` and reach the Python worker's globals, the site's caches
// (Cache Storage, where sw.js keeps the site for offline use), IndexedDB (the Python snapshot) and
// the origin with fetch. Here it runs in a second Pyodide, in a Web Worker of an
// `<iframe sandbox="allow-scripts" srcdoc>`: its origin is opaque ("null"), so localStorage (the
// learner's progress), Cache Storage and IndexedDB refuse it, no service worker controls it, and
// the site's files are cross-origin to it (COEP and CORS refuse the fetch). Measured in Chromium,
// Firefox ESR and WebKitGTK (December 2026): each gives such a frame `crossOriginIsolated` (the
// frame's `allow="cross-origin-isolated"`), so its worker blocks in CALL_API on Atomics.wait
// exactly as worker.mjs does on the model; Chromium and Firefox start the worker from a Blob,
// WebKit only from a data: URL (hence `worker-src data:` in site/_headers).
//
// Nothing is downloaded twice and nothing is fetched inside: the page reads Pyodide's files
// (already in the service worker's cache or the HTTP cache, as worker.mjs fetched them) and hands
// their bytes to the frame, transferred. Pyodide's JavaScript goes in as the worker's own source
// (a frame inherits the page's CSP, whose script-src takes no blob: import).
//
// Ready before it is asked: a cold start of that Python took 8-34 s, so the frame is started ahead,
// while the page is idle (prestartSandbox, which lllm.mjs calls on a page whose code can call
// run_python, and again after Stop), and its Python is restored from a memory snapshot as the
// page's own is (snapshot.mjs). The frame's origin has no Cache Storage, so this side keeps the
// snapshot, under a name of its own, and hands it over with the files. The snapshot is of a Python
// that has only started, taken by the frame's worker before it runs any code it is given: a
// snapshot taken later could carry what a model's code did into every later run. The frame says how
// it started in `data-lllm-sandbox` ("starting", then "snapshot" or "cold").
//
// The one channel: worker.mjs asks here (one question at a time, its Python blocked) with
// {session, run, budget, source} | {session, result | error} | {session, close}; the answer is the
// worker's next {done: text} or {call_api: [path, params]}. Anything else the frame sends is dropped,
// but for its worker's first {started}. stopSandbox() (lllm.stop) removes the frame, which ends its
// worker; lllm.mjs then prestarts another, and a call that comes first starts it itself.

import { writeAnswer } from "./answer.mjs";
import { frameMain, workerMain } from "./sandbox-inside.mjs";
import { cachedSnapshot, dropSnapshot, hasSnapshot, saveSnapshot, snapshotKey } from "./snapshot.mjs";
import { mark } from "./timeline.mjs";

const HERE = new URL("./", import.meta.url);
const PYODIDE_FILES = { wasm: "pyodide.asm.wasm", stdlib: "python_stdlib.zip", lock: "pyodide-lock.json" };
const INDEX = "https://sandbox.invalid/pyodide/"; // the worker's Pyodide "fetches" from here: its own bytes

const MOMENT_MS = 1000; // a prestart waits this long after it is asked, then for an idle moment

let frame = null; // Promise of {element, port} while a frame lives
let current = null; // {session, answer}: the question worker.mjs is blocked on
let prestarting = false; // a prestart is waiting for the page to be idle

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Could not download ${url} for run_python's interpreter: HTTP ${response.status}`);
  return response;
}

/** One classic script: Pyodide's two modules with their exports made plain, then workerMain. */
function workerSource(asm, main) {
  const exports = /export\s*\{\s*([\w$]+) as loadPyodide,\s*([\w$]+) as version\s*\};?/;
  if (!/export default _createPyodideModule;?\s*$/.test(asm) || !exports.test(main))
    throw new Error("run_python's interpreter does not know this Pyodide build's module layout");
  // Pyodide probes for a classic worker with importScripts("data:..."), which the CSP refuses and
  // Firefox reports as an error: it loads no script here, so the probe gets its answer (no) at once.
  return (
    'globalThis.importScripts = () => { throw new Error("run_python\'s interpreter loads no scripts"); };\n' +
    asm.replace(/export default _createPyodideModule;?\s*$/, "").replaceAll("import.meta.url", JSON.stringify(`${INDEX}pyodide.asm.mjs`)) +
    `\n;(() => {\n${main.replace(exports, "const loadPyodide = $1;").replace(/\/\/# sourceMappingURL=.*$/m, "")}\n` +
    `(${workerMain})(loadPyodide, _createPyodideModule, ${JSON.stringify(INDEX)});\n})();\n`
  );
}

/** This build's snapshot of the frame's Python, or null (none yet, or none readable). */
async function snapshotBytes(key) {
  try {
    return (await (await cachedSnapshot(key))?.bytes) ?? null;
  } catch {
    dropSnapshot(key);
    return null;
  }
}

const manifestAndKey = async () => {
  const manifest = await (await download(new URL("runtime.json", HERE))).json();
  return { manifest, key: snapshotKey(HERE, manifest, "sandbox-snapshot") };
};

/** Whether this build's snapshot of the frame's Python is in this browser's cache. */
export async function snapshotAtHand() {
  return hasSnapshot((await manifestAndKey()).key);
}

async function startFrame() {
  mark("sandbox: frame asked for");
  const { manifest, key } = await manifestAndKey();
  const base = new URL(manifest.pyodide, HERE);
  const text = (name) => download(new URL(name, base)).then((r) => r.text());
  const bytes = (name) => download(new URL(name, base)).then((r) => r.arrayBuffer());
  const [snapshot, asm, main, ...buffers] = await Promise.all([
    snapshotBytes(key),
    text("pyodide.asm.mjs"),
    text("pyodide.mjs"),
    ...Object.values(PYODIDE_FILES).map(bytes),
  ]);
  const files = Object.fromEntries(Object.values(PYODIDE_FILES).map((name, i) => [name, buffers[i]]));
  const element = document.createElement("iframe");
  element.setAttribute("sandbox", "allow-scripts");
  element.setAttribute("allow", "cross-origin-isolated");
  element.setAttribute("aria-hidden", "true");
  element.title = "run_python's isolated interpreter";
  element.hidden = true;
  element.dataset.lllmSandbox = "starting";
  // The page's CSP lets it reach loopback ("your model", chat.mjs); the frame and its worker get none of it.
  element.srcdoc = `<!doctype html><meta http-equiv="Content-Security-Policy" content="connect-src 'none'"><script>(${frameMain})();</script>`;
  const loaded = new Promise((resolve) => element.addEventListener("load", resolve, { once: true }));
  document.body.append(element);
  await loaded;
  const channel = new MessageChannel();
  let startedSaid = false; // only the worker's first message, sent before any code ran, may say how it started
  channel.port1.onmessage = ({ data }) => {
    if (startedSaid || typeof data?.started !== "string") return fromFrame(data);
    startedSaid = true;
    started(element, key, data, snapshot !== null);
  };
  const message = { port: channel.port2, source: workerSource(asm, main), files, snapshot };
  element.contentWindow.postMessage(message, "*", [channel.port2, ...buffers, ...(snapshot ? [snapshot.buffer] : [])]);
  return { element, port: channel.port1 };
}

/** The frame's Python has started: from the snapshot, or cold with a new one to keep. */
function started(element, key, { started: how, snapshot }, offered) {
  element.dataset.lllmSandbox = how === "snapshot" ? "snapshot" : "cold";
  mark(`sandbox: Python started (${element.dataset.lllmSandbox})`);
  if (how === "snapshot") return;
  if (snapshot instanceof Uint8Array) saveSnapshot(key, snapshot);
  else if (offered) dropSnapshot(key); // it did not restore, and this engine makes none to replace it
}

/** Start the frame in a moment, when the page is idle (the reader's own first work comes first);
 *  nothing happens if one is living or on its way. */
export function prestartSandbox() {
  if (frame || prestarting) return;
  prestarting = true;
  const idle = (f) => (typeof requestIdleCallback === "function" ? requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 0));
  setTimeout(
    () =>
      idle(() => {
        prestarting = false;
        if (!frame) liveFrame().catch(() => {}); // a failure is said by the call that needs the frame
      }),
    MOMENT_MS,
  );
}

function newFrame() {
  const starting = startFrame();
  frame = starting;
  starting.catch(() => {
    if (frame === starting) frame = null;
  });
  return starting;
}

/** The living frame, or a new one (a frame that failed to start, or was removed, is started again
 *  once: a new failure is the caller's). */
async function liveFrame() {
  const asked = frame;
  const living = await asked?.catch(() => null);
  if (living?.element.isConnected) return living;
  return frame === asked || frame === null ? newFrame() : frame; // or the one another caller started meanwhile
}

/** The frame's messages: only the answer to the open question, in one of its two shapes. */
function fromFrame(data) {
  if (typeof data?.failed === "string") {
    const waiting = current;
    current = null;
    stopSandbox();
    return waiting?.answer({ error: data.failed });
  }
  if (!current || data?.session !== current.session) return;
  let callApi = null; // a CALL_API goes on as the worker's own JSON text (JavaScript would turn 33.0 into 33)
  try {
    callApi = typeof data.request === "string" ? JSON.parse(data.request).call_api : null;
  } catch {
    /* not JSON: dropped below */
  }
  const isCall = Array.isArray(callApi) && callApi.length === 2 && typeof callApi[0] === "string";
  if (typeof data.done !== "string" && !isCall) return;
  const { answer } = current;
  current = null;
  answer({ value: isCall ? JSON.stringify({ call_api_json: data.request }) : JSON.stringify({ done: data.done }) });
}

/** Answer one of worker.mjs's questions on `port` (its `_lllm_page.sandbox`): through its
 *  SharedArrayBuffer (atomics) or by message (jspi). lllm.mjs imports this module on the first one. */
export async function answerSandbox(port, { id, args: [text], reply }) {
  const answer = (a) => (reply ? writeAnswer(reply, a) : port.postMessage({ id, ...a }));
  try {
    const message = JSON.parse(text);
    if (message.close) {
      frame?.then(
        (f) => f.port.postMessage(message),
        () => {},
      );
      return answer({ value: "{}" });
    }
    const { port: toFrame } = await liveFrame();
    current = { session: message.session, answer };
    toFrame.postMessage("result" in message || "error" in message ? { answer: text } : message);
  } catch (e) {
    answer({ error: String(e.message ?? e) });
  }
}

/** End the isolated interpreter (Stop): its frame goes, and with it the worker, whatever it runs. */
export function stopSandbox() {
  const ending = frame;
  frame = null;
  ending?.then(
    ({ element, port }) => {
      port.postMessage({ stop: true });
      port.close();
      element.remove();
    },
    () => {},
  );
  if (current) current.answer({ error: "Stopped: run_python's interpreter was ended." });
  current = null;
}
