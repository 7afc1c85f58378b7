// The course: progress per unit, shown as bars, statuses, nav marks, "Continue" and a summary.
// Read course.yml (the units) and hooks/course.py (what it puts in the pages and in
// assets/course/course.json) first; progress lives in the quiz store (../quiz/store.mjs).
//
// A unit has four steps, each done at a time (ms since 1970) or not yet (null):
//   read       every page of the unit was read part by part: each of its sections (the text under
//              each h2, and the part before the first) was in view for a time scaled by its length
//              (READ_MS_PER_WORD, between READ_MIN_MS and READ_MAX_MS), tracked with an
//              IntersectionObserver while the tab is visible; a jump to the end is not reading
//              (marks "read:<page>", set here; marks set by the old rule, a scroll to the end, stay)
//   ran        the unit's run page had a demo or cell run to the end ("ran:<page>", from the
//              "lllm:ran" event that cells.mjs and demos.mjs send)
//   quiz       its quiz passed on a first attempt: each question's FIRST answer (store.first, kept
//              through "Reset this quiz") and >= 80 % of them right; a pass after the answers were
//              shown does not count ("answers seen")
//   exercise   its code exercise passed against the hidden checks before its solution was shown
//              (its first answer passed; "Show the solution" marks it seen, not passed)
// Test hook: `window.lllmReadingScale = 0.01` (set before the page runs) multiplies every section's
// reading time, so a browser test can read a page honestly in seconds (tests/browser/test_course_marks_browser.py).
// The bar counts steps (4 per unit). Everything is redrawn on "lllm:progress" (the store fires it
// on every write) and on "storage" (another tab wrote). Setup runs from document$ (instant navigation).

import * as store from "../quiz/store.mjs";
import "../quiz/recovery.mjs"; // every page checks that saved progress is readable (its notice)
import { el } from "../runtime/dom.mjs";

const ROOT = new URL("../../", import.meta.url); // the site root: this file is assets/course/course.mjs
const STEPS = ["read", "ran", "quiz", "exercise"];
const READ_MS_PER_WORD = 100; // 600 words a minute: a quick read, well under a careful one
const READ_MIN_MS = 2000,
  READ_MAX_MS = 60000,
  READ_TICK_MS = 250;
const spent = new Map(); // page -> ms in view per section, kept across instant navigation
let reading = null; // the current page's tracker: {observer, timer}
let course = null;

// ---- a unit's state -----------------------------------------------------------------------------------

export function unitState(unit, marks = store.marks(), get = store.get) {
  const reads = unit.pages.map((p) => marks[`read:${p.src}`]);
  const records = unit.questions.map(get).filter((r) => r && r.correct !== undefined);
  const right = records.filter((r) => r.correct).length;
  const firsts = unit.questions.map((id) => marks[`first:${id}`]);
  const attempt = store.firstAttempt(unit.questions, marks);
  const exercise = marks[`first:${unit.exercise}`];
  const state = {
    read: reads.every(Boolean) ? Math.max(...reads.map((m) => m.last)) : null,
    ran: marks[`ran:${unit.run}`]?.last ?? null,
    quiz: attempt.state === "passed" ? Math.max(...firsts.filter(Boolean).map((f) => f.last || 0)) : null,
    exercise: exercise?.correct === true ? (exercise.last ?? null) : null,
  };
  const done = STEPS.filter((s) => state[s] !== null).length;
  return {
    ...state,
    pagesRead: reads.filter(Boolean).length,
    right,
    total: unit.questions.length,
    attempt,
    exerciseSeen: Boolean(exercise && !exercise.correct),
    done,
    complete: done === STEPS.length,
    at: done === STEPS.length ? Math.max(...STEPS.map((s) => state[s])) : null,
  };
}

const begun = (s) => Boolean(s.done || s.pagesRead || s.right); // anything at all done in a unit
const pathOf = (url) => new URL(url, ROOT).pathname;
const pageKey = (path) => path.replace(/index\.html$/, ""); // /x/ and /x/index.html are one page
const samePath = (a, b) => pageKey(a) === pageKey(b);

function currentPage() {
  for (const unit of course.units) {
    for (const page of unit.pages) if (samePath(location.pathname, pathOf(page.url))) return { unit, page };
  }
  return null;
}

// ---- small DOM helpers (el is ../runtime/dom.mjs's) ------------------------------------------------------

