// The light/dark toggle in the header, in place of Material's palette component. Material's own
// component, as a page starts, adds `color-scheme` and `theme-color` tags to <head>, marks <body>
// as switching, sets its colour attributes and reads the header's computed style: each of these
// makes the browser style the whole page again (four times on a code-heavy page, most of the
// theme's start-up; the performance page has the trace). The build turns that component off
// (hooks/markup.py renames its form's `data-md-component="palette"` to `data-lllm-palette`) and this
// module does the same job with the theme's own markup, attributes and saved choice:
//
// - the palette is the saved one (`__md_get("__palette")`, which Material's inline script in <body>
//   has already applied before the first paint), else the first whose media query matches (a
//   reader whose system is dark gets the dark palette), else the first; an unreadable saved entry
//   counts as none;
// - <body> gets its `data-md-color-*` attributes only where they differ (a light reader's page is
//   not styled again), and a dark palette gets `<meta name="color-scheme" content="dark">` so the
//   browser's own scrollbars and controls follow;
// - the header shows the one button that switches to the other palette; a click (the label is for
//   the other radio) or Enter on the focused radio switches, and the choice is saved as Material
//   saves it, so both read it.
//
// tests/browser/test_palette_browser.py checks it: the first palette, the system's dark palette, a
// switch that is saved and restored, Enter, and that nothing of Material's palette code ran.

const FORM = "form[data-lllm-palette]";
const KEYS = ["media", "scheme", "primary", "accent"];

const colorOf = (input) => Object.fromEntries(KEYS.map((k) => [k, input.getAttribute(`data-md-color-${k}`)]));

function schemeMeta(scheme) {
  let meta = document.head.querySelector("meta[name=color-scheme]");
  if (scheme === "default" && !meta) return; // a light page: leave <head> alone
  if (!meta) meta = document.head.appendChild(Object.assign(document.createElement("meta"), { name: "color-scheme" }));
  const content = scheme === "slate" ? "dark" : "light";
  if (meta.content !== content) meta.content = content;
}

/** Show palette `index` of the form's radios; `save` stores the choice as Material does. */
export function apply(form, index, save = false) {
  const inputs = [...form.querySelectorAll("input")];
  const input = inputs[index];
  input.checked = true;
  const color = colorOf(input);
  const body = document.body;
  const changes = KEYS.filter((k) => body.getAttribute(`data-md-color-${k}`) !== color[k]);
  if (changes.length && save) {
    // no colour transitions while the scheme flips (as Material does)
    body.setAttribute("data-md-color-switching", "");
    requestAnimationFrame(() => requestAnimationFrame(() => body.removeAttribute("data-md-color-switching")));
  }
  for (const key of changes) body.setAttribute(`data-md-color-${key}`, color[key]);
  inputs.forEach((other, i) => {
    const label = other.nextElementSibling;
    if (label instanceof HTMLElement && label.hidden !== (i !== index)) label.hidden = i !== index;
  });
  schemeMeta(color.scheme);
  if (save) window.__md_set?.("__palette", { index, color });
}

function setUp() {
  const form = document.querySelector(FORM);
  if (!form || form.dataset.lllmPaletteReady) return; // instant navigation keeps the header
  form.dataset.lllmPaletteReady = "1";
  const inputs = [...form.querySelectorAll("input")];
  if (!inputs.length) return;
  let saved = null;
  try {
    saved = window.__md_get?.("__palette");
  } catch {
    /* unreadable: as if none (recovery.mjs drops it) */
  }
  let index = Number.isInteger(saved?.index)
    ? saved.index
    : inputs.findIndex((input) => matchMedia(input.getAttribute("data-md-color-media") || "not all").matches);
  index = Math.max(0, Math.min(index, inputs.length - 1));
  apply(form, index);
  form.addEventListener("change", (event) => {
    const i = inputs.indexOf(event.target);
    if (i >= 0) apply(form, i, true);
  });
  form.addEventListener("keydown", (event) => {
    // Enter on the focused radio: the next palette
    if (event.key !== "Enter" || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    const next = inputs[(inputs.indexOf(event.target) + 1) % inputs.length];
    next.click();
    next.focus();
  });
}

if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setUp);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
else setUp();
