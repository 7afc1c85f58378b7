// One quiz question: render it, grade the answer, show why, record it in store.mjs.
// Read quiz.mjs (which mounts whole quizzes on a page) first.
//
// Kinds: single and multiple (radio buttons / checkboxes in this learner's order, order.mjs; an
// explanation under every choice; the answer is stored as choice keys, places in the quiz file),
// short (a typed answer, normalised exactly as hooks/quiz_files.py `normalise`), reflection
// (write, reveal the model answer, grade yourself: Again / Hard / Good / Easy), and code (edit a
// stub; on submit the hidden tests are fetched from checks/<id>.json (they are in no page) and
// harness.py runs them in the page's Python through window.lllm.run, naming the first that fails;
// after each failed run but the last a hint (ladder.mjs), then the offer of the solution; after
// `tries` failed runs the solution and the remarks are revealed; asking for the solution marks the
// exercise as seen, not passed: store.mjs keeps its first answer, so a later pass does not count for
// the course). After any graded answer, right or wrong, "Read it again" links the section that
// teaches the question (its `teaches` field). Every control is a native
// form element, so the keyboard works as everywhere else: Tab, Space, arrows, Enter to check.

import * as store from "./store.mjs";
import { el } from "../runtime/dom.mjs";
import { learnerSeed, shuffled } from "./order.mjs";
import { hintLadder } from "./ladder.mjs";
import { codeEditor, KEYS_HINT } from "../editor/editor.mjs";

const CODE_TIMEOUT_MS = 20000;
const SELF_GRADES = [
  ["Again", 1],
  ["Hard", 3],
  ["Good", 4],
  ["Easy", 5],
];
let harnessSource = null;

// ---- small helpers -------------------------------------------------------------------------------

