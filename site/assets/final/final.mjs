// The course final, in the page (site/course/final.md, `.lllm-final`). Read lllm/labs/final/ first:
// exam.py draws the paper from a seed, record.py reads a record and re-grades it. This file only
// draws and collects: every question, every check and every grade comes from those modules, run in
// the page's Python (window.lllm.run), so the page and `python -m lllm grade` agree by construction.
// The exercise's hidden checks run in run_python's sandbox (an opaque-origin frame, lllm/web/sandbox.py).
//
// Exam mode: no hints and no explanations until it is over; one attempt per seed (the seeds this
// browser has started are kept in localStorage, `lllm.final.v1.seeds`, and a new one is drawn for
// each attempt); a timer that shows the time taken and never stops anyone.
// A record opened from a link (`#record=`, base64url JSON, kept by hooks/overrides/main.html before
// the address can change) or from a file is graded anew: the result says it was re-computed now.

import { codeEditor, KEYS_HINT } from "../editor/editor.mjs";

const SEEDS_KEY = "lllm.final.v1.seeds";
const SEED_MAX = 2 ** 31 - 1;
const SITE_ROOT = new URL("../../", import.meta.url);

// ---- Python: the one place questions and grades come from ----------------------------------------

async function python(body) {
  if (typeof window.lllm.ready === "function") await window.lllm.ready();
  const program = `import base64 as _b64, json as _json
import lllm.runtimes.native.sandbox  # the exercise runs in run_python's sandbox
${body}
_b64.b64encode(_json.dumps(_out).encode()).decode()`;
  const reply = await window.lllm.run(program, { namespace: "lllm-final" });
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(reply.value.slice(1, -1)), (c) => c.charCodeAt(0))));
}

const pyString = (text) => JSON.stringify(String(text)); // a JSON string is a Python string literal

const drawPaper = (seed) =>
  python(`from lllm.labs.final.exam import paper, public, SITE_VERSION
_out = {"paper": public(paper(${Number(seed)})), "version": SITE_VERSION}`);

const regradeText = (text) =>
  python(`from lllm.labs.final.record import RecordError, read_record, regrade
try:
    _out = {"result": regrade(read_record(${pyString(text)}))}
except RecordError as _e:
    _out = {"error": str(_e)}`);

// ---- links and files ------------------------------------------------------------------------------

export function toLink(record) {
  const bytes = new TextEncoder().encode(JSON.stringify(record));
  const b64 = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return `${location.origin}${location.pathname}#record=${b64}`;
}

