// A run link: a run spec (lllm/timetravel/runfile.py: "lllm-run"), base64url JSON in the #run= fragment.
// The time-travel widget writes and reads it (timetravel.mjs); Python reads the same spec:
// lllm/web/timetravel.py.

/** The link to this page that opens `spec` in its time-travel widget. */
export const toLink = (spec) => {
  const bytes = new TextEncoder().encode(JSON.stringify(spec));
  const b64 = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return `${location.origin}${location.pathname}#run=${b64}`;
};

/** The spec a `#run=` fragment holds, or an Error saying the link cannot be read. */
export function fromFragment(hash) {
  const b64 = hash.slice("#run=".length).replace(/-/g, "+").replace(/_/g, "/");
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new Error("The link's run could not be read: after #run= it must be base64url-encoded JSON.");
  }
}