const day = (ms) => new Date(ms).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
const link = (url, text) => el("a", { href: new URL(url, ROOT).href }, text);

// ---- the widgets ------------------------------------------------------------------------------------------

function progressBar(states) {
  const steps = states.reduce((n, s) => n + s.done, 0),
    total = STEPS.length * states.length;
  const units = states.filter((s) => s.complete).length;
  const percent = Math.round((100 * steps) / total);
  const fill = el("span", { class: "lllm-course-bar__fill" });
  fill.style.width = `${percent}%`;
  const bar = el(
    "div",
    {
      class: "lllm-course-bar",
      role: "progressbar",
      "aria-label": "Course progress",
      "aria-valuemin": "0",
      "aria-valuemax": "100",
      "aria-valuenow": String(percent),
      "aria-valuetext": `${percent} %: ${units} of ${states.length} units done`,
    },
    fill,
  );
  return el(
    "div",
    { class: "lllm-course-progress__inner" },
    bar,
    el("p", { class: "lllm-course-progress__text" }, `${units} of ${states.length} units done · ${steps} of ${total} steps (${percent} %)`),
  );
}

/** The unit to continue: the one of the latest mark if unfinished, else the next unfinished one. */
function unitToContinue(states) {
  const marks = Object.entries(store.marks())
    .filter(([k]) => /^(read|ran):/.test(k))
    .sort(([, a], [, b]) => b.last - a.last);
  const src = marks.length ? marks[0][0].split(":").slice(1).join(":") : null;
  const last = course.units.findIndex((u) => u.pages.some((p) => p.src === src));
  const after = states.findIndex((s, i) => i > last && !s.complete);
  return last >= 0 && !states[last].complete ? last : after >= 0 ? after : states.findIndex((s) => !s.complete);
}

/** Where to go next in that unit: its first unread page, its run page, or its quiz. */
function nextStep(states) {
  const n = unitToContinue(states);
  if (n < 0) return null;
  const unit = course.units[n],
    s = states[n];
  const unread = unit.pages.find((p) => !store.marks()[`read:${p.src}`]);
  if (unread) return { unit, url: unread.url, text: unread.title };
  const page = (src) => unit.pages.find((p) => p.src === src);
  if (s.ran === null) return { unit, url: page(unit.run).url, text: `run the demo or a cell on ${page(unit.run).title}` };
  return {
    unit,
    url: `${page(unit.quizPage).url}#quiz-${unit.quiz}`,
    text: s.quiz === null && s.attempt.state === "open" ? unit.quizTitle : `the exercise in ${unit.quizTitle}`,
  };
}

function drawHome(root, states) {
  const next = nextStep(states);
  const started = states.some(begun);
  const line = el("p", { class: "lllm-course-continue" });
  if (!next) line.append("You finished the course. ", link(`${course.course}#your-course-summary`, "See and print your summary"), ".");
  else {
    line.append(
      el("strong", {}, started ? "Continue where you left off: " : "Start the course: "),
      link(next.url, `Unit ${next.unit.number} · ${next.unit.title} — ${next.text}`),
    );
  }
  root.replaceChildren(progressBar(states), line);
}

function checks(unit, s) {
  const item = (done, text) =>
    el(
      "li",
      { "data-done": done ? "yes" : "no" },
      el("span", { class: "lllm-course-check", "aria-hidden": "true" }, done ? "✓" : "○"),
      " ",
      text,
    );
  return el(
    "ul",
    { class: "lllm-course-checks" },
    item(s.read !== null, s.read !== null ? "Read" : `Read: ${s.pagesRead} of ${unit.pages.length} pages, section by section`),
    item(s.ran !== null, s.ran !== null ? "Ran" : "Run: not yet"),
    el(
      "li",
      { "data-done": s.quiz !== null ? "yes" : "no", "data-first": s.attempt.state },
      el("span", { class: "lllm-course-check", "aria-hidden": "true" }, s.quiz !== null ? "✓" : "○"),
      " ",
      s.attempt.state === "passed"
        ? `Quiz: passed on a first attempt (${s.attempt.right} of ${s.total} right)`
        : s.attempt.state === "seen"
          ? `Quiz: answers seen — ${s.attempt.right} of ${s.total} right on the first attempt (${s.attempt.needed} needed); a later pass does not count`
          : `Quiz: ${s.attempt.answered} of ${s.total} answered on a first attempt (${s.attempt.needed} right needed)`,
    ),
    item(
      s.exercise !== null,
      s.exercise !== null ? "Exercise passed" : s.exerciseSeen ? "Exercise: solution seen, not passed" : "Exercise: not passed yet",
    ),
  );
}

