// Time travel's drilldown, per brain: how each model that can write a ReAct step replays the call that
// drew one of its characters, on this page's thread (onnxruntime-web, no Python), and what its glass
// box shows. Read drilldown.mjs first (the buttons and the panel), then lllm/timetravel/drilldown.py
// (the same three replays in Python: `python -m lllm replay RUN.json --inside B:S:C --json` prints the
// view each `look` returns, key for key).
//
//   tinyllm        the story model's inspection graph (runtime.json "inside"): the prompt, then the
//                  characters drawn before this one, read one per run; the step's seed draws the last.
//   tinyllm-agent  the agent-tuned ensemble's inspection graph ("agentInside", loaded the first time one
//                  of its characters is opened): its whole call replayed greedily, the prompt read as its
//                  predictor reads it (slots.mjs: from `Question: `, numbers as slots `#1`), stopped at
//                  "Observation:" or a blank line. Its characters are counted as it drew them (slots), and
//                  its view adds the four members' votes (each member's logits, softmax and top characters).
//   tinygpt        TinyGPT (runtime.json models.tinygpt) with its key/value cache, as ../inside/gpt-widget.mjs:
//                  every head's attention over the keys the position sees, the logits and the seed's draw.
//
// A brain is {drawn(prompt, text), look({prompt, text, c, seed, temperature, slot})}: `drawn` gives the
// characters the model drew in `text` (the run's text after any prefix) as it drew them, `look` the
// view of the c-th, the nodes that draw it, the model runs it took and `before`, the run's own text
// for the drawn characters before the c-th (numbers put back), the prefix "write another" starts from.

import { el } from "../runtime/dom.mjs";
import { openModel } from "../inside/session.mjs";
import { draw, positionView, softmax } from "../inside/draw.mjs";
import { candidates } from "../runtime/sampler.mjs";
import { modelView, numberSlots } from "./slots.mjs";

const AGENT_STOP = ["Observation:", "\n\n"]; // lllm/predictors/specs.py TINYLLM_AGENT_STOP
const AGENT_LENGTH = 400; // drawn characters at most (lllm/timetravel/drilldown.py)
const TOP = 5;
const opened = new Map(); // what -> a promise of it, once per page (again after a failure)

function once(key, make) {
  if (!opened.has(key)) {
    opened.set(key, make());
    opened.get(key).catch(() => opened.delete(key));
  }
  return opened.get(key);
}
const widget = () => once("widget", () => import("../inside/widget.mjs"));
const encode = (vocab, text) => {
  const index = new Map(vocab.map((ch, i) => [ch, i]));
  const ids = [...text].filter((ch) => index.has(ch)).map((ch) => index.get(ch));
  return ids.length ? ids : [index.get("\n")]; // EMPTY_PROMPT
};

// ---- the story model ------------------------------------------------------------------------------

const story = {
  drawn: (prompt, text) => text,
  async look({ prompt, text, c, seed, temperature, slot }) {
    const w = await widget();
    const m = await once("tinyllm", () => w.loadInside((manifest) => manifest.inside));
    const knobs = { temperature, topK: 0, topP: 1 };
    const trace = await w.runTrace(m, slot, { prompt, given: text.slice(0, c), seed, ...knobs });
    const view = positionView(trace, trace.ids.length - 2, knobs);
    return { view, runs: trace.ids.length - 1, before: text.slice(0, c - 1), nodes: w.stagesOf(view, trace.vocab) };
  },
};

// ---- the agent-tuned TinyLLM: an ensemble, greedy, number slots -----------------------------------

const agentModel = () =>
  once("tinyllm-agent", async () => {
    const w = await widget();
    const m = await w.loadInside((manifest) => manifest.agentInside);
    return { ...m, slots: numberSlots(m.card.number_slots) };
  });
// how it reads a prompt, to count the characters as it drew them before its inspection model is asked
// for: the model worker's copy of its card (the run in this page loaded it; nothing is downloaded again)
const agentCard = () =>
  once("agent-card", async () => {
    const { lllm } = await import("../runtime/lllm.mjs");
    const card = await lllm.modelReady("tinyllm-agent");
    return { card, slots: numberSlots(card.number_slots) };
  });

const STAGES = ["input_gate", "forget_gate", "output_gate", "candidate", "cn", "hn"];

