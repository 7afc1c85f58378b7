// Python's memory snapshot, kept in the Cache API for warm starts (worker.mjs explains them): the
// wasm memory of a Python that has started and imported lllm's page modules, keyed by this
// build's Pyodide and wheel. About half of that memory (31 MB) is pages of zeros; they are left out
// of what is stored and put back as the zeros a new buffer starts with, so a warm start reads
// 16 MB from the cache instead of 31 (measured: 75-106 ms -> 45-53 ms in Chromium, 197-242 ms ->
// 71-94 ms in Firefox, in a worker with nothing else running).
//
//   const key = snapshotKey(base, manifest)
//   saveSnapshot(key, pyodide.makeMemorySnapshot(), files)   // after a cold start, off the critical path
//   const found = await cachedSnapshot(key)    // null, or {bytes: Promise of a Uint8Array, files: Promise}
//   await hasSnapshot(key)                            // true or false, without reading it
//   dropSnapshot(key)                                 // a snapshot that did not restore
//
// `files` ([[path, Uint8Array], ...], optional) are kept after the snapshot's pages in the same
// entry: the lllm wheel's files, already inflated (worker.mjs), which a warm start writes into
// Pyodide's file system without reading the wheel (found.files: that list, or null).
//
// run_python's interpreter (sandbox.mjs) keeps its own, a Python that has only started, under
// snapshotKey(base, manifest, "sandbox-snapshot"): each name keeps one build's snapshot.

const SNAPSHOTS = "pyodide-snapshots"; // not "lllm-…": those are the service worker's, one per deploy
const PAGE = 1 << 16; // the wasm page: the unit zeros are left out in
const SIZE = "X-Snapshot-Size"; // the whole snapshot's length in bytes
const RUNS = "X-Snapshot-Runs"; // JSON [[offset, length], ...]: where the stored bytes go
const FILES = "X-Snapshot-Files"; // URI-encoded JSON [[path, length], ...]: the files after them

export function snapshotKey(base, manifest, name = "python-snapshot") {
  const query = new URLSearchParams({ format: "runs", pyodide: manifest.pyodide, wheel: manifest.wheel });
  return new URL(`${name}?${query}`, base).href;
}

const sameName = (a, b) => new URL(a).pathname === new URL(b).pathname;

/** [[offset, length], ...] of the runs of pages of `bytes` that are not all zeros. */
function nonZeroRuns(bytes) {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2); // Pyodide pads it to 16 bytes
  const runs = [];
  for (let start = 0; start < bytes.byteLength; start += PAGE) {
    const end = Math.min(start + PAGE, bytes.byteLength);
    let zero = true;
    for (let i = start >> 2; i < end >> 2 && zero; i++) zero = words[i] === 0;
    if (zero) continue;
    const last = runs.at(-1);
    if (last && last[0] + last[1] === start) last[1] += end - start;
    else runs.push([start, end - start]);
  }
  return runs;
}

/** After a cold start: store the snapshot's non-zero pages (in a moment: off the critical path)
 *  and drop older builds' snapshots of the same name. */
export function saveSnapshot(key, snapshot, files = []) {
  setTimeout(async () => {
    try {
      const runs = nonZeroRuns(snapshot);
      const pages = runs.reduce((n, [, length]) => n + length, 0);
      const stored = new Uint8Array(files.reduce((n, [, data]) => n + data.byteLength, pages));
      let at = 0;
      for (const [offset, length] of runs) {
        stored.set(snapshot.subarray(offset, offset + length), at);
        at += length;
      }
      for (const [, data] of files) {
        stored.set(data, at);
        at += data.byteLength;
      }
      const cache = await caches.open(SNAPSHOTS);
      for (const request of await cache.keys()) if (sameName(request.url, key)) await cache.delete(request);
      const headers = { "Content-Type": "application/octet-stream", [SIZE]: String(snapshot.byteLength), [RUNS]: JSON.stringify(runs) };
      if (files.length) headers[FILES] = encodeURIComponent(JSON.stringify(files.map(([path, data]) => [path, data.byteLength])));
      await cache.put(key, new Response(stored, { headers }));
    } catch {
      /* a full disk or no Cache API: the next start is cold again */
    }
  }, 0);
}

/** {bytes: Promise of the whole snapshot, files: Promise of its files or null} when this build's
 *  snapshot is cached, else null. The body is read while Pyodide starts (loadPyodide accepts the Promise). */
export async function cachedSnapshot(key) {
  try {
    const hit = await (await caches.open(SNAPSHOTS)).match(key);
    if (!hit) return null;
    const size = Number(hit.headers.get(SIZE)),
      runs = JSON.parse(hit.headers.get(RUNS)),
      listed = hit.headers.get(FILES);
    const files = listed ? JSON.parse(decodeURIComponent(listed)) : [];
    const body = hit.arrayBuffer().then((buffer) => {
      const stored = new Uint8Array(buffer),
        snapshot = new Uint8Array(size); // zeros
      let at = 0;
      for (const [offset, length] of runs) {
        snapshot.set(stored.subarray(at, at + length), offset);
        at += length;
      }
      const found = files.map(([path, length]) => [path, stored.slice(at, (at += length))]); // not views: the pages may go
      if (at !== stored.length) throw new Error("the stored snapshot does not match its runs");
      return { snapshot, files: listed ? found : null };
    });
    const filesFound = body.then(
      (b) => b.files,
      () => null,
    );
    return { bytes: body.then((b) => b.snapshot), files: filesFound };
  } catch {
    return null; // no Cache API here (an insecure origin, some private modes): always cold
  }
}

/** Whether this build's snapshot is cached, without reading it. */
export async function hasSnapshot(key) {
  try {
    return Boolean(await (await caches.open(SNAPSHOTS)).match(key));
  } catch {
    return false;
  }
}

export function dropSnapshot(key) {
  caches
    .open(SNAPSHOTS)
    .then((cache) => cache.delete(key))
    .catch(() => {});
}
