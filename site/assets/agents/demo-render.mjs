// What the agent demos' Python returns, drawn (demos.mjs runs it; lllm/web/demos.py writes the JSON): the
// trajectory step by step, the lab's table, the evaluator's chart, the memory explainer's turns, the
// playground's table, one goal's trajectories side by side (versus), the judge's verdict, the
// before/after table, the retrieved facts. RENDER[demo](out, params) -> the nodes to show; each ends with
// the same run as the terminal prints it.

import { el, pct, svgCanvas, table } from "../runtime/dom.mjs";
import { BRAIN_LABELS, TAB_MODEL, YOUR_MODEL, samples } from "./brainlist.mjs";
import { offerLookInside } from "./demo-inside.mjs";

const VERSUS_TITLES = {
  tinyllm: "the story model (tinyllm, temperature 0)",
  "tinyllm-agent": "the agent-tuned TinyLLM (tinyllm-agent, greedy)",
  yourmodel: "your model (greedy)",
};
const CRITERIA = ["format", "tool", "args", "answer", "efficiency", "total"];

// ---- the demos' own DOM pieces (the shared helpers are in ../runtime/dom.mjs) ---------------------

function bar(fraction, label) {
  const track = el("span", { class: "lllm-demo__bar" });
  const fill = el("span", { class: "lllm-demo__bar-fill" });
  fill.style.width = pct(Math.max(0, Math.min(1, fraction)));
  track.append(fill);
  const wrap = el("span", { class: "lllm-demo__barwrap" });
  wrap.append(track, el("span", { class: "lllm-demo__bar-label" }, label));
  return wrap;
}

// A step that failed, by its typed outcome (lllm/agents/react.py: Outcome), never by its text.
const FAILED = new Set(["repair", "unknown tool", "tool error", "predictor error"]);
const UNGROUNDED = "not grounded in any observation"; // grounding.py: LABEL

// ---- rendering what Python returned ---------------------------------------------------------------

function renderSteps(trajectory, { tail = true } = {}) {
  const list = el("ol", { class: "lllm-demo__steps" });
  trajectory.steps.forEach((step) => {
    const item = el("li", { class: "lllm-demo__step" });
    item.append(
      el(
        "div",
        { class: "lllm-demo__step-title" },
        step.forced ? "forced: the goal is a tool call, run before the model" : "the model's step",
      ),
    );
    if (!step.forced && tail)
      item.append(labelled("prompt tail", el("pre", { class: "lllm-demo__tail" }, step.prompt_tail ? "…" + step.prompt_tail : "(none)")));
    if (!step.forced) item.append(labelled("raw output", el("pre", { class: "lllm-demo__raw" }, step.raw || "(nothing)")));
    if (step.thought) item.append(labelled("thought", el("span", {}, step.thought)));
    if (step.action) item.append(labelled("action", el("code", { class: "lllm-demo__action" }, `${step.action[0]}[${step.action[1]}]`)));
    if (step.final !== null) item.append(labelled("final answer", el("strong", { class: "lllm-demo__final" }, step.final)));
    if (step.observation !== null) {
      const obs = labelled("observation", el("code", { class: "lllm-demo__obs" }, step.observation));
      if (FAILED.has(step.outcome)) obs.classList.add("lllm-demo__row--error");
      item.append(obs);
    }
    list.append(item);
  });
  const end =
    trajectory.answer !== null
      ? el("p", { class: "lllm-demo__answer" }, `Final answer: ${trajectory.answer}`)
      : el("p", { class: "lllm-demo__answer lllm-demo__answer--none" }, `Stopped without an answer (${trajectory.stop_reason}).`);
  // Python's typed verdict (lllm/agents/grounding.py), never this page's reading of the text.
  if (trajectory.ungrounded?.length) {
    end.classList.add("lllm-demo__answer--ungrounded");
    end.append(el("span", { class: "lllm-demo__ungrounded" }, ` — ${UNGROUNDED}: ${trajectory.ungrounded.join("; ")}`));
  }
  return [list, end];
}

function labelled(label, node) {
  const row = el("div", { class: "lllm-demo__row" });
  row.append(el("span", { class: "lllm-demo__label" }, label), node);
  return row;
}

