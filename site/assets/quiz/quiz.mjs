// Reflect and Attempt: mounts the quizzes hooks/quiz.py put into the page.
//
// A quiz arrives as <div class="lllm-quiz" data-quiz-mode="quiz|review|progress" data-quiz-blob="...">
// whose blob is base64-encoded JSON (so answers are not plain text in the page source or the search
// index). questions.mjs renders and grades one question; store.mjs keeps progress by question id.
// Material's instant navigation swaps page content without re-running this file, so setup runs
// from `document$.subscribe(...)` and is idempotent: a container is set up once (data-quiz-ready).

import * as store from "./store.mjs";
import { el } from "../runtime/dom.mjs";
import { renderQuestion } from "./questions.mjs";

function decode(blob) {
  const bytes = Uint8Array.from(atob(blob), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

function notify(root) {
  const notice = store.takeNotice();
  if (notice) root.prepend(el("p", { class: "lllm-quiz__notice", role: "status" }, notice));
}

// ---- a whole quiz, the review list, the progress table ---------------------------------------------

function score(questions) {
  const records = questions.map((q) => store.get(q.id)).filter((r) => r && r.correct !== undefined);
  return { answered: records.length, right: records.filter((r) => r.correct).length, total: questions.length };
}

export function firstAttemptText(a) {
  if (a.state === "passed")
    return `First attempt: ${a.right} of ${a.total} right — passed on a first attempt (this counts for the course).`;
  if (a.state === "seen")
    return `First attempt: ${a.right} of ${a.total} right — answers seen: the right answers have been shown, so a later pass (after "Reset this quiz") does not count for the course.`;
  return `First attempt: ${a.answered} of ${a.total} answered${a.answered ? `, ${a.right} right` : ""}. The course counts each question's first answer; ${a.needed} right passes.`;
}

function mountQuiz(root, quiz) {
  const status = el("p", { class: "lllm-quiz__score", "aria-live": "polite" });
  const attempt = el("p", { class: "lllm-quiz__first", "aria-live": "polite" });
  const list = el("div", { class: "lllm-quiz__questions" });
  const update = () => {
    const s = score(quiz.questions);
    status.textContent = `Score: ${s.right} of ${s.total} right · ${s.answered} of ${s.total} answered.`;
    const a = store.firstAttempt(quiz.questions.map((q) => q.id));
    attempt.textContent = firstAttemptText(a);
    attempt.dataset.first = a.state;
  };
  const draw = () => {
    list.replaceChildren(...quiz.questions.map((q, i) => renderQuestion(q, i + 1, "quiz", update)));
    update();
  };
  const reset = el(
    "button",
    {
      type: "button",
      class: "md-button lllm-quiz__reset",
      onclick: () => {
        store.forget(quiz.questions.map((q) => q.id));
        draw();
        status.focus();
      },
    },
    "Reset this quiz",
  );
  status.tabIndex = -1;
  root.replaceChildren(
    status,
    attempt,
    list,
    el(
      "p",
      {},
      reset,
      " ",
      el(
        "span",
        { class: "lllm-quiz__reset-note" },
        "Resetting clears your answers to try again for practice; your first attempt stays what the course counts.",
      ),
    ),
  );
  draw();
}

function mountReview(root, quizzes, now = Date.now()) {
  const due = [];
  let next = null;
  for (const quiz of quizzes) {
    for (const q of quiz.questions) {
      const record = store.get(q.id);
      if (store.isDue(record, now)) due.push([quiz, q]);
      else if (record && record.due && (!next || record.due < next)) next = record.due;
    }
  }
  const summary = el("p", { class: "lllm-quiz__score", "aria-live": "polite" });
  root.replaceChildren(summary);
  if (!due.length) {
    summary.textContent =
      "Nothing is due for review." +
      (next
        ? ` The next question comes back on ${new Date(next).toLocaleDateString()}.`
        : " Answer a quiz on any concept page and its questions will come back here when they are due.");
    return;
  }
  let left = due.length;
  const update = () => (summary.textContent = `${left} of ${due.length} due questions left to review.`);
  const list = el("div", { class: "lllm-quiz__questions" });
  due.forEach(([quiz, q], i) => {
    const from = el("p", { class: "lllm-q__from" }, "From ", quiz.url ? el("a", { href: quiz.url }, quiz.title) : quiz.title);
    list.append(
      el(
        "div",
        { class: "lllm-review__item" },
        from,
        renderQuestion(q, i + 1, "review", () => {
          left -= 1;
          update();
        }),
      ),
    );
  });
  root.append(list);
  update();
}

function mountProgress(root, quizzes) {
  const body = el("tbody");
  const message = el("p", { class: "lllm-quiz__message", role: "status" });
  const draw = () => {
    const now = Date.now();
    body.replaceChildren(
      ...quizzes.map((quiz) => {
        const records = quiz.ids.map((id) => store.get(id)).filter((r) => r && r.correct !== undefined);
        const due = quiz.ids.filter((id) => store.isDue(store.get(id), now)).length;
        const a = store.firstAttempt(quiz.ids, store.marks());
        const first = {
          passed: `passed on a first attempt (${a.right} of ${a.total})`,
          seen: `answers seen (${a.right} of ${a.total} on the first attempt)`,
          open: a.answered ? `${a.answered} of ${a.total} answered` : "not started",
        }[a.state];
        const code = (quiz.code || []).map((id) => {
          const f = store.first(id);
          return !f ? "not tried" : f.correct ? "passed" : f.shown ? "solution seen" : "out of tries (solution seen)";
        });
        return el(
          "tr",
          { "data-topic": quiz.topic },
          el("td", {}, quiz.url ? el("a", { href: quiz.url }, quiz.title) : quiz.title),
          el("td", {}, `${records.length} of ${quiz.ids.length}`),
          el("td", {}, String(records.filter((r) => r.correct).length)),
          el("td", { "data-first": a.state }, first),
          el("td", { "data-code": code.join(" ") }, code.join("; ") || "—"),
          el("td", {}, String(due)),
        );
      }),
    );
  };
  const file = el("input", {
    type: "file",
    accept: "application/json,.json",
    class: "lllm-progress__file",
    hidden: true,
    "aria-label": "Progress file to import",
  });
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    try {
      const count = store.importText(await chosen.text());
      message.textContent = `Imported ${count} question record${count === 1 ? "" : "s"} from ${chosen.name}.`;
    } catch (e) {
      message.textContent = e.message;
    }
    file.value = "";
    draw();
  });
  const exportButton = el(
    "button",
    {
      type: "button",
      class: "md-button md-button--primary lllm-progress__export",
      onclick: () => {
        const url = URL.createObjectURL(new Blob([store.exportText()], { type: "application/json" }));
        const link = el("a", { href: url, download: `lllm-quiz-progress-${new Date().toISOString().slice(0, 10)}.json` });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
        message.textContent = "Progress exported.";
      },
    },
    "Export progress",
  );
  const importButton = el(
    "button",
    { type: "button", class: "md-button lllm-progress__import", onclick: () => file.click() },
    "Import progress…",
  );
  const table = el(
    "table",
    {},
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", {}, "Quiz"),
        el("th", {}, "Answered"),
        el("th", {}, "Right"),
        el("th", {}, "First attempt"),
        el("th", {}, "Code exercise"),
        el("th", {}, "Due now"),
      ),
    ),
    body,
  );
  root.replaceChildren(
    el("div", { class: "md-typeset__scrollwrap" }, el("div", { class: "md-typeset__table" }, table)),
    el("p", {}, exportButton, " ", importButton, file),
    message,
  );
  draw();
}

// ---- setup on every page view (instant navigation included) ---------------------------------------

export function mountAll(scope = document) {
  for (const root of scope.querySelectorAll(".lllm-quiz:not([data-quiz-ready])")) {
    root.dataset.quizReady = "1";
    try {
      const data = decode(root.dataset.quizBlob);
      const mode = root.dataset.quizMode;
      if (mode === "review") mountReview(root, data);
      else if (mode === "progress") mountProgress(root, data);
      else mountQuiz(root, data);
      notify(root);
    } catch (e) {
      root.replaceChildren(el("p", { class: "lllm-quiz__notice" }, `This quiz could not be shown: ${e.message}`));
      console.error(e);
    }
  }
}

// Progress restored (recovery.mjs): mount every quiz again from the store.
window.addEventListener("lllm:restored", () => {
  document.querySelectorAll(".lllm-quiz[data-quiz-ready]").forEach((root) => delete root.dataset.quizReady);
  mountAll();
});

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe(() => mountAll());
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => mountAll());
} else {
  mountAll();
}
