// Quiz progress in the browser: one record per question id in localStorage, scheduled with SM-2.
// Used by quiz.mjs (whole quizzes) and questions.mjs (one question); knows nothing about the page.
//
// Stored under KEY as {version: 1, questions: {<question id>: record}, course: {<mark>: {last}}}. A record:
//   answer          what the learner last gave (choice indices, text, code and tries used)
//   correct         whether that answer was right (self-graded for reflections)
//   reps, interval, ease, due, last, quality     the SM-2 schedule (times in ms since 1970)
// Keyed by id, so reordering or moving questions keeps their progress.
// Course marks (site/assets/course/course.mjs) sit beside them, keyed "read:<page>" (every section of
// the page was in view long enough to read it; before 2026-12 a scroll to its end set it, and such
// marks stay) and "ran:<page>" (a demo or cell of the page ran to the end), e.g.
// "read:tinyllm/data.md": {last: 1764700000000}. Export and import carry them, with the same rule.
//
// First answers: "first:<question id>": {last, correct, shown?} is a question's first graded answer,
// set once by grade() and never removed: not by "Reset this quiz" (forget), not by a later answer.
// Every graded answer shows the right one (why under each choice, the expected answer, the model
// answer, the solution), so only a first answer was given without having seen it; the course counts
// a quiz on its first answers (course.mjs) and a code exercise only if it passed before its solution
// was shown (shown: true = the learner asked for the solution). Migration: a record from before
// first answers existed (it has `correct` but no "first:" mark) is taken as its first answer on
// every read — old marks stay, the new rule applies to answers given from now on. On import or
// restore the earlier of two first answers wins (for every other record and mark, the latest).
// Every write fires a "lllm:progress" event on window, so widgets can redraw.
//
// Nothing is lost silently. Every write also keeps a copy under KEY + ".saved". If KEY cannot be
// read (not JSON, or a record that is not a record), its text is put aside under KEY + ".corrupt"
// and a fresh store takes its place, so the page works; while that copy waits, `pending()` is true
// and .saved stays as it was (the last readable progress) until the learner chooses (recovery.mjs
// shows the choice on whichever page opens first): `restore()` merges back every record still
// readable in the two (the latest of each wins, as an import does) or `startOver()` deletes them.
//
// SM-2 (Wozniak 1990), as used here. A review is graded with a quality q from 0 to 5:
//   auto-graded questions give 4 when right and 1 when wrong; a code attempt gives 5, 4 or 3 when
//   it passes on the first, second or a later try and 1 when the tries run out; a reflection is
//   graded by the learner: Again 1, Hard 3, Good 4, Easy 5.
//   q >= 3: interval = 1 day, then 6 days, then round(interval * ease); reps += 1
//   q <  3: reps = 0, interval = 1 day (the question comes back tomorrow)
//   ease = max(1.3, ease + 0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)), starting at 2.5
//   due = now + interval days. The Review page lists every question whose due time has passed.

export const KEY = "lllm.quiz.v1";
export const FORMAT = "lllm-quiz-progress/1";
export const DAY = 24 * 60 * 60 * 1000;

let memory = null; // the store when localStorage is blocked (progress lasts until the page closes)
let notice = null; // set when storage is blocked or full (shown once by quiz.mjs)
const ASIDE = KEY + ".corrupt",
  SAVED = KEY + ".saved";

// ---- the schedule -------------------------------------------------------------------------------

/** The SM-2 step: the previous record (or nothing) and a quality 0..5 -> the new schedule fields. */
export function schedule(previous, quality, now = Date.now()) {
  let { reps = 0, interval = 0, ease = 2.5 } = previous || {};
  if (quality >= 3) {
    interval = reps === 0 ? 1 : reps === 1 ? 6 : Math.round(interval * ease);
    reps += 1;
  } else {
    reps = 0;
    interval = 1;
  }
  ease = Math.max(1.3, ease + 0.1 - (5 - quality) * (0.08 + (5 - quality) * 0.02));
  return { reps, interval, ease, due: now + interval * DAY, last: now, quality };
}

export function isDue(record, now = Date.now()) {
  return Boolean(record && typeof record.due === "number" && record.due <= now);
}

