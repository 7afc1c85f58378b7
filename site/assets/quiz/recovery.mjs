// Unreadable progress, never lost silently: one notice at the top of whichever page opens first.
// Read store.mjs first (how an unreadable store is put aside and what restore and start over do).
// course.mjs imports this file, and course.mjs runs on every page, so every page checks.
//
// While store.pending() is true, each page view shows one notice (role="alert") with two buttons:
//   Restore the saved copy   store.restore(): every record still readable comes back (the latest wins)
//   Start over               store.startOver(): the copy put aside is deleted; the notice never returns
// Either choice replaces the notice with one line (role="status") saying what happened, fires
// "lllm:restored" on window (quiz.mjs redraws its quizzes, review list and table; course.mjs redraws
// on the store's own "lllm:progress"), and moves focus to that line. Another tab's choice removes
// the notice here too ("storage" event).

import * as store from "./store.mjs";
import { el } from "../runtime/dom.mjs";

const ID = "lllm-recovery";

function done(box, message) {
  const line = el("p", { id: ID, class: "lllm-recovery lllm-recovery--done", role: "status", tabindex: "-1" }, message);
  box.replaceWith(line);
  line.focus();
  window.dispatchEvent(new CustomEvent("lllm:restored"));
}

function notice() {
  const box = el("div", { id: ID, class: "admonition warning lllm-recovery", role: "alert" });
  const restore = el(
    "button",
    {
      type: "button",
      class: "md-button md-button--primary",
      onclick: () => {
        const count = store.restore();
        done(
          box,
          count
            ? `Your progress is back: ${count} record${count === 1 ? "" : "s"} restored.`
            : "Nothing in the saved copy could be read back; your progress starts from here.",
        );
      },
    },
    "Restore the saved copy",
  );
  const over = el(
    "button",
    {
      type: "button",
      class: "md-button",
      onclick: () => {
        store.startOver();
        done(box, "The unreadable copy was deleted; your progress starts from here.");
      },
    },
    "Start over",
  );
  box.append(
    el("p", { class: "admonition-title" }, "Your saved progress could not be read"),
    el(
      "p",
      {},
      "Your quiz answers and course marks in this browser were unreadable, so the page put them aside ",
      "and started a fresh record; nothing has been deleted. Restore brings back everything that can still be read ",
      "(anything you answered since is kept); start over deletes the copy.",
    ),
    el("p", { class: "lllm-recovery__actions" }, restore, " ", over),
  );
  return box;
}

/** Show the notice if an unreadable copy waits, once per page (idempotent); remove it if none does. */
export function check() {
  const shown = document.getElementById(ID);
  if (!store.pending()) {
    if (shown?.getAttribute("role") === "alert") shown.remove();
    return;
  }
  if (shown) return;
  const article = document.querySelector("article.md-content__inner") || document.querySelector("main") || document.body;
  article.prepend(notice());
}

if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(() => check());
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => check());
else check();
window.addEventListener("storage", () => check());
