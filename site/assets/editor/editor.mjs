// Where a learner types code (a runnable cell, cells.mjs; a quiz's code exercise, quiz/questions.mjs):
// a real editor, CodeMirror 6 (hooks/editor.mjs, bundled by hooks/editor.py into codemirror.mjs
// beside this file, ≈355 KB, ≈120 KB gzip). It is not part of a page's first load: the page shows
// its plain textarea (or the cell's highlighted code, editable) and swaps in the editor when the
// reader touches it (pointer down, focus or a key), keeping what was typed and the focus: a reader
// who reads the code and scrolls on downloads no editor (tests/browser/test_byte_budget_browser.py).
// With window.lllmEager (the test harness: tests/support/runtime.py) it also swaps in when it comes
// within a screen of the viewport, so a test of an editor need not touch it first.
//
//   const code = codeEditor({ host: form, fallback: textarea, original: stub, draftKey: "quiz:gen-pick-code",
//                             labelledBy: promptId, describedBy: hintId, onRun: () => form.requestSubmit() });
//   code.value;  code.value = "...";  code.readOnly = true;  code.forget();  // host.lllmEditor === code
//
// Drafts: every change is kept in localStorage under "lllm.draft.v1:<draftKey>" with the text it
// started from; coming back to the page restores it, unless the page's own version has changed
// since. Keys (editor keymap in hooks/editor.mjs): Tab indents, Escape then Tab leaves the editor,
// Ctrl+Enter runs. KEYS_HINT says so on the page, next to every editor.

const BUNDLE = new URL("./codemirror.mjs", import.meta.url).href;
const PREFIX = "lllm.draft.v1:";
const NEAR = "600px 0px"; // about a screen ahead of the reader
const TOUCH = ["pointerdown", "focusin", "keydown"];
export const KEYS_HINT = "Tab indents. To leave the editor by keyboard, press Escape, then Tab. Ctrl+Enter runs.";

let loading = null;
/** The CodeMirror bundle, fetched once per document. */
export const loadEditor = () => (loading ??= import(BUNDLE));

// ---- drafts ---------------------------------------------------------------------------------------

/** The saved draft for `key`, if it was written over this `original`; else null. */
export function readDraft(key, original) {
  try {
    const saved = JSON.parse(localStorage.getItem(PREFIX + key));
    return saved && saved.from === original && typeof saved.code === "string" ? saved.code : null;
  } catch {
    return null; // storage blocked, or an unreadable entry
  }
}

function writeDraft(key, original, code) {
  try {
    if (code === original) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify({ from: original, code }));
  } catch {
    /* storage full or blocked: the editor still works, the draft is not kept */
  }
}

// ---- one editor -----------------------------------------------------------------------------------

/**
 * Turn `fallback` (a textarea, or a contenteditable <code>; `hide` is what to hide for it, by default
 * itself) into a code editor once it is near or touched. Returns a handle, also set as host.lllmEditor;
 * host.dataset.editor is "waiting" until the editor is in place, then "ready" ("failed" keeps the fallback).
 */
export function codeEditor({ host, fallback, hide = fallback, original, draftKey, labelledBy, label, describedBy, onRun }) {
  const isField = "value" in fallback;
  const readFallback = () => (isField ? fallback.value : fallback.textContent);
  const writeFallback = (text) => {
    if (isField) fallback.value = text;
    else fallback.textContent = text;
  };
  const save = (text) => draftKey && writeDraft(draftKey, original, text);
  let editor = null;
  let readOnly = false;

  const draft = draftKey ? readDraft(draftKey, original) : null;
  if (draft !== null) writeFallback(draft);
  fallback.addEventListener("input", () => save(readFallback()));

  const handle = {
    get value() {
      return editor ? editor.value : readFallback();
    },
    set value(text) {
      if (editor) editor.value = text;
      else writeFallback(text);
      save(text);
    },
    get readOnly() {
      return readOnly;
    },
    set readOnly(on) {
      readOnly = on;
      if (editor) editor.setReadOnly(on);
      else if (isField) fallback.readOnly = on;
      else fallback.contentEditable = on ? "false" : "plaintext-only";
    },
    forget() {
      if (draftKey) writeDraft(draftKey, original, original);
    },
    focus() {
      (editor || fallback).focus();
    },
  };
  host.lllmEditor = handle;
  host.dataset.editor = "waiting";

  async function swap() {
    let made;
    try {
      made = (await loadEditor()).createEditor;
    } catch {
      host.dataset.editor = "failed"; // offline before it was ever saved: the fallback stays
      return;
    }
    if (!hide.isConnected) return; // the reader has already left the page
    const focused = fallback.contains(document.activeElement);
    // a highlighted block's text ends in a newline the page never shows: the editor starts without it
    const mount = document.createElement("div");
    mount.className = "lllm-editor";
    hide.after(mount);
    editor = made({
      parent: mount,
      doc: readFallback().replace(/\n$/, ""),
      labelledBy,
      label,
      describedBy,
      onRun,
      readOnly,
      onChange: save,
    });
    hide.hidden = true;
    host.dataset.editor = "ready";
    if (focused) editor.focus();
  }

  let started = false;
  const go = () => {
    if (started) return;
    started = true;
    observer?.disconnect();
    TOUCH.forEach((type) => fallback.removeEventListener(type, go, true));
    swap();
  };
  TOUCH.forEach((type) => fallback.addEventListener(type, go, true));
  const observer =
    window.lllmEager !== true
      ? null
      : "IntersectionObserver" in window
        ? new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && go(), { rootMargin: NEAR })
        : null;
  if (observer) observer.observe(hide);
  else if (window.lllmEager === true) go();
  return handle;
}
