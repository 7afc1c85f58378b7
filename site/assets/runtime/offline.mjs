// Offline after the first visit: registers the service worker (sw.js at the site root, which
// explains what it caches and when) and shows its state in the footer — "Available offline"
// once the pages are saved, "…with live code" once the runtime is too. The runtime is saved only
// after this tab has started it (a reader who never runs code never downloads it). When a new
// deploy's service worker is waiting, the footer offers a reload instead of mixing versions.
// document.documentElement.dataset.offline is "" | "pages" | "all" (for tests and styles).

import { lllm } from "./lllm.mjs";

const ROOT = new URL("../../", import.meta.url);   // this file is assets/runtime/offline.mjs
let shown = { text: "", reload: false };
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

function show(text, reload = false) {
  shown = { text, reload };
  const node = badge();
  if (!node) return;
  node.replaceChildren(text);
  if (reload) {
    const button = Object.assign(document.createElement("button"), { type: "button", className: "md-button", textContent: "Reload" });
    button.addEventListener("click", async () => {
      const registration = await navigator.serviceWorker.getRegistration(ROOT);
      reloadAsked = true;
      registration?.waiting?.postMessage({ type: "take-over" });
    });
    node.append(" ", button);
  }
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
  const offerReload = () => registration.waiting && sw.controller && show("A new version of this site is ready.", true);
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
if (window.document$) window.document$.subscribe(() => show(shown.text, shown.reload));   // a new page, a new footer