/** The record text a `#record=` fragment holds (Python checks it), or null when it cannot be read. */
export function fromFragment(hash) {
  try {
    const b64 = hash
      .slice(hash.indexOf("#record=") + "#record=".length)
      .replace(/-/g, "+")
      .replace(/_/g, "/");
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

const pageUrl = (page, anchor) =>
  new URL(page.replace(/(^|\/)index\.md$/, "$1").replace(/\.md$/, "/") + (anchor ? `#${anchor}` : ""), SITE_ROOT).href;

function usedSeeds() {
  try {
    return JSON.parse(localStorage.getItem(SEEDS_KEY) ?? "[]");
  } catch {
    return [];
  }
}

function newSeed() {
  const used = new Set(usedSeeds());
  let seed;
  do {
    seed = 1 + (crypto.getRandomValues(new Uint32Array(1))[0] % SEED_MAX);
  } while (used.has(seed));
  return seed;
}

function markUsed(seed) {
  try {
    localStorage.setItem(SEEDS_KEY, JSON.stringify([...usedSeeds(), seed].slice(-200)));
  } catch {
    /* storage blocked */
  }
}

// ---- drawing ---------------------------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function html(tag, markup, props = {}) {
  // markup from the paper: our own, drawn by exam.py
  const node = el(tag, props);
  node.innerHTML = markup;
  return node;
}

const clock = (seconds) => `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;

function questionView(q) {
  const box = el("fieldset", { className: "lllm-final-q", id: `final-q-${q.n}` });
  box.dataset.id = q.id;
  box.dataset.kind = q.kind;
  box.append(el("legend", { textContent: `Question ${q.n}` }), html("div", q.prompt, { className: "lllm-final-prompt" }));
  if (q.kind === "short") {
    box.append(el("label", {}, "Your answer ", el("input", { type: "text", name: q.id, maxLength: 200, autocomplete: "off" })));
    return box;
  }
  const type = q.kind === "single" ? "radio" : "checkbox";
  for (const key of q.order) {
    const input = el("input", { type, name: q.id, value: String(key) });
    box.append(el("label", { className: "lllm-final-choice" }, input, html("span", q.choices[key].html)));
  }
  return box;
}

function answerOf(box) {
  const inputs = [...box.querySelectorAll("input")];
  if (box.dataset.kind === "short") return inputs[0].value.trim() || undefined;
  const keys = inputs.filter((i) => i.checked).map((i) => Number(i.value));
  if (box.dataset.kind === "single") return keys.length ? keys[0] : undefined;
  return keys.length ? keys : undefined;
}

function resultView(result, record) {
  const out = el("section", { className: `lllm-final-result ${result.passed ? "passed" : "failed"}` });
  out.dataset.passed = String(result.passed);
  out.append(
    el("h3", { textContent: result.passed ? "Passed: the course final" : "Not passed yet: the course final" }),
    el("p", {
      className: "lllm-final-who",
      textContent: `${result.name} · seed ${result.seed} · site version ${result.site_version} · ${clock(result.seconds)} taken`,
    }),
    el("p", {
      className: "lllm-final-now",
      textContent:
        `Re-computed now, in this page, at ${new Date().toLocaleString()}: ` +
        "the questions were drawn again from the seed, each answer checked and the exercise run against its " +
        "hidden checks in the page's sandboxed Python. Nothing here was read from the record but what you did.",
    }),
    el("p", { className: "lllm-final-summary", textContent: result.summary }),
  );
  const table = el(
    "table",
    { className: "lllm-final-checked" },
    el("tr", {}, el("th", { textContent: "Checked" }), el("th", { textContent: "From" }), el("th", { textContent: "Result" })),
  );
  for (const row of result.questions) {
    table.append(
      el(
        "tr",
        {},
        el("td", { textContent: `Question ${row.n}` }),
        el("td", { textContent: row.unit }),
        el("td", { textContent: row.right ? "✓ right" : "✗ not right" }),
      ),
    );
  }
  table.append(
    el(
      "tr",
      {},
      el("td", { textContent: "Exercise" }),
      el("td", { textContent: result.exercise.unit }),
      el("td", { textContent: `${result.exercise.ok ? "✓" : "✗"} ${result.exercise.message}` }),
    ),
  );
  out.append(table);
  if (result.problems.length) {
    out.append(
      el("h4", { textContent: "What did not check" }),
      el("ul", { className: "lllm-final-problems" }, ...result.problems.map((p) => el("li", { textContent: p }))),
    );
  }
  if (result.reread.length) {
    out.append(
      el("h4", { textContent: "Re-read these sections" }),
      el(
        "ul",
        { className: "lllm-final-reread" },
        ...result.reread.map((t) => el("li", {}, el("a", { href: pageUrl(t.page, t.anchor), textContent: t.title }))),
      ),
    );
  }
  out.append(
    el("p", {
      className: "lllm-final-proves",
      textContent:
        "What this proves: these answers and this code " +
        "pass this paper, graded now, nothing taken from the record on trust. What it cannot: who sat the final, or how " +
        "(anyone can sit it for someone else); the time taken was measured in the learner's browser.",
    }),
  );
  if (record) out.append(saveView(record));
  return out;
}

function saveView(record) {
  const text = JSON.stringify(record, null, 1);
  const file = el("a", {
    className: "md-button",
    textContent: "Save the record (a file)",
    download: "final-record.json",
    href: URL.createObjectURL(new Blob([text], { type: "application/json" })),
  });
  const link = el("input", {
    type: "text",
    readOnly: true,
    value: toLink(record),
    className: "lllm-final-link",
    ariaLabel: "The record's link",
  });
  return el(
    "div",
    { className: "lllm-final-save" },
    el("h4", { textContent: "Your completion record" }),
    el("p", {
      textContent:
        "Keep the file, or the link (it holds the whole record; nothing is stored on a server). " +
        "Opening either on this page grades it again.",
    }),
    file,
    el("label", {}, "The link ", link),
  );
}

function problem(root, text) {
  root.querySelector(".lllm-final-status").textContent = text;
}

// ---- the three moments: start, sit, see the result --------------------------------------------------

async function regradeInto(root, text, record = null) {
  problem(root, "Re-grading in this page's Python (the first time, Python starts: up to a minute)…");
  let answer;
  try {
    answer = await regradeText(text);
  } catch (error) {
    return problem(root, `The page's Python could not grade the record: ${String(error.message ?? error).split("\n")[0]}`);
  }
  if (answer.error) return problem(root, answer.error);
  problem(root, "");
  root.querySelector(".lllm-final-body").replaceChildren(resultView(answer.result, record));
}