// ---- reading and writing ------------------------------------------------------------------------

function validRecord(r) {
  return (
    r &&
    typeof r === "object" &&
    !Array.isArray(r) &&
    ["reps", "interval", "ease", "due", "last", "quality"].every((k) => r[k] === undefined || Number.isFinite(r[k]))
  );
}

function validMarks(course) {
  return (
    course === undefined ||
    (course &&
      typeof course === "object" &&
      !Array.isArray(course) &&
      Object.values(course).every((m) => m && typeof m === "object" && Number.isFinite(m.last)))
  );
}

function validStore(data) {
  return (
    data &&
    typeof data === "object" &&
    data.version === 1 &&
    data.questions &&
    typeof data.questions === "object" &&
    !Array.isArray(data.questions) &&
    Object.values(data.questions).every(validRecord) &&
    validMarks(data.course)
  );
}

/** The store, read afresh each time so that two open tabs never overwrite each other's answers. */
function read() {
  if (memory) return memory;
  let raw;
  try {
    raw = localStorage.getItem(KEY);
  } catch {
    notice = "This browser does not let the page keep quiz progress (storage is blocked); answers last until you leave the page.";
    memory = { version: 1, questions: {} };
    return memory;
  }
  if (raw === null) return { version: 1, questions: {} };
  let data = null;
  try {
    data = JSON.parse(raw);
  } catch {
    /* handled below */
  }
  if (validStore(data)) return migrate(data);
  const fresh = { version: 1, questions: {} };
  try {
    if (localStorage.getItem(ASIDE) === null) localStorage.setItem(ASIDE, raw); // a waiting copy is never replaced
    localStorage.setItem(KEY, JSON.stringify(fresh));
  } catch {
    notice = "Your saved quiz progress could not be read, and this browser's storage is full or blocked.";
  }
  return fresh;
}

/** Records from before first answers were kept count as their question's first answer (see the header). */
function migrate(data) {
  for (const [id, r] of Object.entries(data.questions)) {
    if (r.correct === undefined || data.course?.[`first:${id}`]) continue;
    data.course = { ...(data.course || {}), [`first:${id}`]: { last: Number.isFinite(r.last) ? r.last : 0, correct: r.correct === true } };
  }
  return data;
}

function write(data) {
  if (!memory) {
    try {
      const text = JSON.stringify(data);
      localStorage.setItem(KEY, text);
      if (localStorage.getItem(ASIDE) === null) localStorage.setItem(SAVED, text);
    } catch {
      notice = "Quiz progress could not be saved (storage is full or blocked).";
    }
  }
  window.dispatchEvent(new CustomEvent("lllm:progress"));
}

// ---- unreadable progress: put aside until the learner restores it or starts over -----------------

/** True while an unreadable copy waits for the learner's choice (reading the store first puts it aside). */
export function pending() {
  read();
  try {
    return localStorage.getItem(ASIDE) !== null;
  } catch {
    return false;
  }
}

/** The readable part of a stored or exported text: {questions, course} with only valid records, or null. */
function salvage(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!data || typeof data !== "object" || !data.questions || typeof data.questions !== "object") return null;
  const questions = Object.fromEntries(Object.entries(data.questions).filter(([, r]) => validRecord(r)));
  const course = Object.fromEntries(
    Object.entries(data.course && typeof data.course === "object" ? data.course : {}).filter(([, m]) => validMarks({ m })),
  );
  return { questions, course };
}

/** Bring back what can be read from the copy put aside and the last saved copy; returns how many records. */
export function restore() {
  const data = read();
  const changed = new Set();
  for (const text of [localStorage.getItem(ASIDE), localStorage.getItem(SAVED)]) {
    const found = text === null ? null : salvage(text);
    if (found) merge(data, found.questions, found.course).forEach((k) => changed.add(k));
  }
  localStorage.removeItem(ASIDE);
  write(data);
  return changed.size;
}

/** Delete the unreadable copy (and the saved one with it): progress goes on from what is in the store now. */
export function startOver() {
  localStorage.removeItem(ASIDE);
  write(read());
}

/** A message to show once if storage is blocked or full (unreadable progress is recovery.mjs's notice). */
export function takeNotice() {
  read();
  const message = notice;
  notice = null;
  return message;
}

