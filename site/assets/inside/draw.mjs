// Layer 1 (browser) · one position's stages and draw, as lllm/model/inside.py lays them out, line for
// line: `draw` is ../runtime/sampler.mjs's own (steps 1–7 of lllm/model/sampling.py, which `sample`
// runs too) with every intermediate kept, and `positionView` gives the object `python -m lllm inside --json` prints
// (the same keys), so a test can compare the page with the terminal number by number.
// No model runs here: a view is computed from the numbers one model run already gave.

import { Mulberry32, candidates, draw } from "../runtime/sampler.mjs";

export { draw }; // the sampler's own steps, every intermediate kept (drill-brains.mjs imports it from here)

export const TOP = 5;

/** Probabilities in id order at `temperature` > 0 (sampling.softmax). */
export function softmax(logits, temperature) {
  let zMax = -Infinity;
  for (const z of logits) if (z > zMax) zMax = z;
  const exps = Array.from(logits, (z) => Math.exp((z - zMax) / temperature));
  let total = 0;
  for (const e of exps) total += e; // left to right, as Python's sum()
  return exps.map((e) => e / total);
}

/** The random number draw `index` uses (0 = the first character drawn): the seed's index-th uniform. */
export function uniformOfDraw(seed, index) {
  const rng = new Mulberry32(seed);
  for (let k = 0; k < index; k++) rng.nextU32();
  return rng.uniform();
}

/** Every stage at `position` of `trace` ({vocab, ids, promptLength, seed, steps}) with these knobs. */
export function positionView(trace, position, { temperature, topK, topP }) {
  const { vocab, ids, steps, promptLength, seed } = trace;
  const step = steps[position];
  const logits = step.logits;
  let probs;
  if (temperature > 0) probs = softmax(logits, temperature);
  else {
    const best = draw(logits, 0, 0, 1, null).id;
    probs = Array.from(logits, (_, i) => (i === best ? 1 : 0));
  }
  const index = position - (promptLength - 1);
  const view = {
    position,
    char: vocab[ids[position]],
    id: ids[position],
    text: ids.map((i) => vocab[i]).join(""),
    prompt_length: promptLength,
    seed,
    temperature,
    top_k: topK,
    top_p: topP,
    embedding: step.embedding,
    layers: step.layers,
    logits,
    probs,
    top: candidates(logits)
      .slice(0, TOP)
      .map((i) => [vocab[i], probs[i]]),
    next: position + 1 >= ids.length ? null : { char: vocab[ids[position + 1]], given: index < 0 },
    draw: null,
  };
  if (index >= 0) {
    const u = temperature === 0 ? null : uniformOfDraw(seed, index);
    const d = draw(logits, temperature, topK, topP, u);
    view.draw = {
      index,
      uniform: u,
      target: d.target,
      total: d.total,
      kept: d.kept.map((i, j) => [vocab[i], d.weights[j] / d.total]),
      id: d.id,
      char: vocab[d.id],
    };
  }
  return view;
}
