// The hint ladder of a code question: a hint after each failed try, then the way out to the solution.
// Used by questions.mjs (codeQuestion); the hints come from the quiz file's `hints:` list, rendered
// by hooks/quiz.py.
//
// A learner who is stuck should get a nudge, not a wall. After failed try n the first n hints are
// shown (each question has at most tries − 1, hooks/quiz_files.py checks that); once every hint is
// out and tries are left, a "Show the solution" button is offered beside them, for a learner who
// would rather read a worked answer than guess again. After the last try the solution is shown
// anyway (questions.mjs). Giving up counts as a miss, so the question comes back for review.
//
//   const ladder = hintLadder(q, giveUp);   form.append(ladder.element);   ladder.show(tries);

import { el } from "../runtime/dom.mjs";

export function hintLadder(q, giveUp) {
  const hints = q.hints || [];
  const element = el("div", { class: "lllm-q__hints", "aria-live": "polite" });
  const out = el(
    "button",
    {
      type: "button",
      class: "md-button lllm-q__give-up",
      onclick: () => {
        close();
        giveUp();
      },
    },
    "Show the solution",
  );

  /** Show what `failed` failed tries have earned: that many hints, then the way out. */
  function show(failed) {
    const earned = Math.min(failed, hints.length);
    element.replaceChildren(
      ...hints
        .slice(0, earned)
        .map((html, i) =>
          el("div", { class: "lllm-q__hint" }, el("strong", {}, `Hint ${i + 1} of ${hints.length}. `), el("span", { html })),
        ),
    );
    if (failed > 0 && failed >= hints.length && failed < q.tries) element.append(el("p", {}, out));
  }

  /** The attempt is over (passed, out of tries, or given up): the way out goes, the hints stay. */
  function close() {
    out.remove();
  }

  return { element, show, close };
}
