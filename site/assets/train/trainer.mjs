// The training run the page's worker drives (train-worker.mjs) and Node replays (the parity test):
// the story as ids, training and validation windows, the batch order, one step at a time, the
// validation loss and a sample. Read tinyllm.mjs first (the mathematics); this file is the loop of
// export/train.py's `train`, cut into steps so the worker can pause between any two.
//
//   const run = createRun(story, { hidden: 64, lr: 0.01 })
//   run.step()            // -> {step, epoch, loss}: one batch, forward to update
//   run.validate()        // -> the mean loss on the held-out windows
//   run.sample("Once", 80, 0)

import { Mulberry32, sample } from "../runtime/sampler.mjs";
import { adamwStep, clipGlobalNorm, createAdam, evaluate, forward, initParams, lossAndGrads, prepare } from "./tinyllm.mjs";

// The page's defaults: small enough for a phone's CPU to write words within about a minute.
export const DEFAULTS = {
  embed: 16,
  hidden: 64,
  layers: 1,
  window: 24,
  batch: 16,
  lr: 0.01,
  epochs: 1000,
  weight_decay: 0.01,
  clip: 1.0,
  forget_bias: 1.0,
  loss: "all",
  seed: 0,
};
export const VALIDATION = 0.1; // the story's last tenth is never trained on
const VALIDATION_WINDOWS = 64; // evenly spaced windows from it make the validation loss

// ---- the data: data.py's vocabulary and windows ------------------------------------------------------

/** build_vocab: every character of the story, every printable ASCII character and "\n", sorted. */
export function buildVocab(story) {
  const chars = new Set([...story, "\n"]);
  for (let code = 32; code < 127; code++) chars.add(String.fromCharCode(code));
  return [...chars].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
}

/** Window n is ids[n : n+T] -> ids[n+1 : n+T+1] (data.windows); a window is named by its start n. */
function window(ids, n, T) {
  return [ids.slice(n, n + T), ids.slice(n + 1, n + T + 1)];
}

// ---- a training run ----------------------------------------------------------------------------------

export function createRun(story, { kernels = "fast", ...settings } = {}) {
  // kernels "js": no WebAssembly
  const vocab = buildVocab(story);
  const index = new Map(vocab.map((ch, i) => [ch, i]));
  const ids = Array.from(story, (ch) => index.get(ch));
  const config = { vocab_size: vocab.length, ...DEFAULTS, ...settings };
  const T = config.window;
  const split = Math.floor(ids.length * (1 - VALIDATION));
  const trainStarts = Array.from({ length: split - T }, (_, n) => n); // windows inside the first 90 %
  const valCount = ids.length - T - split; // windows inside the last 10 %
  const valStarts = Array.from(
    { length: Math.min(VALIDATION_WINDOWS, valCount) },
    (_, k) => split + Math.floor((k * valCount) / Math.min(VALIDATION_WINDOWS, valCount)),
  );
  const params = prepare(initParams(config), config, { kernels });
  const adam = createAdam(params);
  const orderRng = new Mulberry32((config.seed ^ 0x9e3779b9) >>> 0); // batch order, apart from the init
  let order = [],
    at = 0,
    epoch = 0,
    step = 0;

  /** The next batch's window starts: a fresh shuffle (Fisher–Yates) at each epoch, as train()'s permutation. */
  function nextBatch() {
    if (at >= order.length) {
      order = trainStarts.slice();
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(orderRng.uniform() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      at = 0;
      epoch += 1;
    }
    const batch = order.slice(at, at + config.batch);
    at += config.batch;
    return batch;
  }

  // --8<-- [start:step]
  /** One step of train(): a batch, its loss and gradients, clipping, the AdamW update. */
  function trainStep(onStage = () => {}) {
    const starts = nextBatch();
    const pairs = starts.map((n) => window(ids, n, T));
    const { loss, grads } = lossAndGrads(
      params,
      config,
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
      onStage,
    );
    onStage("update");
    const norm = clipGlobalNorm(grads, config.clip);
    adamwStep(params, grads, adam, config);
    step += 1;
    return { step, epoch, loss, norm, starts };
  }
  // --8<-- [end:step]

  function validate() {
    const pairs = valStarts.map((n) => window(ids, n, T));
    return evaluate(
      params,
      config,
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
    );
  }

  /** `length` characters after `prompt`, carrying nothing: the window is re-read each step (short texts only). */
  function write(prompt, length, seed, temperature = 0.8) {
    const rng = new Mulberry32(seed);
    const context = Array.from(prompt, (ch) => index.get(ch)).filter((i) => i !== undefined);
    let text = "";
    for (let n = 0; n < length; n++) {
      const xs = [context.slice(-T)];
      const { logits } = forward(params, config, xs);
      const V = config.vocab_size,
        last = xs[0].length - 1;
      const next = sample(logits.subarray(last * V, (last + 1) * V), { temperature, rng });
      context.push(next);
      text += vocab[next];
    }
    return text;
  }

  return {
    vocab,
    config,
    params,
    adam,
    ids,
    trainStarts,
    valStarts,
    step: trainStep,
    validate,
    sample: write,
    get steps() {
      return step;
    },
    get epoch() {
      return epoch;
    },
  };
}
