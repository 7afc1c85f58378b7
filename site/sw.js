// The service worker: every page a reader opens works offline afterwards, and no file is downloaded
// twice. Why our own (≈110 lines) rather than Workbox: the file list is written by the build
// (hooks/offline.py prepends it to this file, with a hash of every file), so what Workbox adds —
// its build tool to make that list, or a bundler to load its modules — would be the bigger part.
//
// self.LLLM_OFFLINE = {version, files: {url: hash}, shell: [url], pages: {url: title}, runtime: [url],
// onUse: [folder]}
// (the line above this comment in public/sw.js). What is saved, and when:
//   install   the shell (the CSS and JavaScript every page loads, the 404 page) and the page being
//             read. The browser fetched them a moment ago, so the requests are revalidations
//             (304, no body), not second downloads.
//   as used   everything else the site serves, the moment it passes through (fetch handler): the
//             pages a reader opens, the runtime's files as the runtime workers download them
//             (lllm.mjs starts them only once this worker controls the page, for this reason).
//   "keep"    offline.mjs lists what the page loaded before this worker took it over: saved too.
//   "rest"    every other page and file but the onUse folders (Mermaid's chunks, search languages:
//             saved when used), and the runtime's unused parts (the other model), only
//             when offline.mjs asks: after the runtime has answered, and only when the connection
//             allows (not with Save-Data or on a 2G/3G connection).
//
// One cache per build, named by the build's hash: a new deploy installs beside the old one and
// takes over only when every tab of the old one is closed or the reader accepts the reload
// offline.mjs offers; then the old cache is deleted. A file whose hash did not change is copied
// from the old cache on install, so a deploy never downloads what the reader already has.

const { version, files, shell, pages, runtime, onUse } = self.LLLM_OFFLINE;
const CACHE = `lllm-${version}`;
const ROOT = new URL("./", self.location).href;
const LISTING = "lllm-files.json";   // each cache keeps the {url: hash} it was made from
const absolute = (path) => new URL(path, ROOT).href;
const relative = (url) => (url.startsWith(ROOT) ? url.slice(ROOT.length).split("#")[0] : null);
// Checked with the server, never taken on trust from the browser's HTTP cache: a file the old
// version fetched can still look fresh there (heuristic freshness), and a new version must not be
// saved with an old page in it. An unchanged file costs a 304, not a second download.
const fresh = (path) => new Request(absolute(path), { cache: "no-cache" });
const REST = Object.keys(files).filter((p) => runtime.includes(p) || !onUse.some((folder) => p.startsWith(folder)));

/** Save the listed files this cache does not have yet (unknown URLs are ignored). */
async function save(list) {
  const cache = await caches.open(CACHE);
  const missing = [];
  for (const path of new Set(list))
    if (path in files && !(await cache.match(absolute(path)))) missing.push(path);
  await Promise.all(missing.map(async (path) => {
    const response = await fetch(fresh(path));
    if (response.ok) await cache.put(absolute(path), response);
  }));
}

/** Copy from older caches every file whose hash is the same in this build. */
async function carryOver(cache) {
  for (const name of await caches.keys()) {
    if (!name.startsWith("lllm-") || name === CACHE) continue;
    const old = await caches.open(name);
    const listing = await old.match(absolute(LISTING));
    if (!listing) continue;
    const oldFiles = await listing.json();
    for (const [path, hash] of Object.entries(files)) {
      if (oldFiles[path] !== hash || (await cache.match(absolute(path)))) continue;
      const hit = await old.match(absolute(path));
      if (hit) await cache.put(absolute(path), hit);
    }
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.put(absolute(LISTING), new Response(JSON.stringify(files), { headers: { "Content-Type": "application/json" } }));
    await carryOver(cache);
    const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    await save([...shell, ...open.map((client) => relative(client.url)).filter((p) => p !== null)]);
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys())
      if (name.startsWith("lllm-") && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

async function state() {
  const cache = await caches.open(CACHE);
  const has = async (path) => Boolean(await cache.match(absolute(path)));
  const saved = [];
  for (const path of Object.keys(pages)) if (await has(path)) saved.push(path);
  const runtimeSaved = (await Promise.all(runtime.map(has))).every(Boolean);
  const all = runtimeSaved && (await Promise.all(REST.map(has))).every(Boolean);
  return { type: "offline-state", version, saved, titles: pages, runtime: runtimeSaved, all };
}

self.addEventListener("message", (event) => {
  const reply = (message) => event.source?.postMessage(message);
  const failed = (e) => reply({ type: "offline-state", version, error: `not every file could be saved for offline use: ${e.message}` });
  const { type, urls } = event.data ?? {};
  if (type === "keep") event.waitUntil(save(urls.map((url) => relative(url) ?? "")).then(state).then(reply, failed));
  else if (type === "rest") event.waitUntil(save(REST).then(state).then(reply, failed));
  else if (type === "state") event.waitUntil(state().then(reply));
  else if (type === "take-over") self.skipWaiting();
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