function drawUnits(states) {
  for (const [i, unit] of course.units.entries()) {
    const box = document.querySelector(`[data-unit-status="${unit.id}"]`);
    if (!box) continue;
    const s = states[i];
    const head = el("strong", {}, s.complete ? `Done on ${day(s.at)}.` : begun(s) ? "In progress." : "Not started.");
    box.replaceChildren(head, checks(unit, s));
    box.closest(".lllm-course-unit")?.setAttribute("data-complete", s.complete ? "yes" : "no");
  }
}

function drawSummary(root, states) {
  const complete = states.every((s) => s.complete);
  root.hidden = !complete;
  document.body.classList.toggle("lllm-course--printable", complete);
  if (!complete) return root.replaceChildren();
  const finished = Math.max(...states.map((s) => s.at));
  const rows = course.units.map((unit, i) => {
    const s = states[i];
    return el(
      "tr",
      {},
      el("td", {}, `${unit.number} · ${unit.title}`),
      ...STEPS.map((step) => el("td", {}, day(s[step]))),
      el("td", {}, `${s.right} of ${s.total}`),
    );
  });
  const table = el(
    "table",
    {},
    el("thead", {}, el("tr", {}, ...["Unit", "Read", "Ran", "Quiz", "Exercise", "Quiz score"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows),
  );
  root.replaceChildren(
    el(
      "p",
      { class: "lllm-course-summary__title" },
      el("strong", {}, `${course.title}: all ${course.units.length} units completed`),
      ` on ${day(finished)}.`,
    ),
    el(
      "p",
      {},
      `Each unit: every page read part by part, a demo or cell run, its quiz passed on a first attempt (80 % or better) and its code exercise passed against hidden checks before its solution was shown. Kept in this browser only; printed ${day(Date.now())}.`,
    ),
    el("div", { class: "md-typeset__scrollwrap" }, el("div", { class: "md-typeset__table" }, table)),
    el(
      "p",
      { class: "lllm-course-summary__actions" },
      el("button", { type: "button", class: "md-button md-button--primary", onclick: () => window.print() }, "Print the summary"),
    ),
  );
}

/** Beside every unit page in the navigation: ✓ the unit is done, ◐ started, ○ not started. */
function markNav(states) {
  document.querySelectorAll(".lllm-course-mark").forEach((m) => m.remove());
  const unitOf = new Map(); // a unit page's path -> its unit's index: one lookup per link, not one per page
  course.units.forEach((u, i) =>
    u.pages.forEach((p) => {
      const key = pageKey(pathOf(p.url));
      if (!unitOf.has(key)) unitOf.set(key, i); // the first unit that lists a page, as before
    }),
  );
  for (const a of document.querySelectorAll(".md-nav--primary a.md-nav__link[href]")) {
    const url = new URL(a.getAttribute("href"), location.href); // instant navigation makes hrefs absolute
    const i = url.hash ? -1 : (unitOf.get(pageKey(url.pathname)) ?? -1);
    if (i < 0) continue; // not a unit page, or a heading of one
    const s = states[i],
      state = s.complete ? "done" : begun(s) ? "started" : "todo";
    const words = { done: "done", started: "in progress", todo: "not started" }[state];
    a.append(
      el(
        "span",
        { class: "lllm-course-mark", "data-state": state, title: `Course unit ${i + 1}: ${words}` },
        el("span", { "aria-hidden": "true" }, { done: "✓", started: "◐", todo: "○" }[state]),
        el("span", { class: "md-visually-hidden lllm-visually-hidden" }, ` (course unit ${i + 1}: ${words})`),
      ),
    );
  }
  // The marks' legend, under the navigation's list (the Course page has it in full).
  document.querySelectorAll(".lllm-course-legend--nav").forEach((l) => l.remove());
  const list = document.querySelector(".md-nav--primary > .md-nav__list");
  if (list && list.querySelector(".lllm-course-mark")) {
    list.append(
      el(
        "li",
        { class: "md-nav__item lllm-course-legend--nav", "data-course-legend": "nav" },
        "Course marks: ✓ unit done · ◐ started · ○ not started",
      ),
    );
  }
}

function draw() {
  if (!course) return;
  const states = course.units.map((u) => unitState(u));
  for (const root of document.querySelectorAll("[data-course-progress]")) {
    if (root.dataset.courseProgress === "home") drawHome(root, states);
    else root.replaceChildren(progressBar(states));
  }
  drawUnits(states);
  const summary = document.querySelector("[data-course-summary]");
  if (summary) drawSummary(summary, states);
  markNav(states);
}

// ---- what the reader does: read to the end, run ------------------------------------------------------------

/** The page's sections: the part before the first h2, then each h2 with what follows it (a quiz's
 *  own section is left out: reading does not ask for the quiz). Each: {elements, ms} (time it needs). */
function sectionsOf(article) {
  const sections = [];
  let current = { elements: [], words: 0 };
  const scale = Number.isFinite(window.lllmReadingScale) && window.lllmReadingScale >= 0 ? window.lllmReadingScale : 1;
  for (const node of article.children) {
    if (node.classList.contains("lllm-course-sentinel")) continue;
    if (node.tagName === "H2") {
      if (current.elements.length) sections.push(current);
      current = { elements: [], words: 0, quiz: node.id.startsWith("quiz-") };
    }
    current.elements.push(node);
    if (!node.matches(".lllm-quiz")) current.words += (node.textContent.match(/\S+/g) || []).length;
  }
  if (current.elements.length) sections.push(current);
  return sections
    .filter((s) => !s.quiz)
    .map((s) => ({
      ...s,
      ms: scale * Math.min(READ_MAX_MS, Math.max(READ_MIN_MS, s.words * READ_MS_PER_WORD)),
    }));
}

function watchReading() {
  if (reading) {
    reading.observer.disconnect();
    clearInterval(reading.timer);
    reading = null;
  }
  const here = currentPage();
  const article = document.querySelector(".md-content__inner");
  if (!here || !article) return;
  let sentinel = article.querySelector(".lllm-course-sentinel");
  if (!sentinel) {
    sentinel = el("div", { class: "lllm-course-sentinel", "aria-hidden": "true" });
    article.append(sentinel);
  }
  const key = `read:${here.page.src}`;
  const sections = sectionsOf(article);
  const times = spent.get(here.page.src) || sections.map(() => 0);
  spent.set(here.page.src, times);
  const show = () => {
    // for the reader's tools and the tests: how many sections are read
    const read = sections.filter((s, i) => times[i] >= s.ms).length;
    sentinel.dataset.sections = String(sections.length);
    sentinel.dataset.sectionsRead = String(read);
    return read === sections.length;
  };
  if (store.marks()[key] || !sections.length) {
    show();
    return;
  }
  const visible = sections.map(() => 0); // how many of a section's elements are in view
  const sectionOf = new Map();
  sections.forEach((s, i) => s.elements.forEach((e) => sectionOf.set(e, i)));
  const seen = new Set();
  const io = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const i = sectionOf.get(e.target);
        if (e.isIntersecting && !seen.has(e.target)) {
          seen.add(e.target);
          visible[i] += 1;
        } else if (!e.isIntersecting && seen.has(e.target)) {
          seen.delete(e.target);
          visible[i] -= 1;
        }
      }
    },
    { rootMargin: "-10% 0px -10% 0px" },
  ); // in view: inside the middle 80 % of the window
  sectionOf.forEach((_, e) => io.observe(e));
  let then = performance.now();
  const timer = setInterval(() => {
    const now = performance.now(),
      dt = now - then;
    then = now;
    if (document.visibilityState !== "visible" || !sentinel.isConnected) return;
    visible.forEach((n, i) => {
      if (n > 0) times[i] += dt;
    });
    if (show()) {
      io.disconnect();
      clearInterval(timer);
      reading = null;
      store.mark(key);
    }
  }, READ_TICK_MS);
  reading = { observer: io, timer };
  show();
}

function onRan() {
  const here = course && currentPage();
  if (here) store.mark(`ran:${here.page.src}`);
}

let loading = null;

async function load() {
  try {
    const response = await fetch(new URL("assets/course/course.json", ROOT));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    course = await response.json();
  } catch (e) {
    console.warn("The course could not be loaded:", e);
    return;
  }
  document.addEventListener("lllm:ran", onRan);
  window.addEventListener("lllm:progress", draw);
  window.addEventListener("storage", draw);
}

async function setUp() {
  loading ??= load();
  await loading;
  if (!course) return;
  draw();
  watchReading();
}

if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(() => setUp());
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => setUp());
else setUp();