/** inside.py's trace(model, prompt, 400, temperature=0, stop=...): every drawn position's stages kept. */
async function agentTrace(m, prompt) {
  const {
    vocab,
    config: { layers, hidden },
  } = m.card;
  const V = vocab.length,
    members = m.card.ensemble?.members ?? 1;
  const [view, numbers] = modelView(prompt, m.card.reads_from, m.slots);
  const ids = encode(vocab, view),
    P = ids.length,
    steps = [];
  let h = new Float32Array(layers * hidden),
    c = new Float32Array(layers * hidden),
    stoppedBy = null,
    runs = 0;
  for (let position = 0; position < ids.length && !stoppedBy; position++) {
    const out = await m.session.run({
      input_id: new m.ort.Tensor("int64", BigInt64Array.from([BigInt(ids[position])]), [1]),
      h0: new m.ort.Tensor("float32", h, [layers, 1, hidden]),
      c0: new m.ort.Tensor("float32", c, [layers, 1, hidden]),
    });
    runs += 1;
    h = Float32Array.from(out.hn.data);
    c = Float32Array.from(out.cn.data);
    if (position < P - 1) continue; // the prompt's: nothing is drawn there
    const logits = Array.from(out.logits.data),
      per = (name, l) => Array.from(out[name].data.subarray(l * hidden, (l + 1) * hidden));
    steps[position] = {
      logits,
      embedding: Array.from(out.embedding.data),
      layers: Array.from({ length: layers }, (_, l) => Object.fromEntries(STAGES.map((s) => [s, per(s, l)]))),
      member_logits: out.member_logits
        ? Array.from({ length: members }, (_, k) => Array.from(out.member_logits.data.subarray(k * V, (k + 1) * V)))
        : null,
    };
    if (ids.length < P + AGENT_LENGTH) {
      ids.push(draw(logits, 0, 0, 1, null).id);
      const drawn = ids
        .slice(P)
        .map((i) => vocab[i])
        .join("");
      stoppedBy = AGENT_STOP.find((s) => drawn.endsWith(s)) ?? null;
    }
  }
  const all = ids
    .slice(P)
    .map((i) => vocab[i])
    .join("");
  const drawn = stoppedBy ? all.slice(0, all.length - stoppedBy.length) : all;
  return {
    vocab,
    ids,
    promptLength: P,
    seed: 0,
    steps,
    numbers,
    drawn,
    runs,
    completion: m.slots ? m.slots.unmask(drawn, numbers) : drawn,
  };
}

function membersTable(view, shown) {
  return el(
    "div",
    { class: "lllm-inside__tablewrap", tabindex: "0", role: "region", "aria-label": "the members' votes" },
    el(
      "table",
      { class: "lllm-inside__table lllm-tt__members" },
      el(
        "caption",
        {},
        `The ${view.members.length} members' votes: each one's own softmax (T = 1); the ensemble's probabilities are their average`,
      ),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ["member", "its vote", `its ${TOP} likeliest characters`].map((x) => el("th", { scope: "col" }, x)),
        ),
      ),
      el(
        "tbody",
        {},
        view.members.map((mb) =>
          el(
            "tr",
            { "data-member": mb.member, "data-vote": mb.argmax, class: mb.argmax === view.draw?.char ? "lllm-inside__drawn" : null },
            el("th", { scope: "row" }, String(mb.member + 1)),
            el("td", {}, el("code", {}, shown(mb.argmax))),
            el("td", {}, mb.top.map(([ch, p]) => `${shown(ch)} ${p.toFixed(3)}`).join("  ")),
          ),
        ),
      ),
    ),
  );
}

const agent = {
  async drawn(prompt, text) {
    // the run's text masked as the model reads it after the prompt
    const { card, slots } = await agentCard();
    const [start] = modelView(prompt, card.reads_from, slots),
      [whole] = modelView(prompt + text, card.reads_from, slots);
    return whole.startsWith(start) ? whole.slice(start.length) : text;
  },
  async look({ prompt, text, c }) {
    const m = await agentModel();
    let fresh = false;
    const trace = await once(`agent:${prompt}`, () => {
      fresh = true;
      return agentTrace(m, prompt);
    });
    if (trace.completion !== text)
      throw new Error(
        `here the tinyllm-agent model writes ${JSON.stringify(trace.completion.slice(0, 40))} where the run has ${JSON.stringify(text.slice(0, 40))}: the run was made with another tinyllm-agent model file`,
      );
    if (c > trace.drawn.length)
      throw new Error(`the model drew ${trace.drawn.length} character(s) in this step (numbers as slots), not ${c}`);
    const view = positionView(trace, trace.promptLength - 2 + c, { temperature: 0, topK: 0, topP: 1 });
    const step = trace.steps[view.position];
    if (step.member_logits)
      view.members = step.member_logits.map((logits, k) => {
        const probs = softmax(logits, 1),
          best = candidates(logits);
        return { member: k, logits, probs, top: best.slice(0, TOP).map((i) => [trace.vocab[i], probs[i]]), argmax: trace.vocab[best[0]] };
      });
    if (m.slots) view.numbers = trace.numbers;
    const w = await widget();
    const nodes = w.stagesOf(view, trace.vocab);
    const logitsAt = nodes.findIndex((n) => n.tagName === "H3" && n.textContent.startsWith("4 "));
    nodes.splice(
      logitsAt,
      0,
      el("h3", {}, `The ensemble: ${view.members?.length ?? 1} models of ${m.card.ensemble?.hidden ?? m.card.config.hidden} units`),
      el(
        "p",
        {},
        "The gates and states above are the members' units side by side; each member scores the next character on its own, and their votes make the logits below.",
      ),
      ...(view.members ? [membersTable(view, w.shown)] : []),
    );
    return {
      view: { ...view, drawn: trace.drawn },
      drawn: trace.drawn,
      runs: fresh ? trace.runs : 0,
      nodes,
      before: m.slots ? m.slots.unmask(trace.drawn.slice(0, c - 1), trace.numbers) : trace.drawn.slice(0, c - 1),
    };
  },
};