/** The same rule as hooks/quiz_files.py normalise(): case, spacing, quotes and final punctuation ignored. */
export function normalise(text) {
  let out = String(text).split(/\s+/).filter(Boolean).join(" ").toLowerCase();
  out = out
    .replace(/[.!?]+$/, "")
    .replace(/^['"`]+|['"`]+$/g, "")
    .replace(/[.!?]+$/, "");
  return out.trim();
}

// What the question is about, in plain words (hooks/quiz.py: source_view); the exact source is the tooltip.
function sourceLine(source) {
  const label = source.url
    ? el("a", { href: source.url, title: source.path }, source.label)
    : el("span", { title: source.path }, source.label);
  return el("p", { class: "lllm-q__source" }, "About: ", label);
}

// Where the page teaches it ("Read it again: <section>", hooks/quiz.py teaches_view): shown once answered.
function teachesLine(teaches) {
  if (!teaches || !teaches.url) return null;
  return el(
    "p",
    { class: "lllm-q__teaches", hidden: true },
    "Read it again: ",
    el("a", { href: teaches.url }, teaches.label || teaches.anchor),
  );
}

// ---- one question --------------------------------------------------------------------------------

/**
 * Build the form for question `q`. In "quiz" mode a stored answer is shown as answered; in
 * "review" mode the question is asked afresh. onGraded() is called after every graded answer.
 */
export function renderQuestion(q, number, mode, onGraded) {
  const record = store.get(q.id);
  const promptId = `lllm-q-${mode}-${q.id}`;
  const form = el("form", { class: `lllm-q lllm-q--${q.kind}`, "data-qid": q.id, "aria-labelledby": promptId });
  const feedback = el("div", { class: "lllm-q__feedback", "aria-live": "polite" });
  const prompt = el("div", { class: "lllm-q__prompt", id: promptId, html: `<span class="lllm-q__number">${number}.</span> ${q.prompt}` });
  form.append(prompt);
  const restore = mode === "quiz" && record && record.answer !== undefined ? record.answer : null;
  const kinds = {
    single: choiceQuestion,
    multiple: choiceQuestion,
    short: shortQuestion,
    reflection: reflectionQuestion,
    code: codeQuestion,
  };
  kinds[q.kind](q, form, feedback, restore, mode, onGraded);
  form.append(...[feedback, teachesLine(q.teaches), sourceLine(q.source)].filter(Boolean));
  return form;
}

function finish(form, graded) {
  const teaches = form.querySelector(":scope > .lllm-q__teaches");
  if (teaches) teaches.hidden = false; // right or wrong: where to read it again
  form.classList.add(graded.correct ? "lllm-q--right" : "lllm-q--wrong");
  form.dataset.result = graded.correct ? "right" : "wrong";
}

function choiceQuestion(q, form, feedback, restore, mode, onGraded) {
  const type = q.kind === "single" ? "radio" : "checkbox";
  const name = `${form.getAttribute("aria-labelledby")}-choice`;
  const shown = shuffled(q.choices, learnerSeed(), q.id); // this learner's order (order.mjs)
  const inputs = [];
  const list = el("div", {
    class: "lllm-q__choices",
    role: type === "radio" ? "radiogroup" : "group",
    "aria-labelledby": form.getAttribute("aria-labelledby"),
  });
  shown.forEach((choice, i) => {
    const input = el("input", { type, name, value: String(i) }); // the place shown, not the key
    inputs.push(input);
    list.append(el("div", { class: "lllm-q__choice" }, el("label", {}, input, el("span", { html: choice.html }))));
  });
  const check = el("button", { type: "submit", class: "md-button md-button--primary" }, "Check");
  form.append(list, el("div", { class: "lllm-q__actions" }, check));

  // `chosen` holds choice keys (their places in the quiz file), so a stored answer keeps its meaning
  function show(chosen) {
    const right = q.choices.every((c) => c.correct === chosen.includes(c.key));
    inputs.forEach((input, i) => {
      const c = shown[i];
      input.checked = chosen.includes(c.key);
      input.disabled = true;
      const box = input.closest(".lllm-q__choice");
      box.classList.add(c.correct ? "is-correct" : "is-incorrect");
      if (input.checked) box.classList.add("is-chosen");
      const mark = c.correct ? "Right answer." : "Not right.";
      box.append(
        el(
          "p",
          { class: "lllm-q__why" },
          el("strong", {}, input.checked ? `You chose this. ${mark} ` : `${mark} `),
          el("span", { html: c.why }),
        ),
      );
    });
    check.disabled = true;
    feedback.textContent = right
      ? "Correct."
      : q.kind === "single"
        ? "Not quite — see why under each choice."
        : "Not quite — the right set is marked; see why under each choice.";
    return right;
  }

  if (restore) {
    finish(form, { correct: show(restore.chosen || []) });
    return;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = inputs.flatMap((input, i) => (input.checked ? [shown[i].key] : []));
    if (!chosen.length) {
      feedback.textContent = "Choose an answer first.";
      return;
    }
    const right = show(chosen);
    finish(form, store.grade(q.id, right ? 4 : 1, { chosen }, right));
    onGraded();
  });
}

function shortQuestion(q, form, feedback, restore, mode, onGraded) {
  const input = el("input", {
    type: "text",
    class: "lllm-q__text",
    "aria-labelledby": form.getAttribute("aria-labelledby"),
    autocomplete: "off",
    spellcheck: "false",
  });
  const check = el("button", { type: "submit", class: "md-button md-button--primary" }, "Check");
  form.append(el("div", { class: "lllm-q__actions" }, input, check));

  function show(text) {
    const given = normalise(text);
    const right = q.answers.includes(given);
    input.value = text;
    input.disabled = check.disabled = true;
    feedback.replaceChildren();
    feedback.append(
      el("p", {}, el("strong", {}, right ? "Correct." : "Not quite."), right ? "" : " Expected: ", right ? "" : el("code", {}, q.shown)),
    );
    const misconception = q.misconceptions.find((m) => m.answer === given);
    if (!right && misconception) feedback.append(el("p", { class: "lllm-q__why", html: misconception.why }));
    feedback.append(el("div", { class: "lllm-q__explanation", html: q.explanation }));
    return right;
  }

  if (restore) {
    finish(form, { correct: show(restore.text || "") });
    return;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!input.value.trim()) {
      feedback.textContent = "Type an answer first.";
      return;
    }
    const text = input.value;
    const right = show(text);
    finish(form, store.grade(q.id, right ? 4 : 1, { text }, right));
    onGraded();
  });
}

