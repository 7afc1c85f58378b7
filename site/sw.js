// The service worker: every page a reader opens works offline afterwards, and no file is downloaded
// twice. Why our own (≈130 lines of code) rather than Workbox: the file list is written by the build
// (hooks/offline.py prepends it to this file, with a hash of every file), so what Workbox adds —
// its build tool to make that list, or a bundler to load its modules — would be the bigger part.
//
// self.LLLM_OFFLINE = {version, files: {url: hash}, pages: {url: title}, runtime: [url], onUse: [folder], later: [url]}
// (the line above this comment in public/sw.js). What is saved, and when:
//   install   what an older deploy's cache already holds, for every file whose hash is unchanged.
//   "keep"    the page being read and what it loaded before this worker took it over (offline.mjs
//             lists them), taken only from the browser's HTTP cache ("only-if-cached"): never a
//             second download. WebKit does not answer that from its HTTP cache alone (measured in
//             WebKitGTK under WebDriver), so there they are saved with the rest instead, each taken from the HTTP
//             cache by "force-cache" and checked against the build's hash: no second download
//             either (measured with a profile of its own; the Performance page).
//   as used   everything else the site serves, the moment it passes through (fetch handler): the
//             pages a reader opens, the runtime's files as the runtime workers download them
//             (lllm.mjs starts them only once this worker controls the page, for this reason).
//             Two requests for one file at once share one download.
//   "rest"    every other page and file but the onUse folders (search languages:
//             saved when used) and the `later` files (one widget's model each: TinyGPT's, the
//             inside view's; saved when that widget is used), and the runtime's unused parts
//             (the other model), only
//             when offline.mjs asks: after the runtime has answered, and only when the connection
//             allows (not with Save-Data or on a 2G/3G connection). A few files at a time, each
//             taken from the browser's HTTP cache when it holds this build's bytes (checked
//             against the build's hash): what the page or its workers fetched before this worker
//             controlled them, and "keep" missed (course.json, arriving after the page's list was
//             made; whatever a worker fetched, which the page's list never shows), costs no
//             second request. The reply says rest: "done" (or "failed") when the last file is in.
//
// One cache per build, named by the build's hash: a new deploy installs beside the old one and
// takes over only when every tab of the old one is closed or the reader accepts the reload
// offline.mjs offers; then the old cache is deleted. A file whose hash did not change is copied
// from the old cache on install, so a deploy never downloads what the reader already has.

const { version, files, pages, runtime, onUse, later = [] } = self.LLLM_OFFLINE;
const CACHE = `lllm-${version}`;
const ROOT = new URL("./", self.location).href;
const LISTING = "lllm-files.json"; // each cache keeps the {url: hash} it was made from
const absolute = (path) => new URL(path, ROOT).href;
// Checked with the server, never taken on trust from the browser's HTTP cache: a file the old
// version fetched can still look fresh there (heuristic freshness), and a new version must not be
// saved with an old page in it. An unchanged file costs a 304, not a second download.
const fresh = (path) => new Request(absolute(path), { cache: "no-cache" });
const REST = Object.keys(files).filter((p) => !later.includes(p) && (runtime.includes(p) || !onUse.some((folder) => p.startsWith(folder))));
const LIVE = runtime.filter((p) => !later.includes(p)); // "live code included": what the agents and cells run on

