// The inside-the-model page's models (widget.mjs: TinyLLM's inspection graph; gpt-widget.mjs:
// TinyGPT): onnxruntime-web on the page's own thread, one wasm thread, and the model and card that
// runtime.json names. No Python: a page that only looks inside a model needs none.

const RUNTIME = new URL("../runtime/", import.meta.url);

async function download(url, what) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Could not download ${what} (${response.url}): HTTP ${response.status}`);
  return response;
}

/** {ort, session, card} for the runtime.json entry `pick(manifest)` picks; `name` is said in errors,
 *  `absent` when this build has no such model. */
export async function openModel(pick, name, absent) {
  const manifest = await (await download(new URL("runtime.json", RUNTIME), "the runtime manifest")).json();
  const entry = pick(manifest);
  if (!entry || entry.missing) throw new Error(entry?.missing ?? absent);
  const ortBase = new URL(manifest.ort, RUNTIME);
  const ort = await import(new URL("ort.wasm.min.mjs", ortBase).href);
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = ortBase.href;
  ort.env.logLevel = "error";
  const [bytes, card] = await Promise.all([
    download(new URL(entry.model, RUNTIME), name).then((r) => r.arrayBuffer()),
    download(new URL(entry.card, RUNTIME), "its model card").then((r) => r.json()),
  ]);
  const session = await ort.InferenceSession.create(new Uint8Array(bytes), { executionProviders: ["wasm"] });
  return { ort, session, card };
}
