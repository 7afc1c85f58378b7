// Downloads for the runtime workers (model.mjs, worker.mjs): the manifest, whole files with a
// readable error, and a fetch that counts the bytes it has seen so the page can show progress.

/** runtime.json, written by hooks/runtime.py: where each piece is and how many bytes to expect.
 *  `cache` is the service worker's cache it came from (sw.js names it in a header), or null. */
export async function loadManifest(base) {
  const response = await fetch(new URL("runtime.json", base));
  if (!response.ok) throw new Error(`Could not download the runtime manifest (${response.url}): HTTP ${response.status}`);
  return { ...(await response.json()), cache: response.headers.get("X-LLLM-Cache") };
}

/**
 * A fetch that reports onProgress(bytesSoFar, stage) as bodies arrive; `.stage(name)` names what
 * is being done now (and reports it). Pyodide and onnxruntime-web call globalThis.fetch for their
 * wasm, so a worker installs this as its globalThis.fetch.
 *
 * `.readFrom(name)` makes it take a file straight from the service worker's cache `name` when it
 * is there (the cache the manifest came from, so the same build's files) and ask the network,
 * that is the service worker, only for what is not. The same bytes, one hop fewer: a worker's
 * fetch answered by the service worker streamed 2.5 MB in 170-270 ms in Firefox, and the same
 * file read from the cache in the worker took 25-50 ms.
 */
export function countingFetch(onProgress) {
  const plainFetch = globalThis.fetch.bind(globalThis);
  const seen = new Map(); // url -> bytes so far
  let stage = "Starting";
  let cache = null; // Promise of the Cache to read from first, or null
  const report = () => {
    let total = 0;
    for (const n of seen.values()) total += n;
    onProgress(total, stage);
  };
  const cached = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : null;
    if (!cache || !url || (init?.method ?? "GET") !== "GET" || init?.integrity) return null;
    return (await cache)?.match(url).catch(() => null) ?? null; // no cache, or not in it: null
  };
  const counted = async (input, init) => {
    const response = (await cached(input, init)) ?? (await plainFetch(input, init));
    const url = typeof input === "string" ? input : (input.url ?? String(input));
    if (response.ok && response.body) {
      // Count a clone, return the original: wasm keeps its streaming compile and code cache.
      const reader = response.clone().body.getReader();
      (async () => {
        for (let n = 0; ; ) {
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
  counted.stage = (name) => {
    stage = name;
    report();
  };
  // caches.has first: opening a cache a newer deploy has just deleted would make an empty one
  counted.readFrom = (name) => {
    cache =
      name && globalThis.caches
        ? caches
            .has(name)
            .then((there) => (there ? caches.open(name) : null))
            .catch(() => null)
        : null;
  };
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
