// Layer 2 (browser) · the sampler of lllm/model/sampling.py, line for line, so a seed gives the same
// text in the page as in `python -m lllm generate`. Read lllm/model/sampling.py's docstring first: it
// fixes the PRNG (Mulberry32) and the order of operations (steps 1–7) this file mirrors.
// Logits arrive as a Float32Array; reading an element widens it exactly to a float64 Number,
// which is what Python does with the float32 values.

// ---- the PRNG ----------------------------------------------------------------------------------

export class Mulberry32 {
  constructor(seed) {
    if (!Number.isInteger(seed)) throw new TypeError(`seed must be an integer, got ${seed}`);
    this.state = seed >>> 0; // seed mod 2**32, as `seed & MASK32` in Python (for |seed| < 2**53)
  }

  nextU32() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1) >>> 0;
    t = (t ^ ((t + Math.imul(t ^ (t >>> 7), t | 61)) >>> 0)) >>> 0;
    return (t ^ (t >>> 14)) >>> 0;
  }

  uniform() {
    return this.nextU32() / 4294967296;
  }
}

// ---- the sampler -------------------------------------------------------------------------------

export function checkSampling(temperature, topK, topP) {
  if (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0)
    throw new RangeError(`temperature must be a finite number >= 0, got ${temperature}`);
  if (!Number.isInteger(topK) || topK < 0) throw new RangeError(`top-k must be an integer >= 0 (0 = off), got ${topK}`);
  if (typeof topP !== "number" || !(topP > 0 && topP <= 1)) throw new RangeError(`top-p must be in (0, 1], got ${topP}`);
}

/** Ids ordered by logit descending, ties by id ascending (step 2). */
export function candidates(logits) {
  const order = Array.from(logits, (_, i) => i);
  order.sort((a, b) => logits[b] - logits[a] || a - b);
  return order;
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

/** Pick one token id from `logits` following steps 1–7 of lllm/model/sampling.py (`draw`, with the rng's next uniform). */
export function sample(logits, { temperature = 1.0, topK = 0, topP = 1.0, rng = null } = {}) {
  checkSampling(temperature, topK, topP);
  if (logits.length === 0) throw new RangeError("cannot sample from empty logits");
  if (temperature === 0) return draw(logits, 0, topK, topP, null).id; // 1. greedy: the rng is not used
  if (rng === null) throw new RangeError("sampling with temperature > 0 needs an rng (Mulberry32(seed))");
  return draw(logits, temperature, topK, topP, rng.uniform()).id;
}

// ---- what the model "thinks" comes next --------------------------------------------------------

/** The k most likely next ids with their probabilities (softmax at temperature 1), most likely first. */
export function topPredictions(logits, k = 5) {
  let zMax = -Infinity;
  for (const z of logits) if (z > zMax) zMax = z;
  let total = 0;
  const exps = Array.from(logits, (z) => {
    const e = Math.exp(z - zMax);
    total += e;
    return e;
  });
  return candidates(logits)
    .slice(0, k)
    .map((i) => [i, exps[i] / total]);
}