export function get(id) {
  return read().questions[id] || null;
}

/** Keep an answer in progress (a code attempt's tries) without scheduling a review. */
export function keep(id, answer) {
  const data = read();
  data.questions[id] = { ...(data.questions[id] || {}), answer };
  write(data);
}

/** Grade one answer: store it and move the question's SM-2 schedule on. Returns the record. */
export function grade(id, quality, answer, correct, now = Date.now()) {
  const data = read();
  const record = { ...(data.questions[id] || {}), ...schedule(data.questions[id], quality, now), answer, correct };
  data.questions[id] = record;
  if (!data.course?.[`first:${id}`]) {
    // the first graded answer: kept for good (see the header)
    data.course = {
      ...(data.course || {}),
      [`first:${id}`]: { last: now, correct: Boolean(correct), ...(answer?.shown ? { shown: true } : {}) },
    };
  }
  write(data);
  return record;
}

/** A question's first graded answer ({last, correct, shown?}) or null: what the course counts. */
export function first(id) {
  return read().course?.[`first:${id}`] || null;
}

export const PASS = 0.8; // the course's bar for a quiz (course.mjs and quiz.mjs use it)

/** A quiz's first attempt: each question's first answer (store.first), kept through "Reset this quiz".
 *  state: "passed" (enough first answers right: PASS of the questions), "seen" (too many first
 *  answers wrong to reach PASS: the answers have been shown, so no later pass counts), "open"
 *  (neither yet). */
export function firstAttempt(ids, course = marks()) {
  const firsts = ids.map((id) => course[`first:${id}`]).filter(Boolean);
  const right = firsts.filter((f) => f.correct).length;
  const needed = Math.ceil(PASS * ids.length - 1e-9),
    wrong = firsts.length - right;
  const state = right >= needed ? "passed" : wrong > ids.length - needed ? "seen" : "open";
  return { answered: firsts.length, right, total: ids.length, needed, state };
}

/** Course marks: {"read:<page>": {last}, "ran:<page>": {last}, "first:<id>": {...}} (course.mjs). */
export function marks() {
  return read().course || {};
}

/** Set a course mark once (the first time counts; later calls change nothing). */
export function mark(key, now = Date.now()) {
  const data = read();
  if (data.course?.[key]) return;
  data.course = { ...(data.course || {}), [key]: { last: now } };
  write(data);
}

export function forget(ids) {
  const data = read();
  for (const id of ids) delete data.questions[id];
  write(data);
}

// ---- export and import --------------------------------------------------------------------------

export function exportText(now = new Date()) {
  const data = read();
  return JSON.stringify({ format: FORMAT, exported: now.toISOString(), questions: data.questions, course: data.course || {} }, null, 1);
}

/**
 * Merge an exported file into this browser's progress: for each question (and each course mark)
 * the record reviewed most recently wins; files from before the course (no "course") import too.
 * Throws an Error with a readable message if the text is not such a file.
 */
export function importText(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error("This file is not LLLM quiz progress (it is not JSON).");
  }
  if (!data || data.format !== FORMAT || !validStore({ version: 1, questions: data.questions, course: data.course })) {
    throw new Error(`This file is not LLLM quiz progress (expected "format": "${FORMAT}" and a questions object).`);
  }
  const store = read();
  const changed = merge(store, data.questions, data.course);
  write(store);
  return changed.filter((k) => !k.startsWith("course:")).length;
}

/** Merge records into the store (the record reviewed most recently wins); returns the keys taken. */
function merge(store, questions, course = {}) {
  const taken = [];
  for (const [id, record] of Object.entries(questions)) {
    const mine = store.questions[id];
    if (!mine || (record.last || 0) >= (mine.last || 0)) {
      store.questions[id] = record;
      taken.push(id);
    }
  }
  for (const [key, m] of Object.entries(course || {})) {
    const mine = store.course?.[key];
    const earliest = key.startsWith("first:"); // a first answer: the earlier one is the first
    if (!mine || (earliest ? m.last < mine.last : m.last >= mine.last)) {
      store.course = { ...(store.course || {}), [key]: m };
      taken.push(`course:${key}`);
    }
  }
  return taken;
}
