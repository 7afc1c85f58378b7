// The service worker: the site works offline after the first visit. Why our own (≈70 lines)
// rather than Workbox: the precache list is written by the build (hooks/offline.py prepends it
// to this file, with a hash of every listed file), so what Workbox adds — its build tool to
// make that list, or a bundler to load its modules — would be the bigger part of the code.
//
// self.LLLM_OFFLINE = {version, pages: [...], runtime: [...]} (the line above this comment in
// public/sw.js). Two lists, because a reader who never runs code must not download the runtime
// (28 MB): `pages` (every page, the CSS, the JavaScript, the search index) is cached on install;
// `runtime` (Pyodide, onnxruntime-web, the lllm wheel, every model) when a page first starts the
// runtime and says so (offline.mjs posts {type: "cache-runtime"}). Anything else the site serves
// (Mermaid's chunks, say) is cached the first time it is fetched.
//
// One cache per build, named by the build's hash: a new deploy installs beside the old one and
// takes over only when every tab of the old one is closed or the reader accepts the reload
// offline.mjs offers; then the old cache is deleted. So a page never mixes two versions.

const { version, pages, runtime } = self.LLLM_OFFLINE;
const CACHE = `lllm-${version}`;
const ROOT = new URL("./", self.location).href;
const absolute = (path) => new URL(path, ROOT).href;
// Checked with the server, never taken on trust from the browser's HTTP cache: a file the old
// version fetched can still look fresh there (heuristic freshness), and a new version must not be
// saved with an old page in it. An unchanged file costs a 304, not a second download.
const fresh = (path) => new Request(absolute(path), { cache: "no-cache" });

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(pages.map(fresh))));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys())
      if (name.startsWith("lllm-") && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

async function cacheRuntime() {
  const cache = await caches.open(CACHE);
  const missing = [];
  for (const path of runtime) if (!(await cache.match(absolute(path)))) missing.push(fresh(path));
  await cache.addAll(missing);
}

async function state() {
  const cache = await caches.open(CACHE);
  const has = async (list) => (await Promise.all(list.map((p) => cache.match(absolute(p))))).every(Boolean);
  return { type: "offline-state", version, pages: await has(pages), runtime: await has(runtime) };
}

self.addEventListener("message", (event) => {
  const reply = (message) => event.source?.postMessage(message);
  if (event.data?.type === "cache-runtime") event.waitUntil(cacheRuntime().then(state).then(reply, (e) =>
    reply({ type: "offline-state", version, error: `the runtime could not be saved for offline use: ${e.message}` })));
  else if (event.data?.type === "state") event.waitUntil(state().then(reply));
  else if (event.data?.type === "take-over") self.skipWaiting();
});

// Cache first (this build's files never change), then the network, keeping what it sends.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(ROOT)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(request, { ignoreVary: true });
    if (hit) return hit;
    const response = await fetch(request);
    if (response.ok && response.type === "basic") event.waitUntil(cache.put(request, response.clone()));
    return response;
  })());
});
