// Offline after the first visit: registers the service worker (sw.js at the site root, which
// explains what it caches and when) and shows its state in the footer — "Available offline"
// once the pages are saved, "…with live code" once the runtime is too. The runtime is saved only
// after this tab has started it (a reader who never runs code never downloads it). When a new
// deploy's service worker is waiting, the footer offers a reload instead of mixing versions.
// document.documentElement.dataset.offline is "" | "pages" | "all" (for tests and styles).

import { lllm } from "./lllm.mjs";

const ROOT = new URL("../../", import.meta.url);   // this file is assets/runtime/offline.mjs
let status = "";           // what the service worker says it has saved
let newVersion = false;    // a new deploy's service worker is waiting: offer the reload
let reloadAsked = false;   // the reader clicked Reload: the new version's take-over reloads the page

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

// The state and the offer are drawn together, so a late state message never hides the offer, and
// the Reload button is made once: a button replaced between mouse down and up would lose the click.
let reloadButton = null;
function render() {
  const node = badge();
  if (!node) return;
  const text = [status, newVersion && "A new version of this site is ready."].filter(Boolean).join(" ");
  if (newVersion && !reloadButton) {
    reloadButton = Object.assign(document.createElement("button"), { type: "button", className: "md-button", textContent: "Reload" });
    reloadButton.addEventListener("click", async () => {
      const registration = await navigator.serviceWorker.getRegistration(ROOT);
      reloadAsked = true;
      registration?.waiting?.postMessage({ type: "take-over" });
    });
  }
  if (node.firstChild?.nodeType === Node.TEXT_NODE) node.firstChild.data = text;
  else node.prepend(text);
  if (newVersion && reloadButton.parentNode !== node) node.append(" ", reloadButton);
}

function show(text) {
  status = text;
  render();
}

function onState(msg) {
  if (msg.type !== "offline-state") return;
  if (msg.error) return show(`Not available offline: ${msg.error}.`);
  document.documentElement.dataset.offline = msg.runtime ? "all" : msg.pages ? "pages" : "";
  if (msg.pages) show(msg.runtime ? "Available offline, live code included." : "Available offline (live code once you have run it).");
}

async function register() {
  if (!("serviceWorker" in navigator)) return;   // e.g. a private window in some browsers: online only
  const sw = navigator.serviceWorker;
  sw.addEventListener("message", ({ data }) => onState(data));
  sw.addEventListener("controllerchange", () => reloadAsked && location.reload());   // the new version took over
  let registration;
  try {
    registration = await sw.register(new URL("sw.js", ROOT), { scope: ROOT.pathname });
  } catch (e) {
    return show(`Not available offline: the service worker could not be registered (${e.message}).`);
  }
  if (!registration) return;   // service workers turned off (a policy or an automated browser): online only
  const offerReload = () => {
    if (registration.waiting && sw.controller && !newVersion) { newVersion = true; render(); }
  };
  offerReload();
  registration.addEventListener("updatefound", () =>
    registration.installing?.addEventListener("statechange", offerReload));
  const active = (await sw.ready).active;
  active.postMessage({ type: "state" });
  const unsubscribe = lllm.onStatus((s) => {
    if (s.state === "idle") return;
    active.postMessage({ type: "cache-runtime" });   // the reader started the runtime: keep it
    queueMicrotask(() => unsubscribe());
  });
}

register().catch((e) => show(`Not available offline: ${e.message}.`));
if (window.document$) window.document$.subscribe(render);   // a new page, a new footer