function terminal(title, text) {
  const box = el("details", { class: "lllm-demo__terminal" });
  box.append(el("summary", {}, title), el("pre", {}, text));
  return box;
}

export const RENDER = {
  react(out, params) {
    const model = params.brain === TAB_MODEL ? "tinyllm:tinyllm-yours.onnx" : params.brain; // the train page's download
    const flag = samples(params.brain)
      ? ` --predictor ${model} --temperature ${params.temperature} --seed ${params.seed}`
      : ` --predictor ${params.brain === "scripted" ? "scripted:FILE" : params.brain === YOUR_MODEL ? `http:${params.endpoint.url}` : params.brain}`;
    const [steps, end] = renderSteps(out.trajectory);
    offerLookInside(steps, out, params); // a step the model wrote opens down to the numbers
    return [
      steps,
      end,
      terminal(`the same run in a terminal: python -m lllm react ${JSON.stringify(params.goal)}${flag} --verbose`, out.trace),
    ];
  },
  lab(out) {
    const r = out.report;
    const rows = Object.entries(r.by_category).map(([name, c]) => [
      name,
      c.tool,
      c.args,
      c.answer,
      c.ungrounded,
      `${c.passed}/${c.total}`,
      bar(c.passed / c.total, pct(c.passed / c.total)),
    ]);
    rows.push(["overall", "", "", "", "", `${r.passed}/${r.total}`, bar(r.success_rate, pct(r.success_rate))]);
    const nodes = [
      el("p", { class: "lllm-demo__summary" }, `overall: ${r.passed}/${r.total} passed (${pct(r.success_rate)}), predictor ${r.predictor}`),
      table(["category", "tool", "args", "answer", "ungrounded", "passed", "success"], rows, "lllm-demo__table"),
    ];
    const failures = r.results.filter((x) => !x.success);
    if (failures.length) {
      const list = el("ul", { class: "lllm-demo__failures" });
      for (const f of failures) {
        const calls = f.tool_calls.map(([n, a]) => `${n}[${a}]`).join(", ") || "no tool";
        list.append(
          el(
            "li",
            {},
            `[${f.case.category}] ${f.case.goal} — wanted ${f.case.expected_tool}[..${f.case.expected_arg_contains}..] → ${f.case.expected_answer}; ` +
              (f.error ??
                `called ${calls}; answer ${f.answer === null ? "none" : JSON.stringify(f.answer)} (${f.stop_reason})${f.ungrounded ? `, ${UNGROUNDED}` : ""}`),
          ),
        );
      }
      nodes.push(el("p", { class: "lllm-demo__label" }, `failures (${failures.length})`), list);
    }
    return [...nodes, terminal("the same report in a terminal (python -m lllm lab)", out.text)];
  },
  evaluate(out) {
    const r = out.report;
    return [
      el(
        "p",
        { class: "lllm-demo__summary" },
        `${r.cases} cases × ${r.seeds.length} seed(s) [${r.seeds.join(", ")}], predictor ${r.predictor}`,
      ),
      chart(r),
      el(
        "p",
        { class: "lllm-demo__note" },
        `mean steps per case: ${r.mean.steps.toFixed(2)} (spread ${r.spread.steps.toFixed(3)}). ` +
          `Answers ${UNGROUNDED} (ungrounded): ${pct(r.mean.ungrounded)}. ` +
          `Per seed total: ${r.per_seed.map((run, i) => `seed ${r.seeds[i]}: ${run.total.toFixed(2)}`).join(", ")}.`,
      ),
      terminal("the same report in a terminal (python -m lllm evaluate)", out.text),
    ];
  },
  memory(out) {
    const nodes = out.turns.map((turn, i) => {
      const box = el("section", { class: "lllm-demo__turn" });
      box.append(
        el("h4", {}, `goal ${i + 1}: ${turn.goal}`),
        labelled("injected block", el("pre", { class: "lllm-demo__block" }, turn.memory_block || "(empty: nothing remembered yet)")),
        ...renderSteps(turn.trajectory),
      );
      const memory = el("ol", { class: "lllm-demo__memory" });
      turn.short_term_after.forEach((t) => memory.append(el("li", {}, t)));
      box.append(labelled(`short-term memory now (${turn.short_term_after.length})`, memory));
      return box;
    });
    return [...nodes, terminal("the same session in a terminal (python -m lllm explain-memory)", out.trace)];
  },
  playground(out) {
    const rows = out.rows.map((r) => [
      r.name,
      `${r.passed}/${r.cases}`,
      r.calls,
      r.ms_per_call.toFixed(2),
      r.chars_per_second.toFixed(0),
      r.chars,
    ]);
    return [
      table(["brain", "success", "calls", "ms/call", "chars/s", "chars"], rows, "lllm-demo__table"),
      el(
        "p",
        { class: "lllm-demo__note" },
        "Timed in this page (Python and TinyLLM in a Web Worker): success, calls and characters match the terminal, the times do not.",
      ),
    ];
  },
  "before-after"(out) {
    const headers = ["group", "n", ...out.models.flatMap((m) => out.criteria.map((c) => `${m}: ${c}`))];
    const rows = out.rows.map((r) => [r.group, r.n, ...r.scores.flatMap((s) => out.criteria.map((c) => `${s[c].toFixed(1)}%`))]);
    const grid = table(headers, rows, "lllm-demo__table");
    grid.classList.add("lllm-demo__before-after");
    return [grid, terminal(`the same table in a terminal: ${out.command}`, out.text)];
  },
  versus(out) {
    const columns = el("div", { class: "lllm-demo__columns" });
    for (const run of out.runs) {
      const column = el("section", { class: "lllm-demo__column" });
      column.dataset.brain = run.brain;
      column.append(
        el("h4", {}, VERSUS_TITLES[run.brain] ?? BRAIN_LABELS[run.brain]),
        ...renderSteps(run.trajectory, { tail: false }),
        terminal(`the same run in a terminal: ${run.command}`, run.terminal),
      );
      columns.append(column);
    }
    return [columns];
  },
  judge(out) {
    const judged = out.judgement;
    const verdict = el("p", { class: "lllm-demo__verdict" }, out.verdict);
    verdict.dataset.verdict = !judged.judged ? "unknown" : judged.scores.lenient && judged.scores.args ? "right" : "wrong";
    return [verdict, ...renderSteps(out.trajectory, { tail: false }), terminal(`the same run in a terminal: ${out.command}`, out.terminal)];
  },
  retrieve(out) {
    const facts = el("ol", { class: "lllm-demo__facts" });
    out.facts.forEach((f, i) => facts.append(el("li", {}, `${f}  (shared words: ${out.shared[i].join(", ")})`)));
    return [
      labelled("content words", el("code", {}, out.query_words.join(" ") || "(none)")),
      labelled("retrieved", out.facts.length ? facts : el("span", {}, "(no fact shares a word)")),
      labelled("the block injected above the question", el("pre", { class: "lllm-demo__block" }, out.block || "(empty)")),
    ];
  },
};

