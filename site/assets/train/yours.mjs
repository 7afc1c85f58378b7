// "Your trained model": the model a reader trained on /tinyllm/train/, kept in this browser's Cache
// Storage (a cache of its own, "tinyllm-yours", which the service worker never clears: it clears only
// its own "lllm-..." caches) so the model worker (../runtime/model.mjs) can open it on any page, as
// the name YOURS, with the same onnxruntime-web code as the site's own models.
//
//   await storeYours(onnxBytes, card)        // the train page, after an export
//   await readYours()                        // -> {bytes, card} or null (nothing trained here yet)
//   await discardYours()                     // the train page's Discard: no model kept any more

export const YOURS = "tinyllm-yours";
const CACHE = "tinyllm-yours";
const MODEL_URL = new URL("yours/tinyllm-yours.onnx", import.meta.url).href; // keys only: never served
const CARD_URL = new URL("yours/tinyllm-yours.json", import.meta.url).href;

/** The SHA-256 of `bytes` as 64 hex digits (the card's onnx_sha256). */
export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Keep the model and its card for every page of this site in this browser. */
export async function storeYours(bytes, card) {
  const cache = await caches.open(CACHE);
  await cache.put(MODEL_URL, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
  await cache.put(CARD_URL, new Response(JSON.stringify(card), { headers: { "Content-Type": "application/json" } }));
}

/** The stored card alone (cheap: is there a model, and which one), or null. */
export async function readYoursCard() {
  if (!globalThis.caches || !(await caches.has(CACHE))) return null; // has(): open() would create it
  const response = await (await caches.open(CACHE)).match(CARD_URL);
  return response ? response.json() : null;
}

/** {bytes, card} of the stored model, or null when none was trained in this browser. */
export async function readYours() {
  if (!globalThis.caches || !(await caches.has(CACHE))) return null;
  const cache = await caches.open(CACHE);
  const [model, card] = await Promise.all([cache.match(MODEL_URL), cache.match(CARD_URL)]);
  if (!model || !card) return null;
  return { bytes: new Uint8Array(await model.arrayBuffer()), card: await card.json() };
}

/** Forget the stored model: every page then says that none was trained in this browser. */
export async function discardYours() {
  if (globalThis.caches) await caches.delete(CACHE);
}
