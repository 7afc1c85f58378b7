// Layer 1 (browser) · one position's stages and draw, as lllm/model/inside.py lays them out, line for
// line: `draw` is the sampler of ../runtime/sampler.mjs (steps 1–7 of lllm/model/sampling.py) with
// every intermediate kept, and `positionView` gives the object `python -m lllm inside --json` prints
// (the same keys), so a test can compare the page with the terminal number by number.
// No model runs here: a view is computed from the numbers one model run already gave.

import { Mulberry32, candidates, checkSampling } from "../runtime/sampler.mjs";

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

/** The sampler with uniform `u`: the kept ids, their weights, the mass after the cuts, target, the id. */
export function draw(logits, temperature, topK, topP, u) {
  checkSampling(temperature, topK, topP);
  if (temperature === 0) {
    // 1. greedy: nothing drawn
    let best = 0;
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
    return { greedy: true, kept: [best], weights: [1], total: 1, target: null, id: best };
  }
  let order = candidates(logits); // 2.
  if (topK > 0) order = order.slice(0, topK); // 3.
  const zFirst = logits[order[0]];
  let weights = order.map((i) => Math.exp((logits[i] - zFirst) / temperature)); // 4.
  let total = 0;
  for (const w of weights) total += w; // 5.
  if (topP < 1) {
    // 6.
    let c = 0,
      keep = order.length;
    for (let j = 0; j < weights.length; j++) {
      c += weights[j];
      if (c >= topP * total) {
        keep = j + 1;
        break;
      }
    }
    order = order.slice(0, keep);
    weights = weights.slice(0, keep);
    total = c;
  }
  const target = u * total; // 7.
  let acc = 0,
    id = order[order.length - 1];
  for (let j = 0; j < order.length; j++) {
    acc += weights[j];
    if (acc > target) {
      id = order[j];
      break;
    }
  }
  return { greedy: false, kept: order, weights, total, target, id };
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