/** The evaluator's chart: one bar per criterion (the mean) with a whisker of ± one spread. */
function chart(report) {
  const W = 460,
    row = 26,
    left = 90,
    width = 300;
  const { svg, add } = svgCanvas({
    viewBox: `0 0 ${W} ${row * CRITERIA.length + 24}`,
    class: "lllm-demo__chart",
    role: "img",
    "aria-label": "mean score per criterion, with the spread across seeds",
  });
  CRITERIA.forEach((c, i) => {
    const y = 8 + i * row,
      mean = report.mean[c],
      spread = report.spread[c];
    const weight = c in report.rubric ? ` ×${report.rubric[c]}` : "";
    add("text", { x: 0, y: y + 13, class: "lllm-demo__chart-label" }, c + weight);
    add("rect", { x: left, y, width, height: 16, class: "lllm-demo__chart-track" });
    add("rect", { x: left, y, width: width * Math.min(1, mean), height: 16, class: "lllm-demo__chart-bar", "data-criterion": c });
    if (spread > 0) {
      const lo = left + width * Math.max(0, mean - spread),
        hi = left + width * Math.min(1, mean + spread);
      add("line", { x1: lo, x2: hi, y1: y + 8, y2: y + 8, class: "lllm-demo__chart-spread" });
    }
    add("text", { x: left + width + 8, y: y + 13, class: "lllm-demo__chart-value" }, `${mean.toFixed(2)} ± ${spread.toFixed(2)}`);
  });
  return svg;
}
