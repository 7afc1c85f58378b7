// Downloads for the runtime workers (model.mjs, worker.mjs): the manifest, whole files with a
// readable error, and a fetch that counts the bytes it has seen so the page can show progress.

/** runtime.json, written by hooks/runtime.py: where each piece is and how many bytes to expect. */
export async function loadManifest(base) {
  const response = await fetch(new URL("runtime.json", base));
  if (!response.ok) throw new Error(`Could not download the runtime manifest (${response.url}): HTTP ${response.status}`);
  return response.json();
}

/**
 * A fetch that reports onProgress(bytesSoFar, stage) as bodies arrive; `.stage(name)` names what
 * is being done now (and reports it). Pyodide and onnxruntime-web call globalThis.fetch for their
 * wasm, so a worker installs this as its globalThis.fetch.
 */
export function countingFetch(onProgress) {
  const plainFetch = globalThis.fetch.bind(globalThis);
  const seen = new Map();   // url -> bytes so far
  let stage = "Starting";
  const report = () => {
    let total = 0;
    for (const n of seen.values()) total += n;
    onProgress(total, stage);
  };
  const counted = async (input, init) => {
    const response = await plainFetch(input, init);
    const url = typeof input === "string" ? input : input.url ?? String(input);
    if (response.ok && response.body) {
      // Count a clone, return the original: wasm keeps its streaming compile and code cache.
      const reader = response.clone().body.getReader();
      (async () => {
        for (let n = 0; ;) {
          const { done, value } = await reader.read();
          if (done) break;
          n += value.byteLength;
          seen.set(url, n);
          report();
        }
      })().catch(() => {});
    }
    return response;
  };
  counted.stage = (name) => { stage = name; report(); };
  return counted;
}

/** The bytes at url, or an Error naming `what` and why it could not be downloaded. */
export async function fetchBytes(fetcher, url, what) {
  let response;
  try {
    response = await fetcher(url);
  } catch (e) {
    throw new Error(`Could not download ${what} (${url}): ${e.message}`);
  }
  if (!response.ok) throw new Error(`Could not download ${what} (${url}): HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}