function reflectionQuestion(q, form, feedback, restore, mode, onGraded) {
  const answer = el("textarea", {
    class: "lllm-q__text",
    rows: "4",
    "aria-labelledby": form.getAttribute("aria-labelledby"),
    placeholder: "Put it in your own words first.",
  });
  const reveal = el("button", { type: "submit", class: "md-button md-button--primary" }, "Reveal the model answer");
  form.append(answer, el("div", { class: "lllm-q__actions" }, reveal));

  function showModel() {
    answer.readOnly = true;
    reveal.disabled = true;
    feedback.replaceChildren(el("div", { class: "lllm-q__model" }, el("strong", {}, "Model answer"), el("div", { html: q.model_answer })));
    if (q.explanation) feedback.append(el("div", { class: "lllm-q__explanation", html: q.explanation }));
  }

  if (restore) {
    answer.value = restore.text || "";
    showModel();
    const label = (SELF_GRADES.find(([, quality]) => quality === restore.quality) || ["?"])[0];
    feedback.append(el("p", {}, `You graded yourself: ${label}.`));
    finish(form, { correct: restore.quality >= 3 });
    return;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    showModel();
    const grades = el(
      "div",
      { class: "lllm-q__actions", role: "group", "aria-label": "How close was your answer?" },
      el("span", {}, "How close were you? "),
    );
    for (const [label, quality] of SELF_GRADES) {
      grades.append(
        el(
          "button",
          {
            type: "button",
            class: "md-button",
            "data-quality": String(quality),
            onclick: () => {
              grades.querySelectorAll("button").forEach((b) => (b.disabled = true));
              finish(form, store.grade(q.id, quality, { text: answer.value, quality }, quality >= 3));
              grades.append(el("span", {}, ` Graded: ${label}.`));
              onGraded();
            },
          },
          label,
        ),
      );
    }
    feedback.append(grades);
    grades.querySelector("button").focus();
  });
}