/** The first 12 hex digits of the SHA-256 of `bytes`, as hooks/offline.py writes them. */
async function hashOf(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest.slice(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `path`'s response, from the browser's HTTP cache when it holds this build's bytes ("force-cache"
 *  takes whatever copy is there, however old: the hash says whether it is this build's), else
 *  from the server (`fresh`); a download already under way for it (the page's, `download`) is
 *  shared, both ways, so a file the page and the background caching ask for at once (Material's
 *  search index, held back until the reader searches) is downloaded once. */
async function obtain(path) {
  const url = absolute(path);
  if (downloading.has(url)) return (await downloading.get(url)).clone(); // the page asked first: one download
  const cached = await fetch(new Request(url, { cache: "force-cache" })).catch(() => null);
  if (cached?.ok) {
    const bytes = await cached.arrayBuffer();
    if ((await hashOf(bytes)) === files[path])
      return new Response(bytes, { status: cached.status, statusText: cached.statusText, headers: cached.headers });
  }
  if (downloading.has(url)) return (await downloading.get(url)).clone();
  const original = fetch(fresh(path)); // shared with a page asking for it meanwhile (download)
  downloading.set(url, original);
  original
    .catch(() => {})
    .finally(() => {
      if (downloading.get(url) === original) downloading.delete(url);
    });
  return (await original).clone();
}

const AT_ONCE = 4; // files saved side by side: the reader's next page must not queue behind a hundred

/** Save the listed files this cache does not have yet (unknown URLs are ignored). */
async function save(list) {
  const cache = await caches.open(CACHE);
  const cached = new Set((await cache.keys()).map((request) => request.url));
  const missing = [...new Set(list)].filter((path) => path in files && !cached.has(absolute(path)));
  const next = async () => {
    for (let path; (path = missing.shift()) !== undefined; ) {
      const response = await obtain(path);
      if (response.ok) await cache.put(absolute(path), response);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, next));
}

/** Does this browser answer "only-if-cached" from its HTTP cache alone? Chromium and Firefox do;
 *  WebKit (Safari, every iPhone browser; WebKitGTK measured) sends the request instead, so there
 *  the page's files are saved with the rest. Asked of the engine's name, not with a probe request:
 *  a probe that fails is an error in the page's console in Firefox. */
const cacheOnly = !/AppleWebKit/.test(navigator.userAgent) || /Chrome\/|Chromium\//.test(navigator.userAgent);

/** Save what the page loaded, from the browser's HTTP cache only. */
async function keep(urls) {
  if (!cacheOnly) return;
  const cache = await caches.open(CACHE);
  const cached = new Set((await cache.keys()).map((request) => request.url));
  for (const url of new Set(urls)) {
    if (!url.startsWith(ROOT) || cached.has(url)) continue;
    const response = await fetch(new Request(url, { cache: "only-if-cached", mode: "same-origin" })).catch(() => null);
    if (response?.ok) await cache.put(url, response);
  }
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
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.put(absolute(LISTING), new Response(JSON.stringify(files), { headers: { "Content-Type": "application/json" } }));
      await carryOver(cache);
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith("lllm-") && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

// One listing of the cache, not a lookup per file: every page a reader opens asks for the state,
// and a thousand lookups at once held up the Cache API reads of a runtime starting beside them
// (a warm start's snapshot read).
async function state() {
  const cached = new Set((await (await caches.open(CACHE)).keys()).map((request) => request.url));
  const has = (path) => cached.has(absolute(path));
  const saved = Object.keys(pages).filter(has);
  const runtimeSaved = LIVE.every(has);
  const all = runtimeSaved && REST.every(has);
  return { type: "offline-state", version, saved, titles: pages, runtime: runtimeSaved, all };
}

let resting = null; // the "rest" being saved: a second ask (another tab) waits for it, never downloads again
self.addEventListener("message", (event) => {
  const reply = (message) => event.source?.postMessage(message);
  const failed = (e, more = {}) =>
    reply({ type: "offline-state", version, error: `not every file could be saved for offline use: ${e.message}`, ...more });
  const { type, urls } = event.data ?? {};
  if (type === "keep")
    event.waitUntil(
      keep(urls ?? [])
        .then(state)
        .then(reply, failed),
    );
  else if (type === "rest")
    event.waitUntil(
      (resting ??= save(REST).finally(() => {
        resting = null;
      }))
        .then(state)
        .then(
          (s) => reply({ ...s, rest: "done" }),
          (e) => failed(e, { rest: "failed" }),
        ),
    );
  else if (type === "state") event.waitUntil(state().then(reply));
  else if (type === "take-over") self.skipWaiting();
});

// One download per file at a time: url -> Promise of a response nobody reads; every caller (and
// the cache) gets a clone of it, so two workers asking for runtime.json at once cost one download.
const downloading = new Map();
function download(request, event) {
  let original = downloading.get(request.url);
  if (!original) {
    original = fetch(new Request(request, { cache: "no-cache" })); // never an old deploy's copy (see `fresh`)
    downloading.set(request.url, original);
    event.waitUntil(
      original
        .then(async (response) => {
          if (response.ok && response.type === "basic") await (await caches.open(CACHE)).put(request, response.clone());
        })
        .catch(() => {})
        .finally(() => downloading.delete(request.url)),
    );
  }
  return original.then((response) => response.clone());
}

// The runtime's manifest names the cache it came from: the runtime workers read the files it lists
// from that cache themselves (fetching.mjs explains why), so they read this build's files only.
const MANIFEST = absolute("assets/runtime/runtime.json");
function naming(hit) {
  const headers = new Headers(hit.headers);
  headers.set("X-LLLM-Cache", CACHE);
  return new Response(hit.body, { status: hit.status, statusText: hit.statusText, headers });
}

// A navigation marked SWITCH is a page nudging an old worker to stop during a new version's take-over
// (offline.mjs): it is left to the network, since the old worker can be stopped while it answers and
// Chromium then leaves the page half-loaded for good.
const SWITCH = "lllm-switch";

// Cache first (this build's files never change), then the network, keeping what it sends.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(ROOT)) return;
  if (request.mode === "navigate" && new URL(request.url).searchParams.has(SWITCH)) return;
  // The browser's own prefetch of a page the reader may open next (Firefox, for a <link rel="next">:
  // the built pages write none now, hooks/markup.py): left to the network. Through this worker, Firefox
  // cancelling it when the reader left the page was an error in that page's console.
  if (request.mode === "no-cors" && request.destination === "") return;
  event.respondWith(
    (async () => {
      const hit = await (await caches.open(CACHE)).match(request, { ignoreVary: true });
      if (hit && request.url === MANIFEST) return naming(hit);
      return hit ?? download(request, event);
    })().catch(() => fetch(request)),
  ); // storage cleared or failing under us: the network, as if no worker
});