// ---- TinyGPT: every head's attention -------------------------------------------------------------

/** gpt_inside.read: the prompt, then `given` in place of the draws; the logits that drew its last. */
async function gptRead(m, keep, prompt, given) {
  const { gptForward } = await import("../runtime/gpt.mjs");
  const { vocab } = m.card;
  const ids = encode(vocab, prompt),
    more = [...given].filter((ch) => vocab.includes(ch)).map((ch) => vocab.indexOf(ch));
  const t = { vocab, ids: ids.concat(more), promptLength: ids.length, fed: 0 };
  t.firstKey = new Array(t.ids.length).fill(null);
  t.rows = new Array(t.ids.length).fill(null);
  let { logits, state, attention, fed } = await gptForward(m.ort, m, ids, null);
  t.fed += fed;
  keep(
    t,
    attention,
    Array.from({ length: state.S }, (_, k) => ids.length - state.S + k),
    ids.length - state.S,
  );
  for (let p = ids.length; p < t.ids.length - 1; p++) {
    ({ logits, state, attention, fed } = await gptForward(m.ort, m, [t.ids[p]], state));
    t.fed += fed;
    keep(t, attention, [p], p + 1 - state.S);
  }
  return { t, logits: Array.from(logits) };
}

const gpt = {
  drawn: (prompt, text) => text,
  async look({ prompt, text, c, seed, temperature }) {
    const m = await once("tinygpt", () =>
      openModel((manifest) => manifest.models?.tinygpt, "TinyGPT", "This build has no TinyGPT: run `make model`"),
    );
    const g = await import("../inside/gpt-widget.mjs"),
      w = await widget();
    const { t, logits } = await gptRead(m, g.keep, prompt, text.slice(0, c));
    const p = t.ids.length - 2,
      first = t.firstKey[p],
      knobs = { temperature, topK: 0, topP: 1 };
    const { embedding, layers, ...drawn } = positionView({ ...t, seed, steps: { [p]: { logits } } }, p, knobs);
    const view = { ...drawn, first_key: first, keys: t.ids.slice(first, p + 1).map((i) => t.vocab[i]), layers: t.rows[p] };
    const shown = { ...view, firstKey: first };
    const { heads } = m.card.config;
    const nodes = [
      el("h3", {}, "1 · Input character"),
      el("p", { class: "lllm-inside__char" }, el("code", {}, w.shown(view.char)), ` ${w.spoken(view.char)}, id ${view.id}`),
      el("h3", {}, `2 · Attention: ${view.layers.length} layers of ${heads} heads, over the ${view.keys.length} characters it sees`),
      el(
        "p",
        { class: "lllm-inside__legend" },
        "One row per head, one column per character it can see (itself and those before it); pale is 0, indigo 1, and each row sums to 1.",
      ),
      ...view.layers.map((_, l) =>
        el(
          "div",
          { class: "lllm-inside__tablewrap", tabindex: "0", role: "region", "aria-label": `layer ${l} attention` },
          g.headsTable(shown, l),
        ),
      ),
      el("h3", {}, "3 · Logits, softmax and the cut"),
      w.distribution(view, t.vocab),
      el("h3", {}, "4 · The draw"),
      w.drawText(view),
    ];
    return {
      view,
      runs: t.fed,
      unit: "positions computed, its key/value cache carried",
      before: text.slice(0, c - 1),
      nodes,
      shown: (panel) => panel.querySelectorAll(".lllm-inside__tablewrap").forEach(g.openOnWeights),
    }; // on the weights that matter
  },
};

export const BRAINS = { tinyllm: story, "tinyllm-agent": agent, tinygpt: gpt };