function codeQuestion(q, form, feedback, restore, mode, onGraded) {
  const labelledBy = form.getAttribute("aria-labelledby");
  const hint = el("p", { class: "lllm-editor__keys", id: `${labelledBy}-keys` }, KEYS_HINT);
  const textarea = el("textarea", {
    class: "lllm-q__code",
    rows: String(Math.max(6, q.stub.split("\n").length + 2)),
    spellcheck: "false",
    "aria-labelledby": labelledBy,
    "aria-describedby": hint.id,
  });
  textarea.value = restore?.code ?? q.stub;
  const run = el("button", { type: "submit", class: "md-button md-button--primary" }, "Run the hidden tests");
  const left = el("span", { class: "lllm-q__tries" });
  const output = el("pre", { class: "lllm-q__output", hidden: true });
  form.append(textarea, hint, el("div", { class: "lllm-q__actions" }, run, left), output);
  // CodeMirror replaces the textarea when it comes near (editor.mjs); a draft typed earlier comes back
  const editor = codeEditor({
    host: form,
    fallback: textarea,
    original: q.stub,
    draftKey: restore?.done ? null : `${mode}:${q.id}`,
    labelledBy,
    describedBy: hint.id,
    onRun: () => run.disabled || form.requestSubmit(run),
  });
  const ladder = hintLadder(q, giveUp); // a hint after each failed try, then "Show the solution"
  form.append(ladder.element);
  let tries = restore?.tries ?? 0;
  const showLeft = () => (left.textContent = ` Tries left: ${q.tries - tries} of ${q.tries}.`);
  showLeft();
  if (!restore?.done) ladder.show(tries); // failed tries kept from an earlier visit
  if (!window.lllm) {
    feedback.append(
      el(
        "p",
        { class: "lllm-q__runtime" },
        "This exercise runs your code in the page's Python: the live runtime is needed, and it is not loaded on this page yet.",
      ),
    );
  }

  function reveal(passed) {
    editor.readOnly = true;
    editor.forget();
    run.disabled = true;
    const solution = el(
      "details",
      { class: "lllm-q__solution", open: !passed },
      el("summary", {}, "Solution"),
      el("pre", {}, el("code", {}, q.solution)),
    );
    feedback.append(solution, el("div", { class: "lllm-q__explanation", html: q.remarks }));
  }

  function giveUp() {
    const answer = { code: editor.value, tries, done: true, passed: false, shown: true, message: "You asked for the solution." };
    output.hidden = false;
    output.textContent = answer.message;
    feedback.replaceChildren(el("p", {}, el("strong", {}, "Here is a solution.")));
    reveal(false);
    finish(form, store.grade(q.id, 1, answer, false));
    onGraded();
  }

  if (restore && restore.done) {
    output.hidden = false;
    output.textContent = restore.message || "";
    feedback.append(
      el("p", {}, el("strong", {}, restore.passed ? "Passed." : restore.tries < q.tries ? "Solution shown." : "Out of tries.")),
    );
    reveal(restore.passed);
    finish(form, { correct: restore.passed });
    return;
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!window.lllm) {
      feedback.replaceChildren(
        el("p", { class: "lllm-q__runtime" }, "The live runtime is needed to run code, and it is not loaded on this page."),
      );
      return;
    }
    run.disabled = true;
    ladder.close(); // no giving up while a run is under way
    output.hidden = false;
    output.textContent = "Running… (the first run starts Python in the page, which takes a few seconds)";
    let result;
    try {
      result = await gradeInPage(editor.value, await hiddenChecks(q.id));
    } catch (e) {
      output.textContent = `The runtime could not run the tests: ${e.message || e}`; // not the learner's fault: no try used
      ladder.show(tries);
      run.disabled = false;
      return;
    }
    tries += 1;
    output.textContent = result.message;
    showLeft();
    const done = result.ok || tries >= q.tries;
    const answer = { code: editor.value, tries, done, passed: result.ok, message: result.message };
    if (!done) {
      if (mode === "quiz") store.keep(q.id, answer);
      ladder.show(tries);
      run.disabled = false;
      return;
    }
    ladder.close();
    feedback.replaceChildren(el("p", {}, el("strong", {}, result.ok ? "Passed." : "Out of tries — here is a solution.")));
    reveal(result.ok);
    const quality = result.ok ? Math.max(3, 6 - tries) : 1;
    finish(form, store.grade(q.id, quality, answer, result.ok));
    onGraded();
  });
}

/** A code question's tests: not in the page (hooks/quiz.py writes checks/<id>.json), fetched on submit. */
async function hiddenChecks(id) {
  const response = await fetch(new URL(`./checks/${encodeURIComponent(id)}.json`, import.meta.url));
  if (!response.ok) throw new Error(`the checks for ${id}: HTTP ${response.status}`);
  return (await response.json()).tests;
}

/** Run harness.py's grade(code, tests) in the page's Python; resolves to {ok, passed, total, message}. */
async function gradeInPage(code, tests) {
  if (!harnessSource) {
    const response = await fetch(new URL("./harness.py", import.meta.url));
    if (!response.ok) throw new Error(`harness.py: HTTP ${response.status}`);
    harnessSource = await response.text();
  }
  const program = `${harnessSource}
import base64 as _b64, json as _json
_b64.b64encode(_json.dumps(grade(${JSON.stringify(code)}, ${JSON.stringify(tests)})).encode()).decode()
`;
  if (typeof window.lllm.ready === "function") await window.lllm.ready();
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      if (typeof window.lllm.stop === "function") window.lllm.stop();
      reject(new Error(`no answer within ${CODE_TIMEOUT_MS / 1000} s (an endless loop?); Python was restarted`));
    }, CODE_TIMEOUT_MS);
  });
  const reply = await Promise.race([window.lllm.run(program, { namespace: "lllm-quiz" }), timeout]).finally(() => clearTimeout(timer));
  if (!reply || reply.error || typeof reply.value !== "string") {
    throw new Error(reply && reply.error ? String(reply.error).trim().split("\n").pop() : "no result");
  }
  return JSON.parse(atob(reply.value.slice(1, -1))); // value is the repr of a base64 str: '...'
}
