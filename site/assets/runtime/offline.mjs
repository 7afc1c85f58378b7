// Offline after a visit: registers the service worker (sw.js at the site root, which explains what
// it saves and when) and shows its state in the footer: which pages are available offline (a list
// to open), and whether live code is too. Pages are saved as they are opened; the rest of the site
// only after this tab's runtime has answered and gone idle, and only when the connection allows
// (no Save-Data, not 2G/3G), so a first visit downloads each file once and nothing it does not use.
// When a new deploy's service worker is waiting, the footer offers a reload instead of mixing versions.
// The switch is fragile in Chromium: the new worker's skipWaiting() stops the old one, and a request
// from this page reaching the old worker while it stops starts it again — the new one then waits for
// it to sit idle (30 s of no request; never while DevTools or a test driver is attached). So once the
// reader clicks Reload, this page sends the old worker nothing of its own, and asks for the take-over
// only after what the click itself set off (it may scroll the page, and a code cell coming near
// loads the editor, ../editor/editor.mjs) has been requested. A request the browser makes itself (a
// favicon) can still land in that moment; then, after RETRY_MS, the page reloads: a navigation makes
// Chromium ask the old worker to stop again (asking the new one to take over again does not). That
// navigation carries SWITCH, so the old worker leaves it to the network (sw.js: stopped while it
// answered, it left the page half-loaded for good); the page it brings is not all this version's
// (what it loads can still come from the old worker), so once the new worker has taken over it
// reloads once more, now wholly the new version. The reader's ask is kept for the tab.
// document.documentElement.dataset.offline is "" | "pages" (this page is saved) | "all" (everything).

import { lllm } from "./lllm.mjs";

const ROOT = new URL("../../", import.meta.url); // this file is assets/runtime/offline.mjs
const SWITCH = "lllm-switch"; // a navigation the old worker leaves to the network (sw.js)
const arrived = new URL(location.href);
if (arrived.searchParams.has(SWITCH)) {
  // the address as the reader had it
  arrived.searchParams.delete(SWITCH);
  history.replaceState(history.state, "", arrived);
}
let saved = null; // the service worker's last offline-state message
let newVersion = false; // a new deploy's service worker is waiting: offer the reload
const ASKED = "lllm.reload-asked"; // sessionStorage: the reader of this tab asked for the new version
const QUIET_MS = 300,
  SETTLE_MAX_MS = 3000,
  RETRY_MS = 5000,
  RETRIES = 2;
const asked = () => {
  try {
    return Number(sessionStorage.getItem(ASKED)) || 0;
  } catch {
    return 0;
  }
};
const ask = (n) => {
  try {
    if (n) sessionStorage.setItem(ASKED, String(n));
    else sessionStorage.removeItem(ASKED);
  } catch {
    /* blocked */
  }
};
let reloadAsked = asked() > 0; // the new version's take-over reloads the page

/** Reload if the new version has not taken over in RETRY_MS (see above), at most RETRIES times. */
function retryLater() {
  const tries = asked();
  if (tries > RETRIES) return;
  setTimeout(() => {
    ask(tries + 1);
    const url = new URL(location.href);
    url.searchParams.set(SWITCH, String(tries));
    location.replace(url);
  }, RETRY_MS);
}

/** After two frames (observers a scroll sets off run in a frame), until no file has finished loading
 *  for QUIET_MS (a file that loads another has led to it), at most SETTLE_MAX_MS. A request still
 *  on its way is harmless: the old worker stops once it has answered. An observer, not the
 *  resource list, which stops growing when full. */