async function sit(root, name) {
  const seed = newSeed();
  markUsed(seed);
  problem(root, "Drawing your paper in this page's Python (the first time, Python starts: up to a minute)…");
  const { paper, version } = await drawPaper(seed);
  problem(root, "");
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const timer = el("p", { className: "lllm-final-timer", role: "timer", textContent: "Time taken: 0 min 00 s" });
  const tick = setInterval(() => {
    timer.textContent = `Time taken: ${clock(seconds())} (no limit)`;
  }, 1000);
  const textarea = el("textarea", {
    className: "lllm-final-code",
    rows: 10,
    spellcheck: false,
    value: paper.exercise.stub,
    ariaLabel: "Your exercise code",
  });
  const keys = el("p", { className: "lllm-editor__keys", id: `lllm-final-keys-${seed}`, textContent: KEYS_HINT });
  const exercise = el(
    "fieldset",
    { className: "lllm-final-q lllm-final-exercise" },
    el("legend", { textContent: "The exercise" }),
    html("div", paper.exercise.prompt),
    textarea,
    keys,
  );
  const submit = el("button", { className: "md-button md-button--primary", type: "button", textContent: "Hand in and grade" });
  const form = el(
    "div",
    { className: "lllm-final-paper" },
    timer,
    el("p", { textContent: `Seed ${seed}. No hints and no explanations until you hand in; one attempt per seed.` }),
    ...paper.questions.map(questionView),
    exercise,
    submit,
  );
  root.querySelector(".lllm-final-body").replaceChildren(form);
  // CodeMirror replaces the textarea when it comes near (editor.mjs); no draft is kept: one attempt
  const code = codeEditor({
    host: exercise,
    fallback: textarea,
    original: paper.exercise.stub,
    draftKey: null,
    label: "Your exercise code",
    describedBy: keys.id,
  });
  submit.addEventListener(
    "click",
    () => {
      clearInterval(tick);
      const answers = {};
      form.querySelectorAll("fieldset[data-id]").forEach((box) => {
        const value = answerOf(box);
        if (value !== undefined) answers[box.dataset.id] = value;
      });
      const record = {
        schema: "lllm.final-record",
        version: 1,
        name,
        seed,
        site_version: version,
        fingerprint: paper.fingerprint,
        seconds: seconds(),
        answers,
        code: code.value,
        finished: new Date().toISOString(),
      };
      submit.disabled = true;
      regradeInto(root, JSON.stringify(record), record);
    },
    { once: true },
  );
}

function startView(root) {
  const name = el("input", { type: "text", maxLength: 80, className: "lllm-final-name", autocomplete: "name" });
  const start = el("button", { className: "md-button md-button--primary", type: "button", textContent: "Start the final" });
  const file = el("input", { type: "file", accept: "application/json,.json", className: "lllm-final-file" });
  start.addEventListener("click", () => {
    if (!name.value.trim()) return problem(root, "Write the name the record should carry first (1 to 80 characters).");
    start.disabled = true;
    sit(root, name.value.trim()).catch((error) => problem(root, `The page's Python could not draw the paper: ${error.message ?? error}`));
  });
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    if (chosen.size > 64000) return problem(root, "That file is larger than 64000 bytes; a final's record is a few kB.");
    regradeInto(root, await chosen.text());
  });
  root
    .querySelector(".lllm-final-body")
    .replaceChildren(
      el("p", {}, el("label", {}, "Your name, as the record should carry it ", name)),
      start,
      el("p", {}, el("label", {}, "Or open a record to grade it again: ", file)),
    );
}

function setUp(root) {
  if (root.dataset.ready) return;
  root.dataset.ready = "1";
  root.replaceChildren(el("p", { className: "lllm-final-status", role: "status" }), el("div", { className: "lllm-final-body" }));
  const kept = window.lllmRecordLink?.path === location.pathname ? window.lllmRecordLink.hash : location.hash;
  if (kept && kept.startsWith("#record=")) {
    if (kept.length > 100_000) return problem(root, "The link's record is larger than 64000 bytes; a final's record is a few kB.");
    const text = fromFragment(kept);
    if (text === null) return problem(root, "The link's record could not be read: after #record= it must be base64url-encoded JSON.");
    return regradeInto(root, text);
  }
  startView(root);
}

const setUpAll = () => document.querySelectorAll(".lllm-final").forEach(setUp);
if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setUpAll);
else setUpAll();