async function settled() {
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  for (let i = 0; i < 2; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
  const start = performance.now();
  let last = start;
  const observer = new PerformanceObserver(() => {
    last = performance.now();
  });
  observer.observe({ type: "resource" });
  while (performance.now() - last < QUIET_MS && performance.now() - start < SETTLE_MAX_MS) await wait(50);
  observer.disconnect();
}

function badge() {
  const footer = document.querySelector(".md-footer-meta__inner");
  if (!footer) return null;
  let node = footer.querySelector(".lllm-offline");
  if (!node) {
    node = Object.assign(document.createElement("p"), { className: "lllm-offline" });
    node.setAttribute("role", "status");
    footer.append(node);
  }
  return node;
}

const here = () => location.href.slice(ROOT.href.length).split(/[?#]/)[0];

/** "Available offline: this page and 3 others you opened, live code included." and the list. */
function describeState(state) {
  if (!state) return { text: "", list: [] };
  if (state.error) return { text: `Not available offline: ${state.error}.`, list: [] };
  const total = Object.keys(state.titles).length,
    n = state.saved.length;
  const code = state.runtime ? ", live code included." : " (live code once you have run it).";
  if (state.all) return { text: `Available offline: every page${code}`, list: [] };
  if (!n) return { text: "", list: [] };
  const others = state.saved.includes(here()) ? n - 1 : n;
  const text = state.saved.includes(here())
    ? `Available offline: this page${others ? ` and ${others} other${others > 1 ? "s" : ""} you opened` : ""}${code}`
    : `Available offline: ${n} of ${total} pages${code}`;
  return { text, list: state.saved.map((url) => [url, state.titles[url] ?? url]) };
}

// The state and the offer are drawn together, so a late state message never hides the offer, and
// the Reload button is made once: a button replaced between mouse down and up would lose the click.
let reloadButton = null;
function render() {
  const node = badge();
  if (!node) return;
  const { text: status, list } = describeState(saved);
  const text = [status, newVersion && "A new version of this site is ready."].filter(Boolean).join(" ");
  if (newVersion && !reloadButton) {
    reloadButton = Object.assign(document.createElement("button"), { type: "button", className: "md-button", textContent: "Reload" });
    reloadButton.addEventListener("click", async () => {
      if (reloadAsked) return;
      reloadAsked = true;
      ask(1);
      await settled();
      const registration = await navigator.serviceWorker.getRegistration(ROOT);
      registration?.waiting?.postMessage({ type: "take-over" });
      retryLater();
    });
  }
  if (node.firstChild?.nodeType === Node.TEXT_NODE) node.firstChild.data = text;
  else node.prepend(text);
  let details = node.querySelector("details");
  if (list.length > 1) {
    details ??= node.appendChild(Object.assign(document.createElement("details"), { className: "lllm-offline__pages" }));
    const links = list.map(([url, title]) => {
      const a = Object.assign(document.createElement("a"), { href: new URL(url, ROOT).href, textContent: title.replace(/ - LLLM$/, "") });
      const li = document.createElement("li");
      li.append(a);
      return li;
    });
    const summary = Object.assign(document.createElement("summary"), { textContent: "Pages saved on this device" });
    details.replaceChildren(summary, Object.assign(document.createElement("ul"), {}));
    details.lastChild.append(...links);
  } else details?.remove();
  if (newVersion && reloadButton.parentNode !== node) node.append(" ", reloadButton);
}

function onState(msg) {
  if (msg.type !== "offline-state") return;
  saved = msg;
  document.documentElement.dataset.offline = msg.error ? "" : msg.all ? "all" : msg.saved.includes(here()) ? "pages" : "";
  render();
}

function show(error) {
  onState({ type: "offline-state", error });
}

// The rest of the site is saved in the background once the runtime has answered and is idle (so it
// never competes with a first answer), and only on a connection that can afford it.
const IDLE_MS = 2000;
function connectionAllows() {
  const c = navigator.connection;
  return !c || (!c.saveData && !["slow-2g", "2g", "3g"].includes(c.effectiveType));
}
function whenIdle(callback) {
  let quiet = 0;
  const timer = setInterval(() => {
    quiet = lllm.busy ? 0 : quiet + 250;
    if (quiet >= IDLE_MS) {
      clearInterval(timer);
      callback();
    }
  }, 250);
}

/** What this page loaded before the service worker controlled it (its first visit). */
function loadedByThisPage() {
  const urls = performance.getEntriesByType("resource").map((entry) => entry.name);
  return [location.href.split("#")[0], ...urls].filter((url) => url.startsWith(ROOT.href));
}

async function register() {
  if (!("serviceWorker" in navigator)) return; // e.g. a private window in some browsers: online only
  const sw = navigator.serviceWorker;
  sw.addEventListener("message", ({ data }) => onState(data));
  sw.addEventListener("controllerchange", () => {
    if (reloadAsked) {
      ask(0);
      location.reload();
    }
  }); // the new version took over
  let registration;
  try {
    registration = await sw.register(new URL("sw.js", ROOT), { scope: ROOT.pathname });
  } catch (e) {
    return show(`the service worker could not be registered (${e.message})`);
  }
  if (!registration) return; // service workers turned off (a policy or an automated browser): online only
  // A new version is a worker waiting while another one controls this page, never the one that does:
  // Firefox, busy, can tell this page of its first worker's "installed" after that worker has
  // claimed it (measured: a first visit then offered a reload, and never asked for the rest).
  const waitingNew = () => Boolean(registration.waiting && sw.controller && registration.waiting !== sw.controller);
  const offerReload = () => {
    if (waitingNew() && !newVersion) {
      newVersion = true;
      render();
    }
  };
  offerReload();
  if (reloadAsked && newVersion)
    retryLater(); // reloaded by retryLater: still the old version
  else if (reloadAsked && asked() > 1) {
    // brought by retryLater, and the new version has taken over
    ask(0);
    return location.reload();
  } else if (reloadAsked) {
    ask(0);
    reloadAsked = false;
  } // the new version is here
  registration.addEventListener("updatefound", () => registration.installing?.addEventListener("statechange", offerReload));
  const active = (await sw.ready).active;
  if (reloadAsked) return; // a page about to be replaced saves nothing and asks nothing
  active.postMessage({ type: "keep", urls: loadedByThisPage() });
  let restAsked = false;
  const unsubscribe = lllm.onStatus((s) => {
    if (s.state !== "ready" || restAsked) return;
    restAsked = true;
    queueMicrotask(() => unsubscribe());
    // not for a version about to be replaced (its cache goes with it), nor during the switch (above)
    whenIdle(() => connectionAllows() && !(newVersion && waitingNew()) && active.postMessage({ type: "rest" }));
  });
  if (window.document$) window.document$.subscribe(() => reloadAsked || active.postMessage({ type: "state" }));
}

register().catch((e) => show(e.message));
if (window.document$) window.document$.subscribe(render); // a new page, a new footer
